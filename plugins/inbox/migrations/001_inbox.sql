-- The shared inbox: conversations with customers by email, each with its own reply address.
CREATE TABLE IF NOT EXISTS email_threads (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  subject text NOT NULL,
  customer_id uuid,
  customer_email text NOT NULL,
  status text NOT NULL,
  assigned_to uuid,
  message_count integer NOT NULL DEFAULT 0,
  last_message_at timestamptz NOT NULL,
  -- The secret part of the thread's reply address (t-<thread>-<token>@inbound domain).
  reply_token text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS email_threads_store_seq ON email_threads (store_id, seq);

CREATE TABLE IF NOT EXISTS email_thread_messages (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL,
  store_id uuid NOT NULL,
  thread_id uuid NOT NULL REFERENCES email_threads(id) ON DELETE CASCADE,
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  message_id_header text,
  from_address text NOT NULL,
  subject text NOT NULL,
  text text,
  html text,
  email_message_id uuid,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS email_thread_messages_thread ON email_thread_messages (thread_id, seq);
-- Threading: a reply's In-Reply-To / References name an earlier message of the store.
CREATE INDEX IF NOT EXISTS email_thread_messages_header ON email_thread_messages (store_id, message_id_header);
