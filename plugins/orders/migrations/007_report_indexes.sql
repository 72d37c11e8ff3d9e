-- Reports (analytics through ./public.ts) read counted orders by creation date and refunds by their
-- own date: one index range each, never the store's whole history.
CREATE INDEX IF NOT EXISTS orders_store_counted_created ON orders (store_id, created_at)
  WHERE status IN ('paid', 'fulfilled', 'completed');
CREATE INDEX IF NOT EXISTS order_refunds_store_created ON order_refunds (store_id, created_at);
