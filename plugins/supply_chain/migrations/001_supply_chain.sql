CREATE TABLE IF NOT EXISTS suppliers (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  email text,
  phone text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS suppliers_store_seq ON suppliers (store_id, seq);
CREATE TABLE IF NOT EXISTS purchase_orders (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  supplier_id uuid NOT NULL REFERENCES suppliers(id),
  -- null: the store's default location, chosen when goods arrive
  location_id uuid,
  status text NOT NULL,
  currency text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS purchase_orders_store_seq ON purchase_orders (store_id, seq);
CREATE TABLE IF NOT EXISTS purchase_order_lines (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  po_id uuid NOT NULL REFERENCES purchase_orders(id),
  position integer NOT NULL,
  product_id uuid NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  received integer NOT NULL DEFAULT 0 CHECK (received >= 0 AND received <= quantity),
  unit_cost_minor bigint NOT NULL CHECK (unit_cost_minor >= 0)
);
CREATE INDEX IF NOT EXISTS purchase_order_lines_po ON purchase_order_lines (po_id, position);
CREATE TABLE IF NOT EXISTS po_shipments (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  po_id uuid NOT NULL REFERENCES purchase_orders(id),
  carrier text NOT NULL,
  tracking_number text NOT NULL,
  status text NOT NULL,
  -- the carrier's time of the last status applied: an older report never overwrites a newer one
  occurred_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS po_shipments_po ON po_shipments (po_id, seq);
CREATE INDEX IF NOT EXISTS po_shipments_tracking ON po_shipments (carrier, tracking_number);
