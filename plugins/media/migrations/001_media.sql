-- A store's media assets. The bytes live outside the database (under the data directory), keyed
-- by store and id; `size` is summed for the plan's storage limit. A transform's result names its
-- source and the parameters that made it (`variant`), so the same transform is made once.
CREATE TABLE IF NOT EXISTS media_assets (
  id uuid PRIMARY KEY,
  seq bigserial NOT NULL,
  store_id uuid NOT NULL REFERENCES stores(id),
  filename text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL,
  width integer,
  height integer,
  visibility text NOT NULL,
  source_id uuid,
  variant text,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS media_assets_store_seq ON media_assets (store_id, seq);
CREATE UNIQUE INDEX IF NOT EXISTS media_assets_variant ON media_assets (store_id, source_id, variant) WHERE source_id IS NOT NULL;
