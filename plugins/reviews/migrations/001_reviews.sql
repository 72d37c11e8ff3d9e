-- Product reviews. No foreign key to products: plugins own their tables; the product is checked
-- through the products plugin when a review is written (products are archived, never deleted).
CREATE TABLE IF NOT EXISTS reviews (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  product_id uuid NOT NULL,
  rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
  title text,
  body text NOT NULL,
  author_name text NOT NULL,
  -- pending until a moderator approves or rejects it; only approved reviews count in a summary
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  moderated_at timestamptz,
  response text,
  responded_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_store_seq ON reviews (store_id, seq);
CREATE INDEX IF NOT EXISTS reviews_store_product ON reviews (store_id, product_id, status);
