import type { Ctx } from '../../core/sdk';
import { errors, fail } from '../../core/sdk';
import { defaultLocation, emptyInto, liveUnitsAt, lockArchivedHeldAt } from '../inventory/public';
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
  await lockArchivedHeldAt(ctx.db, storeId, first.id);
  const loc = await locationRow(ctx, id, 'FOR UPDATE');

  const { units, products } = await liveUnitsAt(ctx.db, storeId, loc.id);
  if (units > 0)
    throw fail(
      'location_not_empty',
      `Location '${loc.name}' still holds ${units} unit${units === 1 ? '' : 's'} of ${products} product${products === 1 ? '' : 's'}; ` +
        'move them with inventory transfer_stock (or adjust_stock to zero) before deleting it.',
      'id',
    );

  const now = ctx.clock.now();
  const home = await defaultLocation(ctx.db, storeId, now);
  await emptyInto(ctx.db, storeId, loc.id, home, now);
  await ctx.db.query('UPDATE locations SET deleted_at = $3, active = false, updated_at = $3 WHERE store_id = $1 AND id = $2', [storeId, loc.id, now]);
  return { object: 'location' as const, id: loc.id as string, deleted: true as const };
}
