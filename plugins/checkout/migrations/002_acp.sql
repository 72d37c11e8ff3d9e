-- ACP's own Idempotency-Key rules (its spec fixes other answers than svc's SPEC 7): a key is
-- scoped to the agent's API key; a row without response_status is a request still running.
CREATE TABLE IF NOT EXISTS checkout_acp_idempotency (
  store_id uuid NOT NULL REFERENCES stores(id),
  api_key_id text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_text text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (store_id, api_key_id, key)
);

-- The product feed (ACP / OpenAI file feed), kept by the scheduled export: one snapshot per store.
CREATE TABLE IF NOT EXISTS checkout_feeds (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  body text NOT NULL,
  products integer NOT NULL,
  generated_at timestamptz NOT NULL
);
