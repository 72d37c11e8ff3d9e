CREATE TABLE IF NOT EXISTS voice_calls (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  twilio_sid text,
  to_number text NOT NULL,
  from_number text NOT NULL,
  status text NOT NULL,
  record boolean NOT NULL DEFAULT false,
  duration_seconds integer,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS voice_calls_store_seq ON voice_calls (store_id, seq);

-- The recording's bytes, fetched from Twilio with the account's credentials. No media plugin is on
-- main yet: they are kept here (private), and served to the store's credentials only.
CREATE TABLE IF NOT EXISTS voice_recordings (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  call_id uuid NOT NULL UNIQUE,
  twilio_sid text NOT NULL,
  content_type text NOT NULL,
  bytes bytea NOT NULL,
  duration_seconds integer,
  created_at timestamptz NOT NULL
);
