import { errors, type Db } from '../../core/sdk';
import { activeLocationsAmong, defaultLocation, joinLocation, locationOrder } from '../locations/public';
import { lockStock, totalOf } from './totals';

// Where stock goes when no location is named: the locations plugin's, offered on with the ledger.
export { defaultLocation };

/**
 * The stock ledger, owned by inventory and shared with products and orders through ./public.ts.
 * The places are the locations plugin's (its public.ts). Stock lives per location in
 * inventory_levels (migrations/000_stock.sql); a total is
 * the sum of the levels, read where it is shown (./totals.ts). Every function here must run
 * inside the caller's transaction, and each one that moves units takes the product's stock lock.
 */

/**
 * Variants (products of type "variable") each have their own levels: every function takes an
 * optional variantId, the stock item counted. Left out, the item is the product itself (its levels
 * carry variant_id = product_id). A product's total is the sum of all its rows, so a variable
 * product's total adds up its variants'.
 */
export interface Allocation {
  location_id: string;
  quantity: number;
}

async function addAt(tx: Db, storeId: string, productId: string, locationId: string, delta: number, now: Date, variantId = productId) {
  // The CHECK (quantity >= 0) applies to an upsert's proposed row too, so removals are plain updates.
  if (delta < 0) {
    await tx.query('UPDATE inventory_levels SET quantity = quantity + $3, updated_at = $4 WHERE variant_id = $1 AND location_id = $2', [
      variantId,
      locationId,
      delta,
      now,
    ]);
    return;
  }
  await tx.query(
    `INSERT INTO inventory_levels (store_id, product_id, variant_id, location_id, quantity, updated_at) VALUES ($1, $2, $6, $3, $4, $5)
     ON CONFLICT (variant_id, location_id) DO UPDATE SET quantity = inventory_levels.quantity + $4, updated_at = $5`,
    [storeId, productId, locationId, delta, now, variantId],
  );
}

/** Sets the product's total by changing the default location's level (PATCH stock_quantity). */
export async function setTotal(tx: Db, storeId: string, productId: string, total: number, now: Date, variantId = productId) {
  await lockStock(tx, storeId, productId);
  const home = await defaultLocation(tx, storeId, now);
  const [{ current, elsewhere }] = await tx.query<{ current: number; elsewhere: number }>(
    `SELECT coalesce(sum(quantity), 0)::int AS current, coalesce(sum(quantity) FILTER (WHERE location_id <> $2), 0)::int AS elsewhere
     FROM inventory_levels WHERE variant_id = $1`,
    [variantId, home],
  );
  if (total === Number(current)) return;
  if (total < Number(elsewhere))
    throw errors.conflict(
      `${elsewhere} units are held at non-default locations; lower stock there with the inventory endpoints first.`,
      'conflict_error',
      'stock_quantity',
    );
  await addAt(tx, storeId, productId, home, total - Number(current), now, variantId);
}

/**
 * Takes `quantity` units, default location first, then the others in creation order.
 * Short stock is 409 insufficient_stock and takes nothing. Returns where the units came from.
 */
export async function take(
  tx: Db,
  storeId: string,
  productId: string,
  quantity: number,
  now: Date,
  param: string,
  variantId = productId,
): Promise<Allocation[]> {
  await lockStock(tx, storeId, productId);
  const levels = await tx.query<{ location_id: string; quantity: number }>(
    `SELECT l.location_id, l.quantity FROM inventory_levels l ${joinLocation('loc', 'l.location_id')}
     WHERE l.variant_id = $1 AND l.store_id = $2 AND l.quantity > 0 AND loc.active
     ORDER BY ${locationOrder('loc')} FOR UPDATE OF l`,
    [variantId, storeId],
  );
  const available = levels.reduce((s, l) => s + Number(l.quantity), 0);
  if (available < quantity)
    throw errors.conflict(
      `Insufficient stock for ${variantId === productId ? 'product' : 'variant'} '${variantId}': ${available} available, ${quantity} requested.`,
      'insufficient_stock',
      param,
    );
  const taken: Allocation[] = [];
  let left = quantity;
  for (const l of levels) {
    if (!left) break;
    const n = Math.min(left, Number(l.quantity));
    await addAt(tx, storeId, productId, l.location_id, -n, now, variantId);
    taken.push({ location_id: l.location_id, quantity: n });
    left -= n;
  }
  return taken;
}

/**
 * Puts units back where they were taken from (order cancellation). A location closed or deleted
 * since then gets nothing: its units go to the default location, where they can be sold again.
 * The receiving locations are held FOR SHARE, like adjust_stock's, so a deactivation or deletion
 * running meanwhile either waits for this or is seen here: units never land in a closed location.
 */
export async function putBack(tx: Db, storeId: string, productId: string, allocations: Allocation[], now: Date, variantId = productId) {
  await lockStock(tx, storeId, productId);
  const active = await activeLocationsAmong(
    tx,
    storeId,
    allocations.map((a) => a.location_id),
  );
  for (const a of allocations) {
    const to = active.has(a.location_id) ? a.location_id : await defaultLocation(tx, storeId, now);
    await addAt(tx, storeId, productId, to, a.quantity, now, variantId);
  }
}

/** Changes one location's level by delta; it may not go below zero (409 insufficient_stock). Take the stock lock first. */
export async function adjust(
  tx: Db,
  storeId: string,
  productId: string,
  locationId: string,
  delta: number,
  now: Date,
  param = 'delta',
  variantId = productId,
) {
  const [level] = await tx.query<{ quantity: number }>(
    'SELECT quantity FROM inventory_levels WHERE variant_id = $1 AND location_id = $2 FOR UPDATE',
    [variantId, locationId],
  );
  const current = Number(level?.quantity ?? 0);
  if (current + delta < 0) throw errors.conflict(`Only ${current} units at this location; cannot remove ${-delta}.`, 'insufficient_stock', param);
  await addAt(tx, storeId, productId, locationId, delta, now, variantId);
  return { location_quantity: current + delta, total: await totalOf(tx, productId) };
}

/**
 * The stock item a movement of `product` (as products' get_product answers it) is for: one of its
 * live variants when it is a variable product (then variant_id is required, 400 naming `param`;
 * another product's variant is 404), else the product itself (a variant_id is then 400: it has
 * none). Returns the variant's id, or undefined for the product itself.
 */
export function variantOf(
  product: { id: string; type: string; variants: { id: string }[] },
  variantId: string | undefined,
  param = 'variant_id',
): string | undefined {
  if (product.type !== 'variable') {
    if (variantId !== undefined) throw errors.validation(`Invalid ${param}: product '${product.id}' has no variants.`, param);
    return undefined;
  }
  if (variantId === undefined) throw errors.validation(`Missing ${param}: product '${product.id}' has variants; say which one.`, param);
  const variant = product.variants.find((v) => v.id === variantId.toLowerCase());
  if (!variant) throw errors.notFound(`variant: '${variantId}'`, param);
  return variant.id;
}

/** A deleted variant's levels go with it (its units belong to nothing sellable); the product's total follows. */
export async function dropVariant(tx: Db, storeId: string, productId: string, variantId: string) {
  await lockStock(tx, storeId, productId);
  await tx.query('DELETE FROM inventory_levels WHERE store_id = $1 AND product_id = $2 AND variant_id = $3', [storeId, productId, variantId]);
}
