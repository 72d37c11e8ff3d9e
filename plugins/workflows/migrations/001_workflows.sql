CREATE TABLE IF NOT EXISTS workflows (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  trigger jsonb NOT NULL,
  steps jsonb NOT NULL,
  -- The rights its steps call tools with: the credential that last saved it (key id, scopes).
  principal jsonb NOT NULL,
  -- Event and cron runs not started because the store's plan had no runs left this hour.
  dropped_runs integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS workflows_store_seq ON workflows (store_id, seq);

CREATE TABLE IF NOT EXISTS workflow_runs (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  workflow_id uuid NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled')),
  trigger_type text NOT NULL,
  trigger_data jsonb NOT NULL,
  chain_depth integer NOT NULL DEFAULT 0,
  -- The definition as it was when the run started (an update does not change a run under way),
  -- and one state per step: {status, output, error, attempts, execution_id}.
  definition jsonb NOT NULL,
  step_states jsonb NOT NULL,
  failed_step text,
  error jsonb,
  -- A cron run's minute: one run per workflow and minute, however many workers tick.
  scheduled_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  finished_at timestamptz,
  UNIQUE (workflow_id, scheduled_at)
);
CREATE INDEX IF NOT EXISTS workflow_runs_store_seq ON workflow_runs (store_id, seq);
CREATE INDEX IF NOT EXISTS workflow_runs_workflow ON workflow_runs (store_id, workflow_id, seq);
CREATE INDEX IF NOT EXISTS workflow_runs_hourly ON workflow_runs (store_id, created_at);
