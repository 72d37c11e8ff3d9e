import type { Db } from '../../core/sdk';

/**
 * What the locations plugin asks of the stock ledger about one location (its update and delete
 * checks). The SQL is here because inventory_levels is inventory's table; like the rest of the
 * ledger it reads products' archived_at (a known crossing, test/contract/imports.test.ts).
 */

/** Units of live (not archived) products held at a location, and how many products they are. */
export async function liveUnitsAt(db: Db, storeId: string, locationId: string) {
  const [held] = await db.query<{ units: string; products: string }>(
    `SELECT coalesce(sum(l.quantity), 0)::bigint AS units, count(DISTINCT l.product_id)::bigint AS products FROM inventory_levels l
     JOIN products p ON p.id = l.product_id AND p.archived_at IS NULL
     WHERE l.store_id = $1 AND l.location_id = $2 AND l.quantity > 0`,
    [storeId, locationId],
  );
  return { units: Number(held.units), products: Number(held.products) };
}

/**
 * Locks the archived products with units at a location (the ledger locks product rows before
 * locations, plugins/inventory/README.md): their units are about to move to the default location.
 */
export async function lockArchivedHeldAt(tx: Db, storeId: string, locationId: string) {
  await tx.query(
    `SELECT p.id FROM products p JOIN inventory_levels l ON l.product_id = p.id
     WHERE l.store_id = $1 AND l.location_id = $2 AND l.quantity > 0 AND p.archived_at IS NOT NULL
     ORDER BY p.id FOR UPDATE OF p`,
    [storeId, locationId],
  );
}

/**
 * Every level at a location goes: zero rows of live products, and archived products' units, which
 * are added to `home`'s level (products' totals do not change).
 */
export async function emptyInto(tx: Db, storeId: string, locationId: string, home: string, now: Date) {
  await tx.query(
    `WITH gone AS (
       DELETE FROM inventory_levels WHERE store_id = $1 AND location_id = $2 RETURNING product_id, variant_id, quantity
     )
     INSERT INTO inventory_levels (store_id, product_id, variant_id, location_id, quantity, updated_at)
     SELECT $1, product_id, variant_id, $3, quantity, $4 FROM gone WHERE quantity > 0
     ON CONFLICT (variant_id, location_id) DO UPDATE SET quantity = inventory_levels.quantity + EXCLUDED.quantity, updated_at = EXCLUDED.updated_at`,
    [storeId, locationId, home, now],
  );
}

/**
 * The common table expressions that give a product its first stock in the very statement that
 * inserts it (products' create is one statement, applied atomically with no transaction): the
 * default location's level (creating that location if the store has none yet), so stock_quantity
 * stays the sum of the levels (the level's variant_id is the product's own id, filled in by
 * inventory's trigger). The statement names its inserted product `p`; `at` names its parameters.
 */
export const firstStockCtes = (at: { storeId: string; quantity: string; now: string }) =>
  `made AS (
       INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at)
       SELECT gen_random_uuid(), ${at.storeId}, 'Default', true, ${at.now}, ${at.now}
       WHERE ${at.quantity}::int > 0 AND NOT EXISTS (SELECT 1 FROM locations WHERE store_id = ${at.storeId} AND is_default)
       ON CONFLICT DO NOTHING RETURNING id
     ), home AS (
       SELECT id FROM made UNION ALL SELECT id FROM locations WHERE store_id = ${at.storeId} AND is_default
     ), level AS (
       INSERT INTO inventory_levels (store_id, product_id, location_id, quantity, updated_at)
       SELECT p.store_id, p.id, (SELECT id FROM home LIMIT 1), p.stock_quantity, p.created_at FROM p WHERE p.stock_quantity > 0
     )`;
