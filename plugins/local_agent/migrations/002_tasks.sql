-- Tasks addressed to one node (run_task): the node takes its own, in order. The job a client
-- follows is the core's `jobs` row with the same id; this row only says which node runs it.
CREATE TABLE IF NOT EXISTS local_agent_tasks (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  node_id uuid NOT NULL,
  task text NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'done')),
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS local_agent_tasks_node ON local_agent_tasks (node_id, status, created_at);
