-- Tax rates (issue 46). Rates never stack: one rate per place and tax class, the most specific
-- matching one wins (longest postal prefix, then region, then country).
CREATE TABLE IF NOT EXISTS tax_rates (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  country text NOT NULL,
  region text,
  postal_code_prefix text,
  percentage numeric(7, 4) NOT NULL CHECK (percentage >= 0 AND percentage <= 100),
  tax_class text NOT NULL DEFAULT 'standard',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS tax_rates_store_seq ON tax_rates (store_id, seq);
CREATE UNIQUE INDEX IF NOT EXISTS tax_rates_store_place
  ON tax_rates (store_id, tax_class, country, coalesce(upper(region), ''), coalesce(postal_code_prefix, ''));

-- The tax ledger of orders, for get_report: what each order charged per rate (written when it is
-- placed, its status kept in step) and what each refund gave back of it, on the refund's date.
CREATE TABLE IF NOT EXISTS tax_entries (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  order_id uuid NOT NULL,
  refund_id uuid,
  rate_id uuid NOT NULL,
  name text NOT NULL,
  currency text NOT NULL,
  order_status text NOT NULL,
  taxable_minor bigint NOT NULL,
  tax_minor bigint NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS tax_entries_store_at ON tax_entries (store_id, at);
CREATE INDEX IF NOT EXISTS tax_entries_order ON tax_entries (store_id, order_id);
