-- Outside providers as svc_status sees them (issue 49): outcomes of calls and probes counted in a
-- row; 3 failures make one `failing` (an incident opens), 2 successes after that `operational`.
-- Instance-wide: providers are the operator's settings, not a store's.
CREATE TABLE IF NOT EXISTS svc_status_providers (
  name text PRIMARY KEY,
  status text NOT NULL DEFAULT 'operational' CHECK (status IN ('operational', 'failing')),
  failures_in_row integer NOT NULL DEFAULT 0,
  successes_in_row integer NOT NULL DEFAULT 0,
  last_checked_at timestamptz NOT NULL,
  last_error text
);
