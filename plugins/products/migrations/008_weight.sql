-- Issue 50: shipping by weight. A product's (or a variant's) weight in grams; null: not given
-- (a variant without one weighs what its product does).
ALTER TABLE products ADD COLUMN IF NOT EXISTS weight_grams integer CHECK (weight_grams >= 0);
ALTER TABLE product_variants ADD COLUMN IF NOT EXISTS weight_grams integer CHECK (weight_grams >= 0);
