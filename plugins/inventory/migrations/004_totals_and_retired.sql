-- Stock totals leave the products plugin's tables (products.stock_quantity and
-- product_variants.stock_quantity, dropped by products/006): a total is the sum of the levels,
-- which products reads through inventory's public.ts. The levels already hold every unit (the
-- ledger kept the columns equal to their sums); a unit counted only in a column (a row written
-- before the ledger, or by hand) is moved here to the default location first, so no stock is lost.
--
-- Deleted (archived) products' stock is recorded here as retired, so the ledger no longer reads
-- products' archived_at: products tells it (inventory's retire) when it archives one.
CREATE TABLE IF NOT EXISTS inventory_retired (
  store_id uuid NOT NULL REFERENCES stores(id),
  product_id uuid PRIMARY KEY,
  retired_at timestamptz NOT NULL
);

-- On a new database the products plugin's tables come after this (products requires inventory):
-- there is nothing to move then.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns
             WHERE table_name = 'products' AND column_name = 'stock_quantity' AND table_schema = current_schema()) THEN
    EXECUTE $sql$
      INSERT INTO inventory_retired (store_id, product_id, retired_at)
      SELECT store_id, id, archived_at FROM products WHERE archived_at IS NOT NULL
      ON CONFLICT DO NOTHING
    $sql$;
    -- Each stock item (a product without variants, or a variant) whose column counts more than its
    -- levels: the difference goes to its store's default location, made if the store has none.
    EXECUTE $sql$
      CREATE TEMP TABLE stock_handover ON COMMIT DROP AS
      SELECT p.store_id, p.id AS product_id, p.id AS variant_id, p.stock_quantity - coalesce(l.total, 0) AS missing
      FROM products p LEFT JOIN (SELECT variant_id, sum(quantity)::int AS total FROM inventory_levels GROUP BY variant_id) l ON l.variant_id = p.id
      WHERE p.type <> 'variable' AND p.stock_quantity > coalesce(l.total, 0)
    $sql$;
    -- (variants came with products/003: a database from before has none)
    IF EXISTS (SELECT 1 FROM information_schema.columns
               WHERE table_name = 'product_variants' AND column_name = 'stock_quantity' AND table_schema = current_schema()) THEN
      EXECUTE $sql$
        INSERT INTO stock_handover
        SELECT v.store_id, v.product_id, v.id, v.stock_quantity - coalesce(l.total, 0)
        FROM product_variants v LEFT JOIN (SELECT variant_id, sum(quantity)::int AS total FROM inventory_levels GROUP BY variant_id) l ON l.variant_id = v.id
        WHERE v.stock_quantity > coalesce(l.total, 0)
      $sql$;
    END IF;
    INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at)
    SELECT gen_random_uuid(), h.store_id, 'Default', true, now(), now() FROM (SELECT DISTINCT store_id FROM stock_handover) h
    WHERE NOT EXISTS (SELECT 1 FROM locations WHERE store_id = h.store_id AND is_default)
    ON CONFLICT DO NOTHING;
    INSERT INTO inventory_levels (store_id, product_id, variant_id, location_id, quantity, updated_at)
    SELECT h.store_id, h.product_id, h.variant_id, loc.id, h.missing, now()
    FROM stock_handover h JOIN locations loc ON loc.store_id = h.store_id AND loc.is_default
    ON CONFLICT (variant_id, location_id) DO UPDATE SET quantity = inventory_levels.quantity + EXCLUDED.quantity, updated_at = EXCLUDED.updated_at;
  END IF;
END $$;
