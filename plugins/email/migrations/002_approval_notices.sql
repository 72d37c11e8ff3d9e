-- Which approver group of which held tool execution has been mailed (each once).
CREATE TABLE IF NOT EXISTS email_approval_notices (
  execution_id uuid NOT NULL,
  grp text NOT NULL,
  store_id uuid NOT NULL REFERENCES stores(id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (execution_id, grp)
);
