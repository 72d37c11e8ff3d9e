-- UCP adapter of the checkout plugin: the store's signing keys, and idempotency records of agents' writes.

-- A store's P-256 signing keys (published as signing_keys at /.well-known/ucp). The private JWK is
-- sealed with the server's secret box, bound to the store and kid; retired keys stay published
-- until retired_at, so agents verifying an older webhook still find them (signatures.md: rotation).
CREATE TABLE IF NOT EXISTS ucp_signing_keys (
  store_id uuid NOT NULL REFERENCES stores(id),
  kid text NOT NULL,
  public_jwk jsonb NOT NULL,
  sealed_private text NOT NULL,
  created_at timestamptz NOT NULL,
  retired_at timestamptz,
  PRIMARY KEY (store_id, kid)
);

-- Idempotency of UCP writes (checkout-rest.md: a key is per agent and operation; a replay answers
-- the stored response; the same key with other parameters is 409). `status` 0 marks a request
-- still running.
CREATE TABLE IF NOT EXISTS ucp_idempotency (
  store_id uuid NOT NULL REFERENCES stores(id),
  agent text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status integer NOT NULL,
  body text,
  headers jsonb,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (store_id, agent, key)
);
CREATE INDEX IF NOT EXISTS ucp_idempotency_created ON ucp_idempotency (created_at);
