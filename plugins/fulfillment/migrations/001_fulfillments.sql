-- Shipments of an order's units (issue 46). No foreign key to orders: plugins own their tables;
-- the order and its lines are read through the orders plugin when a fulfilment is made.
CREATE TABLE IF NOT EXISTS fulfillments (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  order_id uuid NOT NULL,
  carrier text,
  tracking_number text,
  tracking_url text,
  -- [{line_item_id, quantity}]: the units this shipment carries
  line_items jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS fulfillments_store_seq ON fulfillments (store_id, seq);
CREATE INDEX IF NOT EXISTS fulfillments_order ON fulfillments (store_id, order_id, seq);
