-- Issue 48 (after 007, the report indexes): the part of an order paid from the customer's store credit (wallet's ledger holds the movement).
ALTER TABLE orders ADD COLUMN IF NOT EXISTS wallet_amount_minor bigint NOT NULL DEFAULT 0;
