-- Jobs a client can follow (GET STORE/jobs/{id}): those an action starts for a client, and the
-- reactions to events (so a failing one shows by name). Internal queue work (a message's delivery)
-- has no row here: pg-boss alone holds it.
CREATE TABLE IF NOT EXISTS jobs (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  -- '<plugin>.<job>', or '<plugin>.on:<event type>' for a reaction.
  type text NOT NULL,
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  progress_done bigint NOT NULL DEFAULT 0,
  progress_total bigint,
  result jsonb,
  error jsonb,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX IF NOT EXISTS jobs_store_seq ON jobs (store_id, seq);

-- A reaction applied: written in the reaction's own transaction, so a retried job (its worker died
-- after the commit, before pg-boss heard) finds it and does nothing.
CREATE TABLE IF NOT EXISTS event_reactions (
  event_id text NOT NULL,
  plugin text NOT NULL,
  store_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (event_id, plugin)
);
