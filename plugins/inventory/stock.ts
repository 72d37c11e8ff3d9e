import type { Db } from '../../core/sdk';
import { errors } from '../../core/sdk';

/**
 * The stock ledger, owned by inventory and shared with products, orders and locations through
 * ./public.ts. Stock lives per location in inventory_levels (migrations/000_stock.sql);
 * products.stock_quantity is kept equal to the sum, in the same transaction, so reads of a product
 * never need to add levels up. Every function here must run inside the caller's transaction.
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

async function addAt(tx: Db, storeId: string, productId: string, locationId: string, delta: number, now: Date) {
  // The CHECK (quantity >= 0) applies to an upsert's proposed row too, so removals are plain updates.
  if (delta < 0) {
    await tx.query('UPDATE inventory_levels SET quantity = quantity + $3, updated_at = $4 WHERE product_id = $1 AND location_id = $2', [
      productId, locationId, delta, now,
    ]);
    return;
  }
  await tx.query(
    `INSERT INTO inventory_levels (store_id, product_id, location_id, quantity, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (product_id, location_id) DO UPDATE SET quantity = inventory_levels.quantity + $4, updated_at = $5`,
    [storeId, productId, locationId, delta, now],
  );
}

async function syncTotal(tx: Db, storeId: string, productId: string) {
  const [row] = await tx.query<{ total: number }>(
    `UPDATE products SET stock_quantity = (SELECT coalesce(sum(quantity), 0)::int FROM inventory_levels WHERE product_id = $2)
     WHERE store_id = $1 AND id = $2 RETURNING stock_quantity AS total`,
    [storeId, productId],
  );
  return Number(row?.total ?? 0);
}

/** Sets the product's total by changing the default location's level (PATCH stock_quantity). */
export async function setTotal(tx: Db, storeId: string, productId: string, total: number, now: Date) {
  const [{ current, elsewhere }] = await tx.query<{ current: number; elsewhere: number }>(
    `SELECT coalesce(sum(l.quantity), 0)::int AS current,
            coalesce(sum(l.quantity) FILTER (WHERE NOT loc.is_default), 0)::int AS elsewhere
     FROM inventory_levels l JOIN locations loc ON loc.id = l.location_id WHERE l.product_id = $1`,
    [productId],
  );
  if (total === Number(current)) return;
  if (total < Number(elsewhere))
    throw errors.conflict(
      `${elsewhere} units are held at non-default locations; lower stock there with the inventory endpoints first.`,
      'conflict_error',
      'stock_quantity',
    );
  await addAt(tx, storeId, productId, await defaultLocation(tx, storeId, now), total - Number(current), now);
  await syncTotal(tx, storeId, productId);
}

/**
 * Takes `quantity` units, default location first, then the others in creation order.
 * Short stock is 409 insufficient_stock and takes nothing. Returns where the units came from.
 */
export async function take(tx: Db, storeId: string, productId: string, quantity: number, now: Date, param: string): Promise<Allocation[]> {
  const levels = await tx.query<{ location_id: string; quantity: number }>(
    `SELECT l.location_id, l.quantity FROM inventory_levels l JOIN locations loc ON loc.id = l.location_id
     WHERE l.product_id = $1 AND l.store_id = $2 AND l.quantity > 0 AND loc.active
     ORDER BY loc.is_default DESC, loc.seq FOR UPDATE OF l`,
    [productId, storeId],
  );
  const available = levels.reduce((s, l) => s + Number(l.quantity), 0);
  if (available < quantity)
    throw errors.conflict(
      `Insufficient stock for product '${productId}': ${available} available, ${quantity} requested.`,
      'insufficient_stock',
      param,
    );
  const taken: Allocation[] = [];
  let left = quantity;
  for (const l of levels) {
    if (!left) break;
    const n = Math.min(left, Number(l.quantity));
    await addAt(tx, storeId, productId, l.location_id, -n, now);
    taken.push({ location_id: l.location_id, quantity: n });
    left -= n;
  }
  await syncTotal(tx, storeId, productId);
  return taken;
}

/**
 * Puts units back where they were taken from (order cancellation). A location closed or deleted
 * since then gets nothing: its units go to the default location, where they can be sold again.
 * The receiving locations are held FOR SHARE, like adjust_stock's, so a deactivation or deletion
 * running meanwhile either waits for this or is seen here: units never land in a closed location.
 */
export async function putBack(tx: Db, storeId: string, productId: string, allocations: Allocation[], now: Date) {
  const active = new Set(
    (await tx.query<{ id: string }>('SELECT id FROM locations WHERE store_id = $1 AND active AND id = ANY($2::uuid[]) ORDER BY id FOR SHARE', [
      storeId,
      allocations.map((a) => a.location_id),
    ])).map((r) => r.id),
  );
  for (const a of allocations) {
    const to = active.has(a.location_id) ? a.location_id : await defaultLocation(tx, storeId, now);
    await addAt(tx, storeId, productId, to, a.quantity, now);
  }
  await syncTotal(tx, storeId, productId);
}

/**
 * Locks the product row. Every stock change locks the product first (orders lock several in id
 * order), so stock changes of one product queue up and never deadlock.
 */
export async function lockProduct(tx: Db, storeId: string, productId: string, param = 'product_id') {
  const [row] = await tx.query('SELECT * FROM products WHERE store_id = $1 AND id = $2 AND archived_at IS NULL FOR UPDATE', [storeId, productId]);
  if (!row) throw errors.notFound(`product: '${productId}'`, param);
  return row as Record<string, any>;
}

/** Changes one location's level by delta; it may not go below zero (409 insufficient_stock). Lock the product first. */
export async function adjust(tx: Db, storeId: string, productId: string, locationId: string, delta: number, now: Date, param = 'delta') {
  const [level] = await tx.query<{ quantity: number }>(
    'SELECT quantity FROM inventory_levels WHERE product_id = $1 AND location_id = $2 FOR UPDATE',
    [productId, locationId],
  );
  const current = Number(level?.quantity ?? 0);
  if (current + delta < 0)
    throw errors.conflict(`Only ${current} units at this location; cannot remove ${-delta}.`, 'insufficient_stock', param);
  await addAt(tx, storeId, productId, locationId, delta, now);
  return { location_quantity: current + delta, total: await syncTotal(tx, storeId, productId) };
}
