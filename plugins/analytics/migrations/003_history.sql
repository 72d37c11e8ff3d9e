-- Running totals (issue 48's long periods): one row per product, or customer, and month it sold or
-- ordered in, holding its whole history up to that month's end, valid until the next such month
-- (`until`, or 9999-12-01). The totals as of any month's end are then one row per product or
-- customer (`month <= X AND until > X`), and a period's figures the difference of two such readings
-- and a few days' rows, whatever its length. Summed from the month rows (never added to), so
-- recomputing them gives the same rows.
CREATE TABLE IF NOT EXISTS analytics_product_history (
  store_id uuid NOT NULL REFERENCES stores(id),
  month date NOT NULL,
  product_id uuid NOT NULL,
  until date NOT NULL,
  units bigint NOT NULL,
  net bigint NOT NULL,
  PRIMARY KEY (store_id, product_id, month)
);
-- Readings as of a month's end: by `until` (recent months), or by `month` (early ones).
CREATE INDEX IF NOT EXISTS analytics_product_history_until ON analytics_product_history (store_id, until, month);
CREATE INDEX IF NOT EXISTS analytics_product_history_month ON analytics_product_history (store_id, month);

-- first_day: the customer's first day ordered, ever; last_day: the last up to this month's end;
-- prev_last_day: the last before this month (null for the first month).
CREATE TABLE IF NOT EXISTS analytics_customer_history (
  store_id uuid NOT NULL REFERENCES stores(id),
  month date NOT NULL,
  customer_id text NOT NULL,
  until date NOT NULL,
  first_day date NOT NULL,
  last_day date NOT NULL,
  prev_last_day date,
  orders bigint NOT NULL,
  ltv bigint NOT NULL,
  PRIMARY KEY (store_id, customer_id, month)
);
CREATE INDEX IF NOT EXISTS analytics_customer_history_until ON analytics_customer_history (store_id, until, month);
-- Also a month's cohort counts.
CREATE INDEX IF NOT EXISTS analytics_customer_history_month ON analytics_customer_history (store_id, month);

-- Per cohort (month of a customer's first counted order) and month: how many of its customers
-- ordered in that month (cohort = month: its size). Counted from the history rows, a month at a time.
CREATE TABLE IF NOT EXISTS analytics_cohorts (
  store_id uuid NOT NULL REFERENCES stores(id),
  cohort date NOT NULL,
  month date NOT NULL,
  customers bigint NOT NULL,
  PRIMARY KEY (store_id, cohort, month)
);

-- The names of a period's top products, looked up per product.
CREATE INDEX IF NOT EXISTS analytics_monthly_products_product ON analytics_monthly_products (store_id, product_id, month);
CREATE INDEX IF NOT EXISTS analytics_daily_products_product ON analytics_daily_products (store_id, product_id, day);

-- The history rows replace the whole-history customer rows.
DROP TABLE IF EXISTS analytics_customers;

-- Rollups built before these tables have none of their rows: the reports read the orders until the
-- sweep (every 10 minutes) has rebuilt them.
DELETE FROM analytics_rollup_state;
