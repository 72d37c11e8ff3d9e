-- Outbound webhooks (SPEC 2.7, 2.8, 6.1). Core owns these tables: invoke writes events and their
-- deliveries in the transaction of the change (outbox), the worker delivers them, and the
-- webhooks_mgmt plugin manages endpoints and reads the delivery log.

CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  description text,
  -- The signing secret, sealed with SVC_SECRET_KEY since 006 (older plain rows still sign). Never returned after create.
  secret text NOT NULL,
  is_active boolean NOT NULL DEFAULT true,
  disabled_reason text,
  total_delivered bigint NOT NULL DEFAULT 0,
  total_failed bigint NOT NULL DEFAULT 0,
  -- When the current run of failed attempts began (null after any success): 5 days disables.
  failing_since timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_endpoints_store_seq ON webhook_endpoints (store_id, seq);

-- Only events some active endpoint subscribed to are stored. body is the exact JSON sent, kept as
-- text so every attempt signs and sends the same bytes.
CREATE TABLE IF NOT EXISTS events (
  id text PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  type text NOT NULL,
  body text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS events_created ON events (created_at);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL,
  seq bigserial NOT NULL,
  endpoint_id uuid NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id text NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  event_type text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Attempts made in all; round_attempts since the last (re)send, which the retry schedule counts.
  attempts integer NOT NULL DEFAULT 0,
  round_attempts integer NOT NULL DEFAULT 0,
  next_retry_at timestamptz,
  -- A worker holds the delivery while its request is in flight (shorter than the job expiry).
  lease_until timestamptz,
  last_status_code integer,
  last_duration_ms integer,
  last_response text,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_endpoint_seq ON webhook_deliveries (endpoint_id, seq);
CREATE INDEX IF NOT EXISTS webhook_deliveries_failed ON webhook_deliveries (endpoint_id) WHERE status = 'failed';
CREATE INDEX IF NOT EXISTS webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE TABLE IF NOT EXISTS webhook_delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  succeeded boolean NOT NULL,
  status_code integer,
  duration_ms integer NOT NULL,
  response text,
  error text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
