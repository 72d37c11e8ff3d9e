-- Store credit (issue 48): one account per customer and store, and a double-entry ledger. Every
-- movement is a transaction of two entries that sum to zero: the customer's account against the
-- store's side (`funding` for credit given, `orders` for credit spent or given back). Nothing
-- updates or deletes a ledger row; the account's balance is the sum of its entries, kept beside
-- them so an order's debit locks one row (FOR UPDATE) and never overdraws.
CREATE TABLE IF NOT EXISTS wallet_accounts (
  store_id uuid NOT NULL REFERENCES stores(id),
  customer_id uuid NOT NULL,
  currency text NOT NULL,
  balance_minor bigint NOT NULL DEFAULT 0 CHECK (balance_minor >= 0),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (store_id, customer_id)
);

CREATE TABLE IF NOT EXISTS wallet_transactions (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  customer_id uuid NOT NULL,
  type text NOT NULL CHECK (type IN ('credit', 'order_payment', 'refund_credit')),
  amount_minor bigint NOT NULL CHECK (amount_minor > 0),
  currency text NOT NULL,
  balance_after_minor bigint NOT NULL,
  reason text,
  order_id uuid,
  refund_id uuid,
  idempotency_key text,
  created_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS wallet_transactions_store_seq ON wallet_transactions (store_id, seq);
CREATE INDEX IF NOT EXISTS wallet_transactions_customer ON wallet_transactions (store_id, customer_id, seq);
CREATE INDEX IF NOT EXISTS wallet_transactions_order ON wallet_transactions (store_id, order_id) WHERE order_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS wallet_transactions_idem ON wallet_transactions (store_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- One payment per order: a retried order's transaction cannot debit twice.
CREATE UNIQUE INDEX IF NOT EXISTS wallet_transactions_order_payment ON wallet_transactions (store_id, order_id) WHERE type = 'order_payment';

CREATE TABLE IF NOT EXISTS wallet_entries (
  id bigserial PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  transaction_id uuid NOT NULL REFERENCES wallet_transactions(id),
  account text NOT NULL,
  amount_minor bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS wallet_entries_tx ON wallet_entries (transaction_id);
