-- A segment keeps its rules only: members are evaluated when read (plugins/segments/rules.ts).
CREATE TABLE IF NOT EXISTS segments (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  description text,
  rules jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS segments_store_seq ON segments (store_id, seq);
