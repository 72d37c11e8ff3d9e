-- Wholesale price lists (issue 46): a customer group is a customer tag; a product (or one of its
-- variants) has at most one price per group, with optional quantity breaks.
CREATE TABLE IF NOT EXISTS wholesale_prices (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  customer_group text NOT NULL,
  product_id uuid NOT NULL,
  -- the zero uuid: the product's price (for a variable product, every variant without its own)
  variant_key uuid NOT NULL,
  currency text NOT NULL,
  price_minor bigint NOT NULL CHECK (price_minor >= 0),
  -- [{min_quantity, price_minor}], ascending min_quantity
  quantity_breaks jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (store_id, customer_group, product_id, variant_key)
);
CREATE INDEX IF NOT EXISTS wholesale_prices_store_seq ON wholesale_prices (store_id, seq);
CREATE INDEX IF NOT EXISTS wholesale_prices_store_product ON wholesale_prices (store_id, product_id);
