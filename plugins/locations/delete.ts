import type { Ctx } from '../../core/sdk';
import { errors, fail } from '../../core/sdk';
import { defaultLocation } from '../inventory/public';
import { locationRow } from './store';

/**
 * Deletes a location that holds nothing. The row stays, marked deleted_at and inactive (the stock
 * history and orders' allocations name it); it leaves every lookup and its name is free again.
 *
 * Locks, in the ledger's order (product rows first, then the location; plugins/inventory/README.md):
 * 1. the archived products with units here (their units move to the default location below);
 * 2. the location FOR UPDATE, which waits for every movement holding it FOR SHARE (adjust,
 *    transfer, an order's cancellation putting units back) and makes any that waits for it find
 *    the location gone (404) or closed (units go to the default). So the count below is final:
 *    stock can never arrive in a deleted location, and a location that received some is refused.
 */
export async function deleteLocation(ctx: Ctx, id: string) {
  const storeId = ctx.store.id;
  const first = await locationRow(ctx, id);
  if (first.is_default) throw errors.conflict(`'${first.name}' is the default location and cannot be deleted.`, 'conflict_error', 'id');

  // Archived products' units: nothing can move or sell them, so they do not block the deletion;
  // they go to the default location, so no level is left in a deleted one.
  await ctx.db.query(
    `SELECT p.id FROM products p JOIN inventory_levels l ON l.product_id = p.id
     WHERE l.store_id = $1 AND l.location_id = $2 AND l.quantity > 0 AND p.archived_at IS NOT NULL
     ORDER BY p.id FOR UPDATE OF p`,
    [storeId, first.id],
  );
  const loc = await locationRow(ctx, id, 'FOR UPDATE');

  const [held] = await ctx.db.query<{ units: string; products: string }>(
    `SELECT coalesce(sum(l.quantity), 0)::bigint AS units, count(DISTINCT l.product_id)::bigint AS products FROM inventory_levels l
     JOIN products p ON p.id = l.product_id AND p.archived_at IS NULL
     WHERE l.store_id = $1 AND l.location_id = $2 AND l.quantity > 0`,
    [storeId, loc.id],
  );
  const units = Number(held.units);
  const products = Number(held.products);
  if (units > 0)
    throw fail(
      'location_not_empty',
      `Location '${loc.name}' still holds ${units} unit${units === 1 ? '' : 's'} of ${products} product${products === 1 ? '' : 's'}; ` +
        'move them with inventory transfer_stock (or adjust_stock to zero) before deleting it.',
      'id',
    );

  const now = ctx.clock.now();
  const home = await defaultLocation(ctx.db, storeId, now);
  // Every level here goes: zero rows of live products, and archived products' units, which are
  // added to the default location's level (products' totals do not change).
  await ctx.db.query(
    `WITH gone AS (
       DELETE FROM inventory_levels WHERE store_id = $1 AND location_id = $2 RETURNING product_id, variant_id, quantity
     )
     INSERT INTO inventory_levels (store_id, product_id, variant_id, location_id, quantity, updated_at)
     SELECT $1, product_id, variant_id, $3, quantity, $4 FROM gone WHERE quantity > 0
     ON CONFLICT (variant_id, location_id) DO UPDATE SET quantity = inventory_levels.quantity + EXCLUDED.quantity, updated_at = EXCLUDED.updated_at`,
    [storeId, loc.id, home, now],
  );
  await ctx.db.query('UPDATE locations SET deleted_at = $3, active = false, updated_at = $3 WHERE store_id = $1 AND id = $2', [storeId, loc.id, now]);
  return { object: 'location' as const, id: loc.id as string, deleted: true as const };
}
