CREATE TABLE IF NOT EXISTS stores (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('free', 'starter', 'pro', 'enterprise')),
  next_order_number integer NOT NULL DEFAULT 1001,
  created_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS api_keys (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  key_hash text NOT NULL UNIQUE,
  key_prefix text NOT NULL,
  scopes text[] NOT NULL,
  livemode boolean NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS api_keys_store ON api_keys (store_id);

-- An idempotency record is written in the transaction of the change it guards.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  api_key_id uuid NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  response_status integer NOT NULL,
  response_body jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (api_key_id, key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_at);

-- Per-minute request budgets shared by every API process (see core/http/rate-limit.ts).
CREATE TABLE IF NOT EXISTS rate_limit_windows (
  store_id uuid NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  last_grant integer NOT NULL,
  PRIMARY KEY (store_id, window_start)
);

CREATE TABLE IF NOT EXISTS settings (
  key text PRIMARY KEY,
  value text NOT NULL
);
