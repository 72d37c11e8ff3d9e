-- Spans (issue 49, telemetry): each store's traces of requests, tool calls, jobs, queries, webhook
-- deliveries and provider calls, written behind in batches. Bounded: SVC_TELEMETRY_RETENTION_HOURS
-- and 100,000 spans per store (the prune job). No foreign key to stores: a batch written a moment
-- after its store was deleted must not fail, and the prune job removes what is left.
CREATE TABLE IF NOT EXISTS telemetry_spans (
  store_id uuid NOT NULL,
  trace_id text NOT NULL,
  span_id text NOT NULL,
  parent_id text,
  name text NOT NULL,
  kind text NOT NULL,
  route text,
  request_id text,
  status_code integer,
  failed boolean NOT NULL DEFAULT false,
  error boolean NOT NULL DEFAULT false,
  started_at timestamptz NOT NULL,
  duration_ms double precision NOT NULL,
  attributes jsonb NOT NULL DEFAULT '{}',
  -- One index, which reads use (a store's spans by time) and which keeps a batch written twice
  -- from doubling its spans: every index costs each of thousands of inserts a second.
  PRIMARY KEY (store_id, started_at, span_id)
);

-- Error groups: one row per (store, fingerprint), counted as occurrences arrive.
CREATE TABLE IF NOT EXISTS telemetry_errors (
  store_id uuid NOT NULL,
  fingerprint text NOT NULL,
  kind text NOT NULL,
  code text NOT NULL,
  route text NOT NULL,
  count bigint NOT NULL,
  first_seen timestamptz NOT NULL,
  last_seen timestamptz NOT NULL,
  sample jsonb NOT NULL,
  PRIMARY KEY (store_id, fingerprint)
);
CREATE INDEX IF NOT EXISTS telemetry_errors_recent ON telemetry_errors (store_id, last_seen);

-- What get_metrics reads: per store, minute, kind, route and status, counts and a duration
-- histogram, folded in memory and written every second. Every request is counted here, while
-- spans beyond a rate are kept only when they failed or were slow.
CREATE TABLE IF NOT EXISTS telemetry_rollups (
  store_id uuid NOT NULL,
  minute timestamptz NOT NULL,
  kind text NOT NULL,
  route text NOT NULL,
  status integer NOT NULL,
  count bigint NOT NULL,
  failed bigint NOT NULL,
  errors bigint NOT NULL,
  -- Counts per duration bucket (ms upper bounds in plugins/telemetry/rollups.ts, the last unbounded).
  buckets bigint[] NOT NULL,
  PRIMARY KEY (store_id, minute, kind, route, status)
);
