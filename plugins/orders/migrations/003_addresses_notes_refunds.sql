-- Issue 21: addresses and notes kept on the order as given (a snapshot, never joined to the
-- customer), the merchant's metadata, a cancellation reason, and refunds.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS shipping_address jsonb;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS billing_address jsonb;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS customer_note text;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS merchant_note text;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS cancel_reason text;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS metadata jsonb NOT NULL DEFAULT '{}';
-- What refunds have given back, in the order's minor unit. The CHECK is the last line of defence
-- behind the row lock refunds take: the books can never show more refunded than paid.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS amount_refunded_minor bigint NOT NULL DEFAULT 0
  CONSTRAINT orders_refund_within_total CHECK (amount_refunded_minor >= 0 AND amount_refunded_minor <= total_minor);
CREATE INDEX IF NOT EXISTS orders_metadata ON orders USING gin (metadata jsonb_path_ops);

-- Units of a line refunded so far; its allocations keep only the units the order still holds, so a
-- restock (by refund or cancellation) never puts a unit back twice.
ALTER TABLE order_line_items ADD COLUMN IF NOT EXISTS quantity_refunded integer NOT NULL DEFAULT 0
  CONSTRAINT order_line_items_refund_within_quantity CHECK (quantity_refunded >= 0 AND quantity_refunded <= quantity);

CREATE TABLE IF NOT EXISTS order_refunds (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  order_id uuid NOT NULL REFERENCES orders(id),
  seq bigserial NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  reason text,
  restock boolean NOT NULL,
  -- [{line_item_id, quantity, amount_minor}]
  lines jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS order_refunds_order_seq ON order_refunds (store_id, order_id, seq);
