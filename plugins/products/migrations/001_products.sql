CREATE TABLE IF NOT EXISTS products (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  description text,
  sku text,
  type text NOT NULL,
  status text NOT NULL CHECK (status IN ('draft', 'active', 'archived')),
  price_minor bigint NOT NULL CHECK (price_minor >= 0),
  compare_at_minor bigint CHECK (compare_at_minor >= 0),
  currency text NOT NULL,
  stock_quantity integer NOT NULL CHECK (stock_quantity >= 0),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  archived_at timestamptz
);
-- SKUs are unique among a store's live products; archiving frees the SKU.
CREATE UNIQUE INDEX IF NOT EXISTS products_store_sku ON products (store_id, sku) WHERE archived_at IS NULL AND sku IS NOT NULL;
CREATE INDEX IF NOT EXISTS products_store_seq ON products (store_id, seq);
