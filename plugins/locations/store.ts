import type { Static } from '@sinclair/typebox';
import { iso } from '../../core/sdk';
import type { Ctx } from '../../core/sdk';
import { errors } from '../../core/sdk';
import { isUniqueViolation } from '../../core/sdk';
import { page } from '../../core/sdk';
import { defaultLocation } from '../../core/sdk';
import type { AddressInput, Location, LocationCreate, LocationQuery, LocationUpdate } from './schemas';

type Row = Record<string, any>;


export function toLocation(r: Row): Static<typeof Location> {
  return {
    object: 'location',
    id: r.id,
    name: r.name,
    is_default: Boolean(r.is_default),
    active: Boolean(r.active),
    address: r.address ?? null,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
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

// jsonb goes in as text and is cast, the way both drivers (PGlite, Bun.SQL) accept it.
const addressParam = (a: Static<typeof AddressInput> | null | undefined) => (a ? JSON.stringify(normalAddress(a)) : null);

/** Names compare trimmed and case-insensitively (the unique index is on lower(name)). */
function cleanName(name: string) {
  const trimmed = name.trim();
  if (!trimmed) throw errors.validation('Invalid name: must not be blank.', 'name');
  return trimmed;
}

const duplicateName = (name: string) =>
  errors.conflict(`A location named '${name}' already exists in this store.`, 'conflict_error', 'name');

export async function listLocations(ctx: Ctx, input: Static<typeof LocationQuery>) {
  // A store always has its default location: make it on first look, so a new store lists one.
  await defaultLocation(ctx.db, ctx.store.id, ctx.clock.now());
  const where: string[] = [];
  const params: unknown[] = [];
  if (input.active !== undefined) {
    params.push(input.active);
    where.push(`active = $${params.length + 1}`);
  }
  const { rows, has_more } = await page<Row>(ctx.db, { table: 'locations', storeId: ctx.store.id, where, params, input });
  return { object: 'list' as const, data: rows.map(toLocation), has_more, url: `${ctx.storePath}/locations` };
}

export async function createLocation(ctx: Ctx, input: Static<typeof LocationCreate>) {
  const name = cleanName(input.name);
  const now = ctx.clock.now();
  // The default must exist first: core/stock.ts creates it as 'Default' and would be blocked by
  // the name index if a user location had taken that name before it.
  await defaultLocation(ctx.db, ctx.store.id, now);
  try {
    const [row] = await ctx.db.query(
      `INSERT INTO locations (id, store_id, name, is_default, address, active, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, false, $3::text::jsonb, true, $4, $4) RETURNING *`,
      [ctx.store.id, name, addressParam(input.address), now],
    );
    return toLocation(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateName(name);
    throw err;
  }
}

/**
 * Renames, readdresses, (de)activates. The row is held FOR NO KEY UPDATE while deactivation checks
 * for stock; adjust_stock and transfer_stock hold a receiving location FOR SHARE (see
 * plugins/inventory/store.ts), so no stock can arrive between the check and the commit. NO KEY
 * leaves the foreign-key locks of inventory_levels inserts (orders) free to proceed.
 */
export async function updateLocation(ctx: Ctx, input: Static<typeof LocationUpdate>) {
  const storeId = ctx.store.id;
  const [cur] = await ctx.db.query('SELECT * FROM locations WHERE store_id = $1 AND id = $2 FOR NO KEY UPDATE', [storeId, input.id]);
  if (!cur) throw errors.notFound(`location: '${input.id}'`, 'id');
  const name = input.name === undefined ? cur.name : cleanName(input.name);
  const active = input.active ?? cur.active;
  if (cur.active && !active) {
    if (cur.is_default)
      throw errors.conflict('The default location cannot be deactivated.', 'conflict_error', 'active');
    // Archived products' units do not count: they can no longer be moved, and nothing sells them.
    const [{ held }] = await ctx.db.query<{ held: number }>(
      `SELECT coalesce(sum(l.quantity), 0)::bigint AS held FROM inventory_levels l
       JOIN products p ON p.id = l.product_id AND p.archived_at IS NULL
       WHERE l.store_id = $1 AND l.location_id = $2`,
      [storeId, cur.id],
    );
    if (Number(held) > 0)
      throw errors.conflict(
        `Location '${cur.name}' still holds ${held} units; transfer or adjust them away before deactivating it.`,
        'conflict_error',
        'active',
      );
  }
  const address = input.address === undefined ? cur.address : input.address === null ? null : normalAddress(input.address);
  try {
    const [row] = await ctx.db.query(
      `UPDATE locations SET name = $3, address = $4::text::jsonb, active = $5, updated_at = $6
       WHERE store_id = $1 AND id = $2 RETURNING *`,
      [storeId, cur.id, name, address == null ? null : JSON.stringify(address), active, ctx.clock.now()],
    );
    return toLocation(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateName(name);
    throw err;
  }
}
