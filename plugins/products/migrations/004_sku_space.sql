-- Product and variant SKUs share one space per store: a SKU names one live product or one live
-- variant, never both. Each table's own unique index cannot see the other table, so every live
-- SKU also claims a row here, written by triggers on both tables (whoever writes them), and two
-- requests racing for one SKU meet at this primary key: one wins, the other gets 409 duplicate_sku.
CREATE TABLE IF NOT EXISTS product_skus (
  store_id uuid NOT NULL,
  sku text NOT NULL,
  -- the product or variant holding it
  owner_id uuid NOT NULL,
  PRIMARY KEY (store_id, sku)
);

CREATE OR REPLACE FUNCTION product_skus_claim() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.sku IS NOT NULL AND OLD.archived_at IS NULL THEN
    DELETE FROM product_skus WHERE store_id = OLD.store_id AND sku = OLD.sku AND owner_id = OLD.id;
  END IF;
  IF NEW.sku IS NOT NULL AND NEW.archived_at IS NULL THEN
    INSERT INTO product_skus (store_id, sku, owner_id) VALUES (NEW.store_id, NEW.sku, NEW.id);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS products_sku_claim ON products;
CREATE TRIGGER products_sku_claim AFTER INSERT OR UPDATE OF sku, archived_at ON products
  FOR EACH ROW EXECUTE FUNCTION product_skus_claim();
DROP TRIGGER IF EXISTS product_variants_sku_claim ON product_variants;
CREATE TRIGGER product_variants_sku_claim AFTER INSERT OR UPDATE OF sku, archived_at ON product_variants
  FOR EACH ROW EXECUTE FUNCTION product_skus_claim();

-- The live SKUs so far (products' were unique among themselves; variants are new with 003).
INSERT INTO product_skus (store_id, sku, owner_id)
  SELECT store_id, sku, id FROM products WHERE archived_at IS NULL AND sku IS NOT NULL
  ON CONFLICT DO NOTHING;
INSERT INTO product_skus (store_id, sku, owner_id)
  SELECT store_id, sku, id FROM product_variants WHERE archived_at IS NULL AND sku IS NOT NULL
  ON CONFLICT DO NOTHING;
