-- History of manual stock movements (adjust_stock, transfer_stock). Orders move stock through
-- plugins/inventory/stock.ts and keep their own record (order_line_items.allocations), so they are not repeated here.
CREATE TABLE IF NOT EXISTS inventory_adjustments (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  product_id uuid NOT NULL,
  location_id uuid NOT NULL REFERENCES locations(id),
  type text NOT NULL CHECK (type IN ('adjustment', 'transfer')),
  delta integer NOT NULL CHECK (delta <> 0),
  -- the level at this location right after the change, so the history reads without replaying it
  quantity_after integer NOT NULL CHECK (quantity_after >= 0),
  reason text,
  -- the two rows of one transfer (out of the source, into the destination) share this id
  transfer_id uuid,
  -- which key made the change: the who of "who wrote off these units"
  api_key_id uuid,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS inventory_adjustments_product ON inventory_adjustments (store_id, product_id, seq);
