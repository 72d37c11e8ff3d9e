-- One row per domain event and administrative act, written by the '*' reaction (record.ts), kept
-- SVC_AUDIT_TRAIL_RETENTION_DAYS days. event_id makes a reaction run twice write one row.
CREATE TABLE IF NOT EXISTS audit_events (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  event_id text NOT NULL,
  type text NOT NULL,
  actor_type text NOT NULL,
  actor_id text,
  actor_name text,
  resource_type text,
  resource_id text,
  data jsonb NOT NULL,
  request_id text,
  created_at timestamptz NOT NULL,
  UNIQUE (store_id, event_id)
);
CREATE INDEX IF NOT EXISTS audit_events_store_seq ON audit_events (store_id, seq);
CREATE INDEX IF NOT EXISTS audit_events_store_type ON audit_events (store_id, type, seq);
CREATE INDEX IF NOT EXISTS audit_events_store_resource ON audit_events (store_id, resource_id, seq);
CREATE INDEX IF NOT EXISTS audit_events_store_actor ON audit_events (store_id, actor_id, seq);
CREATE INDEX IF NOT EXISTS audit_events_created ON audit_events (created_at);
