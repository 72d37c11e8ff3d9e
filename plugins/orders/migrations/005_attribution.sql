-- Where an order came from (issue 29): {"qr_scan_id": "<uuid>"} when a QR scan led to it. The
-- qr_codes plugin reads it through plugins/orders/public.ts to count conversions.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS attribution jsonb;
CREATE INDEX IF NOT EXISTS orders_store_qr_scan ON orders (store_id, created_at) WHERE attribution IS NOT NULL;
