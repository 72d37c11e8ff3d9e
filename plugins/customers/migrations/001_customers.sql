CREATE TABLE IF NOT EXISTS customers (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  email text NOT NULL,
  first_name text,
  last_name text,
  phone text,
  accepts_marketing boolean NOT NULL DEFAULT false,
  -- Small bounded documents validated by the API schema; jsonb keeps one encoding on both backends.
  tags jsonb NOT NULL DEFAULT '[]',
  metadata jsonb NOT NULL DEFAULT '{}',
  addresses jsonb NOT NULL DEFAULT '[]',
  -- Derived by enrich_customer from the store's own orders; null until first enriched.
  enrichment jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- An email identifies one customer per store, whatever its case; also serves the email filter.
CREATE UNIQUE INDEX IF NOT EXISTS customers_store_email ON customers (store_id, lower(email));
CREATE INDEX IF NOT EXISTS customers_store_seq ON customers (store_id, seq);
