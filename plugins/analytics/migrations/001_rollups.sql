-- Daily rollups of counted orders, cut by day in the store's time zone and kept in its currency
-- (analytics_rollup_state says which: the reports use the rollups only while both still match
-- the store's settings, and the backfill rebuilds them when they no longer do).
CREATE TABLE IF NOT EXISTS analytics_rollup_state (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  tz text NOT NULL,
  currency text NOT NULL,
  built_at timestamptz NOT NULL
);

-- Per store and day: counted orders created that day and refunds made that day (amounts in minor units).
CREATE TABLE IF NOT EXISTS analytics_daily_sales (
  store_id uuid NOT NULL REFERENCES stores(id),
  day date NOT NULL,
  orders bigint NOT NULL,
  gross bigint NOT NULL,
  discounts bigint NOT NULL,
  tax bigint NOT NULL,
  refunds bigint NOT NULL,
  PRIMARY KEY (store_id, day)
);

-- Per store, day and product: units and net sales (after discounts, before tax) of counted orders created that day.
CREATE TABLE IF NOT EXISTS analytics_daily_products (
  store_id uuid NOT NULL REFERENCES stores(id),
  day date NOT NULL,
  product_id uuid NOT NULL,
  name text NOT NULL,
  units bigint NOT NULL,
  net bigint NOT NULL,
  PRIMARY KEY (store_id, day, product_id)
);
