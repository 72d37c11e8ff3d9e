import { errors, rowOr404, type Db } from '../../core/sdk';

/**
 * The stock ledger, owned by inventory and shared with products, orders and locations through
 * ./public.ts. Stock lives per location in inventory_levels (migrations/000_stock.sql);
 * products.stock_quantity is kept equal to the sum, in the same transaction, so reads of a product
 * never need to add levels up. Every function here must run inside the caller's transaction.
 */

/**
 * Variants (products of type "variable") each have their own levels: every function takes an
 * optional variantId, the stock item counted. Left out, the item is the product itself (its levels
 * carry variant_id = product_id). A product's stock_quantity is the sum of all its rows, so a
 * variable product's total adds up its variants'.
 */
export interface Allocation {
  location_id: string;
  quantity: number;
}

/** The store's default location, created on first need ("Default"). */
export async function defaultLocation(tx: Db, storeId: string, now: Date): Promise<string> {
  const [found] = await tx.query<{ id: string }>('SELECT id FROM locations WHERE store_id = $1 AND is_default', [storeId]);
  if (found) return found.id;
  await tx.query(
    `INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'Default', true, $2, $2) ON CONFLICT DO NOTHING`,
    [storeId, now],
  );
  const [row] = await tx.query<{ id: string }>('SELECT id FROM locations WHERE store_id = $1 AND is_default', [storeId]);
  return row.id;
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

async function syncTotal(tx: Db, storeId: string, productId: string, variantId?: string) {
  if (variantId && variantId !== productId)
    await tx.query(
      `UPDATE product_variants SET stock_quantity = (SELECT coalesce(sum(quantity), 0)::int FROM inventory_levels WHERE variant_id = $2)
       WHERE store_id = $1 AND id = $2`,
      [storeId, variantId],
    );
  const [row] = await tx.query<{ total: number }>(
    `UPDATE products SET stock_quantity = (SELECT coalesce(sum(quantity), 0)::int FROM inventory_levels WHERE product_id = $2)
     WHERE store_id = $1 AND id = $2 RETURNING stock_quantity AS total`,
    [storeId, productId],
  );
  return Number(row?.total ?? 0);
}

/** Sets the product's total by changing the default location's level (PATCH stock_quantity). */
export async function setTotal(tx: Db, storeId: string, productId: string, total: number, now: Date, variantId = productId) {
  const [{ current, elsewhere }] = await tx.query<{ current: number; elsewhere: number }>(
    `SELECT coalesce(sum(l.quantity), 0)::int AS current,
            coalesce(sum(l.quantity) FILTER (WHERE NOT loc.is_default), 0)::int AS elsewhere
     FROM inventory_levels l JOIN locations loc ON loc.id = l.location_id WHERE l.variant_id = $1`,
    [variantId],
  );
  if (total === Number(current)) return;
  if (total < Number(elsewhere))
    throw errors.conflict(
      `${elsewhere} units are held at non-default locations; lower stock there with the inventory endpoints first.`,
      'conflict_error',
      'stock_quantity',
    );
  await addAt(tx, storeId, productId, await defaultLocation(tx, storeId, now), total - Number(current), now, variantId);
  await syncTotal(tx, storeId, productId, variantId);
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
  const levels = await tx.query<{ location_id: string; quantity: number }>(
    `SELECT l.location_id, l.quantity FROM inventory_levels l JOIN locations loc ON loc.id = l.location_id
     WHERE l.variant_id = $1 AND l.store_id = $2 AND l.quantity > 0 AND loc.active
     ORDER BY loc.is_default DESC, loc.seq FOR UPDATE OF l`,
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
  await syncTotal(tx, storeId, productId, variantId);
  return taken;
}

/**
 * Puts units back where they were taken from (order cancellation). A location closed or deleted
 * since then gets nothing: its units go to the default location, where they can be sold again.
 * The receiving locations are held FOR SHARE, like adjust_stock's, so a deactivation or deletion
 * running meanwhile either waits for this or is seen here: units never land in a closed location.
 */
export async function putBack(tx: Db, storeId: string, productId: string, allocations: Allocation[], now: Date, variantId = productId) {
  const active = new Set(
    (
      await tx.query<{ id: string }>('SELECT id FROM locations WHERE store_id = $1 AND active AND id = ANY($2::uuid[]) ORDER BY id FOR SHARE', [
        storeId,
        allocations.map((a) => a.location_id),
      ])
    ).map((r) => r.id),
  );
  for (const a of allocations) {
    const to = active.has(a.location_id) ? a.location_id : await defaultLocation(tx, storeId, now);
    await addAt(tx, storeId, productId, to, a.quantity, now, variantId);
  }
  await syncTotal(tx, storeId, productId, variantId);
}

/**
 * Locks the product row. Every stock change locks the product first (orders lock several in id
 * order), so stock changes of one product queue up and never deadlock.
 */
export const lockProduct = (tx: Db, storeId: string, productId: string, param = 'product_id') =>
  rowOr404(tx, { table: 'products', storeId, id: productId, noun: 'product', param, where: 'archived_at IS NULL', lock: 'FOR UPDATE' });

/** Changes one location's level by delta; it may not go below zero (409 insufficient_stock). Lock the product first. */
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
  return { location_quantity: current + delta, total: await syncTotal(tx, storeId, productId, variantId) };
}

/**
 * The stock item a movement of `product` is for: one of its live variants when it is a variable
 * product (then variant_id is required, 400 naming `param`; another product's variant is 404),
 * else the product itself (a variant_id is then 400: it has none). Returns the variant row, or
 * null for the product itself. product_variants belongs to plugins/products; the ledger reads it
 * as it updates products.stock_quantity.
 */
export async function variantOf(tx: Db, storeId: string, product: Record<string, any>, variantId: string | undefined, param = 'variant_id') {
  if (product.type !== 'variable') {
    if (variantId !== undefined) throw errors.validation(`Invalid ${param}: product '${product.id}' has no variants.`, param);
    return null;
  }
  if (variantId === undefined) throw errors.validation(`Missing ${param}: product '${product.id}' has variants; say which one.`, param);
  const [variant] = await tx.query('SELECT * FROM product_variants WHERE store_id = $1 AND product_id = $2 AND id = $3 AND archived_at IS NULL', [
    storeId,
    product.id,
    variantId,
  ]);
  if (!variant) throw errors.notFound(`variant: '${variantId}'`, param);
  return variant as Record<string, any>;
}

/** A deleted variant's levels go with it (its units belong to nothing sellable); the totals follow. */
export async function dropVariant(tx: Db, storeId: string, productId: string, variantId: string) {
  await tx.query('DELETE FROM inventory_levels WHERE store_id = $1 AND product_id = $2 AND variant_id = $3', [storeId, productId, variantId]);
  await syncTotal(tx, storeId, productId, variantId);
}
