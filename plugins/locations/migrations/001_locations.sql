-- The locations table belongs to this plugin. It was first made by inventory/000_stock (the stock
-- tables came first) and changed by inventory/002_location_delete; released migrations are never
-- edited, so those keep their text and this one states the table as it is now. A database made
-- before the move already has it and this changes nothing; on a fresh one it runs first (inventory
-- requires locations), and inventory's statements about the table then find it there.
CREATE TABLE IF NOT EXISTS locations (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  address jsonb,
  active boolean NOT NULL DEFAULT true,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
ALTER TABLE locations ADD COLUMN IF NOT EXISTS deleted_at timestamptz;
CREATE UNIQUE INDEX IF NOT EXISTS locations_one_default ON locations (store_id) WHERE is_default;
-- Names are unique among live locations (a deleted one's name is free again).
CREATE UNIQUE INDEX IF NOT EXISTS locations_store_name ON locations (store_id, lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX IF NOT EXISTS locations_store_seq ON locations (store_id, seq);
