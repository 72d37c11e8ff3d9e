import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';
import { errors } from '../../core/sdk';
import { jsonParam, listPage, rowOr404, setClause, stamps, unique, type Row } from '../../core/sdk';
import { defaultLocation } from './public';
import type { AddressInput, Location, LocationCreate, LocationQuery, LocationUpdate } from './schemas';

export function toLocation(r: Row): Static<typeof Location> {
  return {
    object: 'location',
    id: r.id,
    name: r.name,
    is_default: Boolean(r.is_default),
    active: Boolean(r.active),
    address: r.address ?? null,
    ...stamps(r),
  };
}

/** Every key present (null when not given), so clients read one shape whatever was sent. */
const normalAddress = (a: Static<typeof AddressInput>) => ({
  line1: a.line1 ?? null,
  line2: a.line2 ?? null,
  city: a.city ?? null,
  region: a.region ?? null,
  postal_code: a.postal_code ?? null,
  country: a.country,
});

/** Names compare trimmed and case-insensitively (the unique index is on lower(name)). */
function cleanName(name: string) {
  const trimmed = name.trim();
  if (!trimmed) throw errors.validation('Invalid name: must not be blank.', 'name');
  return trimmed;
}

/** Names are unique per store (index locations_store_name); is_default never changes here. */
const duplicateName = (name: string) => ({
  locations_store_name: () => errors.conflict(`A location named '${name}' already exists in this store.`, 'conflict_error', 'name'),
});

export async function listLocations(ctx: Ctx, input: Static<typeof LocationQuery>) {
  // A store always has its default location: make it on first look, so a new store lists one.
  await defaultLocation(ctx.db, ctx.store.id, ctx.clock.now());
  return listPage(
    ctx,
    { table: 'locations', path: '/locations', input, where: ['deleted_at IS NULL'], filters: { 'active = $': input.active } },
    (rows) => rows.map(toLocation),
  );
}

/** Deleted locations (delete_location) are gone from every lookup, as deleted resources are (SPEC 7). */
export const locationRow = (ctx: Ctx, id: string, lock?: 'FOR NO KEY UPDATE' | 'FOR UPDATE') =>
  rowOr404(ctx.db, { table: 'locations', storeId: ctx.store.id, id, noun: 'location', where: 'deleted_at IS NULL', lock });

export async function createLocation(ctx: Ctx, input: Static<typeof LocationCreate>) {
  const name = cleanName(input.name);
  const now = ctx.clock.now();
  // The default must exist first: the stock ledger creates it as 'Default' on first need and would be
  // blocked by the name index if a user location had taken that name before it.
  await defaultLocation(ctx.db, ctx.store.id, now);
  const [row] = await unique(
    ctx.db.query(
      `INSERT INTO locations (id, store_id, name, is_default, address, active, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, false, $3::text::jsonb, true, $4, $4) RETURNING *`,
      [ctx.store.id, name, jsonParam(input.address && normalAddress(input.address)), now],
    ),
    duplicateName(name),
  );
  return toLocation(row);
}

/**
 * Renames, readdresses, (de)activates. The row is held FOR NO KEY UPDATE while deactivation checks
 * for stock; adjust_stock and transfer_stock hold a receiving location FOR SHARE (see
 * plugins/inventory/store.ts), so no stock can arrive between the check and the commit. NO KEY
 * leaves the foreign-key locks of inventory_levels inserts (orders) free to proceed.
 */
export async function updateLocation(ctx: Ctx, input: Static<typeof LocationUpdate>) {
  const storeId = ctx.store.id;
  const cur = await locationRow(ctx, input.id, 'FOR NO KEY UPDATE');
  const name = input.name === undefined ? cur.name : cleanName(input.name);
  const active = input.active ?? cur.active;
  if (cur.active && !active) {
    if (cur.is_default) throw errors.conflict('The default location cannot be deactivated.', 'conflict_error', 'active');
    // Archived products' units do not count: they can no longer be moved, and nothing sells them.
    const held = (await ctx.call('inventory.location_stock', { location_id: cur.id }, { notFoundParam: 'id' })).units;
    if (held > 0)
      throw errors.conflict(
        `Location '${cur.name}' still holds ${held} units; transfer or adjust them away before deactivating it.`,
        'conflict_error',
        'active',
      );
  }
  const set = setClause(
    { name, address: input.address && normalAddress(input.address), active, updated_at: ctx.clock.now() },
    { json: ['address'], after: 2 },
  );
  const [row] = await unique(
    ctx.db.query(`UPDATE locations SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *`, [storeId, cur.id, ...set.params]),
    duplicateName(name),
  );
  return toLocation(row);
}
