-- A product's and a variant's stock_quantity are the inventory ledger's totals, read through its
-- public.ts in the same statement (plugins/products/store.ts, PRODUCTS); inventory/004 moved any
-- unit these columns counted beyond the levels into the levels before this runs.
ALTER TABLE products DROP COLUMN IF EXISTS stock_quantity;
ALTER TABLE product_variants DROP COLUMN IF EXISTS stock_quantity;
