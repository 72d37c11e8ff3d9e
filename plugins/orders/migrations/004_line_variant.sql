-- An order line for a variable product names the variant it sold (plugins/products variants); the
-- stock was taken from that variant's levels and goes back there on cancellation.
ALTER TABLE order_line_items ADD COLUMN IF NOT EXISTS variant_id uuid;
