import type { Static } from '@sinclair/typebox';
import type { Ctx, Db } from '../../core/sdk';
import { defaultLocation, defaultLocationCtes, liveLocation } from '../locations/public';
import type { LocationStock, LocationStockQuery, LocationVacated } from './schemas';
import { lockStock } from './totals';

/**
 * What the locations plugin asks of the stock ledger about one location (its update and delete
 * checks), through ctx.call to the internal actions location_stock and vacate_location (locations
 * `calls: ['inventory']`: inventory requires locations, for its places). The SQL is here because
 * inventory_levels is inventory's table. A deleted product's stock is retired (./totals.ts,
 * inventory_retired): it does not count as held.
 */

/** Units of live (not deleted) products held at a location, and how many products they are. */
export async function liveUnitsAt(db: Db, storeId: string, locationId: string) {
  const [held] = await db.query<{ units: string; products: string }>(
    `SELECT coalesce(sum(l.quantity), 0)::bigint AS units, count(DISTINCT l.product_id)::bigint AS products FROM inventory_levels l
     WHERE l.store_id = $1 AND l.location_id = $2 AND l.quantity > 0
       AND NOT EXISTS (SELECT 1 FROM inventory_retired r WHERE r.product_id = l.product_id)`,
    [storeId, locationId],
  );
  return { units: Number(held.units), products: Number(held.products) };
}

/**
 * Takes the stock locks of the deleted products with units at a location, in product id order
 * (the ledger locks stock before locations, plugins/inventory/README.md): their units are about
 * to move to the default location.
 */
async function lockArchivedHeldAt(tx: Db, storeId: string, locationId: string) {
  const held = await tx.query<{ product_id: string }>(
    `SELECT DISTINCT l.product_id FROM inventory_levels l JOIN inventory_retired r ON r.product_id = l.product_id
     WHERE l.store_id = $1 AND l.location_id = $2 AND l.quantity > 0 ORDER BY l.product_id`,
    [storeId, locationId],
  );
  for (const { product_id } of held) await lockStock(tx, storeId, product_id);
}

/**
 * Every level at a location goes: zero rows of live products, and archived products' units, which
 * are added to `home`'s level (products' totals do not change).
 */
async function emptyInto(tx: Db, storeId: string, locationId: string, home: string, now: Date) {
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
 * default location's level (creating that location if the store has none yet; the level's
 * variant_id is the product's own id, filled in by inventory's trigger). A new product has no
 * movements to wait for, so no stock lock is taken. The statement names its inserted product `p`;
 * `at` names its parameters.
 */
export const firstStockCtes = (at: { storeId: string; quantity: string; now: string }) =>
  `${defaultLocationCtes({ storeId: at.storeId, now: at.now, when: `${at.quantity}::int > 0` })}, level AS (
       INSERT INTO inventory_levels (store_id, product_id, location_id, quantity, updated_at)
       SELECT p.store_id, p.id, (SELECT id FROM home LIMIT 1), ${at.quantity}::int, p.created_at FROM p WHERE ${at.quantity}::int > 0
     )`;

/**
 * location_stock: the live units at a location, for update_location's deactivation check. The
 * caller holds the location's row (FOR NO KEY UPDATE) while it decides, so no unit can arrive
 * meanwhile: movements into a location hold it FOR SHARE.
 */
export async function locationStock(ctx: Ctx, { location_id }: Static<typeof LocationStockQuery>): Promise<Static<typeof LocationStock>> {
  const loc = await liveLocation(ctx.db, ctx.store.id, location_id, { param: 'location_id' });
  return { object: 'location_stock', location_id: loc.id, ...(await liveUnitsAt(ctx.db, ctx.store.id, loc.id)) };
}

/**
 * vacate_location, delete_location's stock half. Locks in the ledger's order (product stock first,
 * then the location; README.md): the stock locks of the deleted products with units there (their
 * units are about to move), then the location FOR UPDATE, which waits for every movement holding
 * it FOR SHARE and makes any that waits for it find the location gone (404) once deleted. So the
 * count is final: when it is zero, the levels go (deleted products' units to the default
 * location) and the caller deletes the row in the same transaction; otherwise nothing changes.
 */
export async function vacateLocation(ctx: Ctx, { location_id }: Static<typeof LocationStockQuery>): Promise<Static<typeof LocationVacated>> {
  const storeId = ctx.store.id;
  await lockArchivedHeldAt(ctx.db, storeId, location_id);
  const loc = await liveLocation(ctx.db, storeId, location_id, { param: 'location_id', lock: 'FOR UPDATE' });
  const held = await liveUnitsAt(ctx.db, storeId, loc.id);
  const vacated = held.units === 0;
  if (vacated) {
    const now = ctx.clock.now();
    await emptyInto(ctx.db, storeId, loc.id, await defaultLocation(ctx.db, storeId, now), now);
  }
  return { object: 'location_stock', location_id: loc.id, ...held, vacated };
}
