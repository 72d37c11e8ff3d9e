-- The processes of this instance (issue 49, local_agent): one row per running `svc serve`, kept
-- fresh by its heartbeat. Instance-wide, so no store_id: no store owns a process; which stores may
-- see them is the instance_tools rule, checked by the actions.
CREATE TABLE IF NOT EXISTS local_agent_nodes (
  id uuid PRIMARY KEY,
  host text NOT NULL,
  role text NOT NULL CHECK (role IN ('api', 'worker', 'all')),
  version text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL,
  heartbeat_at timestamptz NOT NULL,
  load jsonb NOT NULL DEFAULT '{}',
  queues jsonb NOT NULL DEFAULT '[]',
  -- The last 10 tasks this node ran (run_task), newest first.
  recent_tasks jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS local_agent_nodes_heartbeat ON local_agent_nodes (heartbeat_at);
