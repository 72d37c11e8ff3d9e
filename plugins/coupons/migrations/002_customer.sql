-- A coupon of one customer (loyalty's rewards, issue 46): only that customer's orders may use it.
ALTER TABLE coupons ADD COLUMN IF NOT EXISTS customer_id uuid;
