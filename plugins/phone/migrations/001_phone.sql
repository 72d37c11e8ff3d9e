-- One conversation per outside number and store; its messages in order.
CREATE TABLE IF NOT EXISTS phone_conversations (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  phone text NOT NULL,
  customer_id uuid,
  last_message_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (store_id, phone)
);
CREATE INDEX IF NOT EXISTS phone_conversations_store_seq ON phone_conversations (store_id, seq);

CREATE TABLE IF NOT EXISTS phone_messages (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  conversation_id uuid NOT NULL REFERENCES phone_conversations(id) ON DELETE CASCADE,
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  body text NOT NULL,
  -- Twilio's MessageSid: a callback Twilio sends again is kept once.
  twilio_sid text,
  created_at timestamptz NOT NULL,
  UNIQUE (store_id, twilio_sid)
);
CREATE INDEX IF NOT EXISTS phone_messages_conversation ON phone_messages (store_id, conversation_id, created_at);
