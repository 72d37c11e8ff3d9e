-- Issue 46: an order keeps how its total was made, as it was at creation: the subtotal, the
-- discount codes applied and what each took, the tax lines per rate, and whether prices included
-- tax. Older orders had none of these: their subtotal is their total.
ALTER TABLE orders ADD COLUMN IF NOT EXISTS subtotal_minor bigint;
UPDATE orders SET subtotal_minor = total_minor WHERE subtotal_minor IS NULL;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS discount_total_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS tax_total_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN IF NOT EXISTS prices_include_tax boolean NOT NULL DEFAULT false;
-- [{code, coupon_id, amount_minor}] in the order applied; [{rate_id, name, percentage, amount_minor, taxable_minor}]
ALTER TABLE orders ADD COLUMN IF NOT EXISTS discounts jsonb NOT NULL DEFAULT '[]';
ALTER TABLE orders ADD COLUMN IF NOT EXISTS tax_lines jsonb NOT NULL DEFAULT '[]';

-- Per line: what the discounts took, its tax, and what the customer paid for it (refunds by line
-- give back a share of this, not of the list price).
ALTER TABLE order_line_items ADD COLUMN IF NOT EXISTS discount_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE order_line_items ADD COLUMN IF NOT EXISTS tax_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE order_line_items ADD COLUMN IF NOT EXISTS tax_rate_id uuid;
ALTER TABLE order_line_items ADD COLUMN IF NOT EXISTS amount_paid_minor bigint;
UPDATE order_line_items SET amount_paid_minor = total_minor WHERE amount_paid_minor IS NULL;
