-- Discount codes (issue 46). A code is unique per store ignoring case, as shoppers type it.
CREATE TABLE IF NOT EXISTS coupons (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  code text NOT NULL,
  -- exactly one of percent_off and amount_off_minor
  percent_off numeric(7, 4) CHECK (percent_off > 0 AND percent_off <= 100),
  amount_off_minor bigint CHECK (amount_off_minor > 0),
  currency text,
  minimum_subtotal_minor bigint,
  product_ids uuid[] NOT NULL DEFAULT '{}',
  collection_ids uuid[] NOT NULL DEFAULT '{}',
  starts_at timestamptz,
  ends_at timestamptz,
  usage_limit integer,
  usage_limit_per_customer integer,
  -- counted in the redeeming order's transaction under this row's lock, so it never passes usage_limit
  times_redeemed integer NOT NULL DEFAULT 0 CONSTRAINT coupons_within_limit CHECK (usage_limit IS NULL OR times_redeemed <= usage_limit),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((percent_off IS NULL) <> (amount_off_minor IS NULL))
);
CREATE UNIQUE INDEX IF NOT EXISTS coupons_store_code ON coupons (store_id, lower(code));
CREATE INDEX IF NOT EXISTS coupons_store_seq ON coupons (store_id, seq);

-- One row per order a coupon discounted: the per-customer limit counts these.
CREATE TABLE IF NOT EXISTS coupon_redemptions (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  coupon_id uuid NOT NULL REFERENCES coupons(id),
  order_id uuid NOT NULL,
  customer_id text,
  amount_minor bigint NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS coupon_redemptions_customer ON coupon_redemptions (store_id, coupon_id, lower(customer_id));
