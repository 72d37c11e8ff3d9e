-- A run of index_catalog: how far its jobs are (until the kit's declared jobs carry progress).
CREATE TABLE IF NOT EXISTS embedding_index_runs (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  status text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
  total integer NOT NULL,
  done integer NOT NULL DEFAULT 0,
  embedded integer NOT NULL DEFAULT 0,
  error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS embedding_index_runs_store ON embedding_index_runs (store_id, created_at);
