-- One row per model call with the tokens it took, for per-store usage reports. agent_id has no
-- foreign key: what a deleted agent used still counts.
CREATE TABLE IF NOT EXISTS agent_model_calls (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  agent_id uuid NOT NULL,
  conversation_id uuid NOT NULL,
  provider text NOT NULL,
  model text NOT NULL,
  input_tokens integer NOT NULL CHECK (input_tokens >= 0),
  output_tokens integer NOT NULL CHECK (output_tokens >= 0),
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_model_calls_store_time ON agent_model_calls (store_id, created_at);
