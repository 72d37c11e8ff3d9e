CREATE TABLE IF NOT EXISTS agents (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  model text NOT NULL,
  system_prompt text NOT NULL,
  -- Small bounded lists validated by the API schema; jsonb keeps one encoding on both backends.
  tools jsonb NOT NULL DEFAULT '[]',
  channels jsonb NOT NULL DEFAULT '[]',
  is_default boolean NOT NULL DEFAULT false,
  status text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agents_store_seq ON agents (store_id, seq);
-- One default agent per store: the handler clears the others first; this catches a race.
CREATE UNIQUE INDEX IF NOT EXISTS agents_one_default ON agents (store_id) WHERE is_default;

CREATE TABLE IF NOT EXISTS agent_conversations (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  seq bigserial NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_conversations_agent_seq ON agent_conversations (store_id, agent_id, seq);

-- One row per turn as the model saw it (user text, assistant text + tool calls, tool results),
-- so a conversation is replayed to the model exactly as it happened.
CREATE TABLE IF NOT EXISTS agent_messages (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  conversation_id uuid NOT NULL REFERENCES agent_conversations(id) ON DELETE CASCADE,
  seq bigserial NOT NULL,
  role text NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
  content jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_messages_conversation_seq ON agent_messages (conversation_id, seq);
