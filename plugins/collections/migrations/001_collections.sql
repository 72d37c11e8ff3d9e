CREATE TABLE IF NOT EXISTS collections (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  title text NOT NULL,
  handle text NOT NULL,
  description text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  -- The handle is a URL segment of the storefront: one collection per handle in a store.
  UNIQUE (store_id, handle)
);
CREATE INDEX IF NOT EXISTS collections_store_seq ON collections (store_id, seq);

-- Membership. No foreign key to products: plugins own their tables, and products are archived,
-- never deleted, so the join in store.ts hides archived members instead.
CREATE TABLE IF NOT EXISTS collection_products (
  collection_id uuid NOT NULL REFERENCES collections(id),
  product_id uuid NOT NULL,
  store_id uuid NOT NULL,
  -- insertion order: products are listed in the order they were added
  position bigserial NOT NULL,
  added_at timestamptz NOT NULL,
  PRIMARY KEY (collection_id, product_id)
);
CREATE INDEX IF NOT EXISTS collection_products_position ON collection_products (collection_id, position);
