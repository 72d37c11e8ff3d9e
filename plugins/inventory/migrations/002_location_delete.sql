-- delete_location (plugins/locations): a location is deleted only when it holds nothing, and its row
-- stays (marked deleted_at, and inactive) because the stock history (inventory_adjustments) and
-- orders' allocations name it. Deleted locations are gone from every lookup and receive nothing.
ALTER TABLE locations ADD COLUMN IF NOT EXISTS deleted_at timestamptz;

-- A deleted location's name is free again: names are unique among the live ones only. The index
-- keeps its name (plugins/locations maps a violation of it to 409 naming `name`), so 000's
-- CREATE ... IF NOT EXISTS, if it ever runs again, leaves this partial one in place. Rebuilt in
-- one transaction with the migration: no moment without it.
DROP INDEX IF EXISTS locations_store_name;
CREATE UNIQUE INDEX IF NOT EXISTS locations_store_name ON locations (store_id, lower(name)) WHERE deleted_at IS NULL;
