-- Issue 46: which tax rates apply to a product (tax rates have a tax_class); null is `standard`.
ALTER TABLE products ADD COLUMN IF NOT EXISTS tax_class text;
