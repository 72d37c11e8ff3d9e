import type { Ctx } from '../../core/sdk';
import { errors, fail } from '../../core/sdk';
import { locationRow } from './store';

/**
 * Deletes a location that holds nothing. The row stays, marked deleted_at and inactive (the stock
 * history and orders' allocations name it); it leaves every lookup and its name is free again.
 *
 * The stock half is the ledger's (inventory's vacate_location, through ctx.call in this
 * transaction): in the ledger's lock order (product stock first, then the location), it holds the
 * location FOR UPDATE, which waits for every movement holding it FOR SHARE and makes any that
 * waits for it find the location gone (404) or closed. So its count is final: stock can never
 * arrive in a deleted location, and a location that received some is refused. When it held no
 * live stock, its levels are already gone (deleted products' units moved to the default).
 */
export async function deleteLocation(ctx: Ctx, id: string) {
  const storeId = ctx.store.id;
  const loc = await locationRow(ctx, id);
  if (loc.is_default) throw errors.conflict(`'${loc.name}' is the default location and cannot be deleted.`, 'conflict_error', 'id');

  const { units, products, vacated } = await ctx.call('inventory.vacate_location', { location_id: loc.id }, { notFoundParam: 'id' });
  if (!vacated)
    throw fail(
      'location_not_empty',
      `Location '${loc.name}' still holds ${units} unit${units === 1 ? '' : 's'} of ${products} product${products === 1 ? '' : 's'}; ` +
        'move them with inventory transfer_stock (or adjust_stock to zero) before deleting it.',
      'id',
    );

  const now = ctx.clock.now();
  await ctx.db.query('UPDATE locations SET deleted_at = $3, active = false, updated_at = $3 WHERE store_id = $1 AND id = $2', [storeId, loc.id, now]);
  return { object: 'location' as const, id: loc.id as string, deleted: true as const };
}
