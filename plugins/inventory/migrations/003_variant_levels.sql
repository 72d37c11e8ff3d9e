-- Variants (plugins/products, type "variable") each have their own stock, so a level is keyed by
-- the stock item it counts: variant_id, which for a product without variants is the product's own
-- id (as in Shopify, where every product has at least one inventory item). product_id stays on
-- every row, so a product's stock_quantity is still the sum of its rows.
ALTER TABLE inventory_levels ADD COLUMN IF NOT EXISTS variant_id uuid;
UPDATE inventory_levels SET variant_id = product_id WHERE variant_id IS NULL;
ALTER TABLE inventory_levels ALTER COLUMN variant_id SET NOT NULL;

-- Writers that know nothing of variants (a product's own stock) may leave variant_id out: it is
-- the product's id then. A BEFORE trigger runs before ON CONFLICT's check, so upserts see it.
CREATE OR REPLACE FUNCTION inventory_levels_default_variant() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.variant_id := coalesce(NEW.variant_id, NEW.product_id);
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS inventory_levels_default_variant ON inventory_levels;
CREATE TRIGGER inventory_levels_default_variant BEFORE INSERT ON inventory_levels
  FOR EACH ROW EXECUTE FUNCTION inventory_levels_default_variant();

-- One row per stock item and location. The old key (product_id, location_id) would allow only one
-- variant of a product per location.
ALTER TABLE inventory_levels DROP CONSTRAINT IF EXISTS inventory_levels_pkey;
ALTER TABLE inventory_levels ADD PRIMARY KEY (variant_id, location_id);
-- the product's sum (syncTotal) and the per-product lookups the old key served
CREATE INDEX IF NOT EXISTS inventory_levels_product ON inventory_levels (product_id, location_id);

-- The history names the variant a movement was for (null: the product itself).
ALTER TABLE inventory_adjustments ADD COLUMN IF NOT EXISTS variant_id uuid;
