-- Per store and customer, the whole history in the rollups: first and last day ordered, counted
-- orders and lifetime net sales, summed from the month rows. The customer report of a period
-- ending today reads these 1 row per customer instead of every customer-month.
CREATE TABLE IF NOT EXISTS analytics_customers (
  store_id uuid NOT NULL REFERENCES stores(id),
  customer_id text NOT NULL,
  first_day date NOT NULL,
  last_day date NOT NULL,
  orders bigint NOT NULL,
  ltv bigint NOT NULL,
  PRIMARY KEY (store_id, customer_id)
);
CREATE INDEX IF NOT EXISTS analytics_monthly_customers_customer ON analytics_monthly_customers (store_id, customer_id, month);

INSERT INTO analytics_customers (store_id, customer_id, first_day, last_day, orders, ltv)
SELECT store_id, customer_id, min(first_day), max(last_day), sum(orders), sum(ltv) FROM analytics_monthly_customers
GROUP BY store_id, customer_id
ON CONFLICT (store_id, customer_id) DO NOTHING;
CREATE INDEX IF NOT EXISTS analytics_daily_customers_customer ON analytics_daily_customers (store_id, customer_id, day);
