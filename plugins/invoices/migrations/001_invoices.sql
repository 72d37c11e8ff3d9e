-- Invoices (issue 46). Amounts in minor units of `currency`; lines, discounts and tax lines are
-- copied when the invoice is made, so it never changes with the order.
CREATE TABLE IF NOT EXISTS invoices (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  number text NOT NULL,
  sequence integer NOT NULL,
  order_id uuid,
  customer_id text,
  bill_to jsonb NOT NULL,
  currency text NOT NULL,
  lines jsonb NOT NULL,
  subtotal_minor bigint NOT NULL,
  discounts jsonb NOT NULL DEFAULT '[]',
  tax_lines jsonb NOT NULL DEFAULT '[]',
  prices_include_tax boolean NOT NULL DEFAULT false,
  total_minor bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('open', 'paid')),
  due_at timestamptz,
  paid_at timestamptz,
  sent_at timestamptz,
  memo text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS invoices_store_seq ON invoices (store_id, seq);
-- One invoice per order; and a number is never given twice in a store.
CREATE UNIQUE INDEX IF NOT EXISTS invoices_store_order ON invoices (store_id, order_id) WHERE order_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS invoices_store_sequence ON invoices (store_id, sequence);

-- The last number given per store: its row is locked by the creating transaction's upsert, so
-- numbers are gapless (a rolled-back creation gives its number back) and never repeat.
CREATE TABLE IF NOT EXISTS invoice_counters (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  last integer NOT NULL
);
