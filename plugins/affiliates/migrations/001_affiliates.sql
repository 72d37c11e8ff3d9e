-- Affiliates (issue 48): partners with a code, the orders attributed to them (one affiliate per
-- order: a unique index), the commission each earned and the payouts that paid them.
CREATE TABLE IF NOT EXISTS affiliates (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  email text NOT NULL,
  code text NOT NULL,
  commission_type text NOT NULL CHECK (commission_type IN ('percentage', 'fixed')),
  commission_value numeric NOT NULL,
  -- [{product_id, type, value}]: a product's own rule wins for its lines.
  product_commissions jsonb NOT NULL DEFAULT '[]',
  refund_window_days integer NOT NULL,
  clicks bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS affiliates_store_seq ON affiliates (store_id, seq);
CREATE UNIQUE INDEX IF NOT EXISTS affiliates_code ON affiliates (store_id, lower(code));

CREATE TABLE IF NOT EXISTS affiliate_payouts (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  affiliate_id uuid NOT NULL REFERENCES affiliates(id),
  amount_minor bigint NOT NULL,
  currency text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS affiliate_payouts_affiliate ON affiliate_payouts (store_id, affiliate_id, seq);

CREATE TABLE IF NOT EXISTS affiliate_commissions (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  affiliate_id uuid NOT NULL REFERENCES affiliates(id),
  order_id uuid NOT NULL,
  currency text NOT NULL,
  -- What the order earned when attributed, and what is left after refunds and cancellation.
  earned_minor bigint NOT NULL,
  amount_minor bigint NOT NULL,
  -- The refund window's end: pending before it, payable after (until a payout takes it).
  payable_at timestamptz NOT NULL,
  payout_id uuid REFERENCES affiliate_payouts(id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- One affiliate per order: a second attribution, even a concurrent one, is a 409.
CREATE UNIQUE INDEX IF NOT EXISTS affiliate_commissions_order ON affiliate_commissions (store_id, order_id);
CREATE INDEX IF NOT EXISTS affiliate_commissions_affiliate ON affiliate_commissions (store_id, affiliate_id, seq);
