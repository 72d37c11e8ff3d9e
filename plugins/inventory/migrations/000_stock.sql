-- The stock tables: products, orders, inventory and locations all move stock through
-- plugins/inventory/stock.ts (via its public.ts), which keeps products.stock_quantity equal to the
-- sum of these levels.
--
-- Until the stock moved from core into this plugin, this file was core's migration `core/002_stock`.
-- A database migrated then has that id recorded and not `inventory/000_stock`, so it runs this file
-- once more: every statement is IF NOT EXISTS, so that changes nothing (plugins/inventory/
-- stock-migration.test.ts). Numbered 000 because 001_inventory references locations.
CREATE TABLE IF NOT EXISTS locations (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  is_default boolean NOT NULL DEFAULT false,
  address jsonb,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS locations_one_default ON locations (store_id) WHERE is_default;
CREATE UNIQUE INDEX IF NOT EXISTS locations_store_name ON locations (store_id, lower(name));
CREATE INDEX IF NOT EXISTS locations_store_seq ON locations (store_id, seq);

CREATE TABLE IF NOT EXISTS inventory_levels (
  store_id uuid NOT NULL,
  product_id uuid NOT NULL,
  location_id uuid NOT NULL REFERENCES locations(id),
  quantity integer NOT NULL CHECK (quantity >= 0),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (product_id, location_id)
);
CREATE INDEX IF NOT EXISTS inventory_levels_store ON inventory_levels (store_id, product_id);
