-- Issue 21: variable products with options and variants, metadata, and the list filters.

ALTER TABLE products ADD COLUMN IF NOT EXISTS metadata jsonb NOT NULL DEFAULT '{}';
-- A variable product's options, in order: [{"name": "size", "values": ["S", "M"]}, ...] (at most 3).
ALTER TABLE products ADD COLUMN IF NOT EXISTS options jsonb NOT NULL DEFAULT '[]';

-- One row per combination of option values. Stock lives in inventory_levels (variant_id = this
-- id); stock_quantity is kept equal to its levels' sum by plugins/inventory/stock.ts, and the
-- product's own stock_quantity adds up its variants' levels.
CREATE TABLE IF NOT EXISTS product_variants (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  product_id uuid NOT NULL REFERENCES products(id),
  seq bigserial NOT NULL,
  sku text,
  -- {"size": "M", "colour": "red"}: one value for each of the product's options
  options jsonb NOT NULL,
  price_minor bigint NOT NULL CHECK (price_minor >= 0),
  status text NOT NULL CHECK (status IN ('draft', 'active')),
  stock_quantity integer NOT NULL DEFAULT 0 CHECK (stock_quantity >= 0),
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  archived_at timestamptz
);
CREATE INDEX IF NOT EXISTS product_variants_product ON product_variants (product_id, seq);
-- Variant SKUs are unique among the store's live variants, as product SKUs among live products;
-- migration 004 keeps the two apart from each other.
CREATE UNIQUE INDEX IF NOT EXISTS product_variants_store_sku ON product_variants (store_id, sku) WHERE archived_at IS NULL AND sku IS NOT NULL;
-- One live variant per combination.
CREATE UNIQUE INDEX IF NOT EXISTS product_variants_combination ON product_variants (product_id, options) WHERE archived_at IS NULL;

-- List filters: metadata[key]=value (jsonb containment), created[gte]/[lte], type.
CREATE INDEX IF NOT EXISTS products_metadata ON products USING gin (metadata jsonb_path_ops);
CREATE INDEX IF NOT EXISTS products_store_created ON products (store_id, created_at);
CREATE INDEX IF NOT EXISTS products_store_type_seq ON products (store_id, type, seq);

-- q: a case-insensitive substring of the name or SKU (store.ts SEARCH_TEXT, the same expression),
-- or of a variant's SKU, served by trigram indexes where pg_trgm is available (as customers').
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): product search by q runs without its index', SQLERRM;
END $$;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX IF NOT EXISTS products_search ON products USING gin ((lower(name || ' ' || coalesce(sku, ''))) gin_trgm_ops);
    CREATE INDEX IF NOT EXISTS product_variants_search ON product_variants USING gin ((lower(coalesce(sku, ''))) gin_trgm_ops);
  END IF;
EXCEPTION WHEN undefined_object THEN
  RAISE NOTICE 'gin_trgm_ops is not visible (%): product search by q runs without its index', SQLERRM;
END $$;
