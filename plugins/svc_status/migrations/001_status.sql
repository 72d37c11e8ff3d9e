-- Incidents (issue 49, svc_status): conditions the instance finds by itself and closes by itself.
-- Instance-wide ones have no store; a store's own (its webhook endpoint disabled) carry its id.
CREATE TABLE IF NOT EXISTS svc_status_incidents (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL,
  -- What the condition is about ('workers_gone', 'backlog', 'webhook_disabled:<endpoint id>'):
  -- at most one open incident per key, however many processes check at once.
  key text NOT NULL,
  kind text NOT NULL,
  store_id uuid REFERENCES stores(id),
  title text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL CHECK (status IN ('open', 'resolved')),
  opened_at timestamptz NOT NULL,
  resolved_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS svc_status_incidents_open ON svc_status_incidents (key) WHERE status = 'open';
CREATE INDEX IF NOT EXISTS svc_status_incidents_seq ON svc_status_incidents (seq);

-- Who hears incident.opened and incident.resolved: a store's HTTPS endpoint or an email address.
CREATE TABLE IF NOT EXISTS svc_status_subscriptions (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  channel text NOT NULL CHECK (channel IN ('webhook', 'email')),
  url text,
  email text,
  -- The signing secret of a webhook channel, sealed with SVC_SECRET_KEY.
  sealed_secret text,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS svc_status_subscriptions_store ON svc_status_subscriptions (store_id, seq);
