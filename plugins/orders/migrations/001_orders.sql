CREATE TABLE IF NOT EXISTS orders (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  order_number text NOT NULL,
  status text NOT NULL,
  currency text NOT NULL,
  total_minor bigint NOT NULL,
  customer_id text,
  payment_method text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  cancelled_at timestamptz,
  UNIQUE (store_id, order_number)
);
CREATE INDEX IF NOT EXISTS orders_store_seq ON orders (store_id, seq);
CREATE INDEX IF NOT EXISTS orders_store_status_seq ON orders (store_id, status, seq);
-- customer enrichment adds up a customer's orders
CREATE INDEX IF NOT EXISTS orders_store_customer ON orders (store_id, lower(customer_id));

CREATE TABLE IF NOT EXISTS order_line_items (
  id uuid PRIMARY KEY,
  order_id uuid NOT NULL REFERENCES orders(id),
  store_id uuid NOT NULL,
  position integer NOT NULL,
  product_id uuid NOT NULL,
  name text NOT NULL,
  sku text,
  quantity integer NOT NULL CHECK (quantity > 0),
  unit_price_minor bigint NOT NULL,
  total_minor bigint NOT NULL,
  -- where the units were taken from, so cancelling puts them back there: [{location_id, quantity}]
  allocations jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS order_line_items_order ON order_line_items (order_id, position);
