-- The storefront's theme (issue 46): one row per store, made on its first update; a store
-- without one has the defaults of plugins/storefront/schemas.ts.
CREATE TABLE IF NOT EXISTS storefront_themes (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  theme jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);
