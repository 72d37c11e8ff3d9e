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

-- The same per month (day = its first day), summed from the daily rows: a long period reads whole
-- months here and only its partial months' days above.
CREATE TABLE IF NOT EXISTS analytics_monthly_products (
  store_id uuid NOT NULL REFERENCES stores(id),
  month date NOT NULL,
  product_id uuid NOT NULL,
  name text NOT NULL,
  units bigint NOT NULL,
  net bigint NOT NULL,
  PRIMARY KEY (store_id, month, product_id)
);

-- Per store, customer and day: counted orders created that day and their lifetime net sales
-- (gross - discounts - everything refunded on them, whenever).
CREATE TABLE IF NOT EXISTS analytics_daily_customers (
  store_id uuid NOT NULL REFERENCES stores(id),
  day date NOT NULL,
  customer_id text NOT NULL,
  orders bigint NOT NULL,
  ltv bigint NOT NULL,
  PRIMARY KEY (store_id, day, customer_id)
);

-- The same per customer and month, with the first and last day the customer ordered in it.
CREATE TABLE IF NOT EXISTS analytics_monthly_customers (
  store_id uuid NOT NULL REFERENCES stores(id),
  month date NOT NULL,
  customer_id text NOT NULL,
  first_day date NOT NULL,
  last_day date NOT NULL,
  orders bigint NOT NULL,
  ltv bigint NOT NULL,
  PRIMARY KEY (store_id, month, customer_id)
);
