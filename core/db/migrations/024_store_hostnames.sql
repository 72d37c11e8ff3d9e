-- Issue 50: the hostnames a store claims (`hostnames` in PATCH STORE/settings). The agentic
-- endpoints and their well-known documents pick the store from the request's Host; a hostname
-- belongs to one store across the instance (the primary key).
CREATE TABLE IF NOT EXISTS store_hostnames (
  hostname text PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS store_hostnames_store ON store_hostnames (store_id);
