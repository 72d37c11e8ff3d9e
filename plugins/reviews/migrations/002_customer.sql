-- Who wrote it, when the shop knows (issue 46), and whether that customer had bought the product
-- when the review was written (kept as it was then: a later refund does not unverify it).
ALTER TABLE reviews ADD COLUMN IF NOT EXISTS customer_id uuid;
ALTER TABLE reviews ADD COLUMN IF NOT EXISTS verified_purchase boolean NOT NULL DEFAULT false;
