-- Issue 50: protocol-neutral checkout sessions. `agent_key` is who may see the session (a UCP
-- profile URL, or the API key an ACP or REST agent authenticated with); `state` is what the agent
-- asked for (lines, buyer, addresses, shipping option, codes); `view` the session as last priced.
CREATE TABLE IF NOT EXISTS checkout_sessions (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  channel text NOT NULL CHECK (channel IN ('api', 'ucp', 'acp')),
  agent jsonb NOT NULL,
  agent_key text NOT NULL,
  status text NOT NULL,
  state jsonb NOT NULL,
  view jsonb NOT NULL,
  order_id uuid,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS checkout_sessions_store_seq ON checkout_sessions (store_id, seq);

-- The store's agentic settings (GET/PATCH STORE/agentic): protocols off until turned on; secrets
-- (the ACP webhook secret, the Stripe key) sealed with the instance's secret box, never shown.
CREATE TABLE IF NOT EXISTS checkout_settings (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  ucp jsonb NOT NULL DEFAULT '{}',
  acp jsonb NOT NULL DEFAULT '{}',
  payments jsonb NOT NULL DEFAULT '{}',
  acp_webhook_secret_sealed text,
  stripe_api_key_sealed text,
  updated_at timestamptz NOT NULL
);
