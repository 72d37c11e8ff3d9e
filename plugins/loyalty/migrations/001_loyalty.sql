-- Loyalty points (issue 46): an append-only ledger per customer, the store's earning rule and its rewards.
CREATE TABLE IF NOT EXISTS loyalty_programs (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  points_per_unit integer NOT NULL DEFAULT 1 CHECK (points_per_unit >= 0),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS loyalty_rewards (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  points_cost integer NOT NULL CHECK (points_cost > 0),
  percent_off numeric(7, 4),
  amount_off_minor bigint,
  currency text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((percent_off IS NULL) <> (amount_off_minor IS NULL))
);
CREATE INDEX IF NOT EXISTS loyalty_rewards_store_seq ON loyalty_rewards (store_id, seq);

-- Never updated nor deleted: a balance is the sum of a customer's entries.
CREATE TABLE IF NOT EXISTS loyalty_entries (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  customer_id uuid NOT NULL,
  points bigint NOT NULL CHECK (points <> 0),
  -- earn (an order paid), refund (taken back), redeem (a reward), manual (add_points)
  kind text NOT NULL CHECK (kind IN ('earn', 'refund', 'redeem', 'manual')),
  reason text NOT NULL,
  order_id uuid,
  refund_id uuid,
  reward_id uuid,
  coupon_id uuid,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS loyalty_entries_customer ON loyalty_entries (store_id, customer_id, seq);
CREATE INDEX IF NOT EXISTS loyalty_entries_store_seq ON loyalty_entries (store_id, seq);
-- An order earns once, a refund takes back once, whatever runs a reaction again.
CREATE UNIQUE INDEX IF NOT EXISTS loyalty_entries_earned ON loyalty_entries (store_id, order_id) WHERE kind = 'earn';
CREATE UNIQUE INDEX IF NOT EXISTS loyalty_entries_refund ON loyalty_entries (store_id, refund_id) WHERE kind = 'refund';
