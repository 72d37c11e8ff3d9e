-- Groups of svc processes a trusted store launched (issue 49, launch_cluster): which adapter, how
-- many of which role, and the handles to stop them (pids, container ids, the replicas added).
CREATE TABLE IF NOT EXISTS launch_cluster_clusters (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  adapter text NOT NULL CHECK (adapter IN ('local', 'docker', 'kubernetes')),
  role text NOT NULL CHECK (role IN ('worker', 'api')),
  count integer NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'terminated')),
  nodes jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  terminated_at timestamptz
);
CREATE INDEX IF NOT EXISTS launch_cluster_clusters_store ON launch_cluster_clusters (store_id, seq);
