import type { Static } from '@sinclair/typebox';
import { actorOf, errors, iso, listPage, rowOr404, type Ctx, type Db, type Row } from '../../core/sdk';
import { adjust, defaultLocation, lockProduct, variantOf } from './stock';
import {
  MAX_STOCK,
  type InventoryAdjustment,
  type InventoryGet,
  type InventoryItem,
  type InventoryLevel,
  type InventoryQuery,
  type StockAdjust,
  type StockTransfer,
} from './schemas';

type Item = Static<typeof InventoryItem>;

const RECENT_ADJUSTMENTS = 50;

/**
 * Items for the given products, in the given order. Totals and levels come from one statement,
 * so a concurrent change can never show a total that disagrees with the levels beside it.
 */
async function itemsFor(db: Db, storeId: string, products: Row[], locationId?: string): Promise<Item[]> {
  if (!products.length) return [];
  const params: unknown[] = [storeId, products.map((p) => p.id)];
  if (locationId) params.push(locationId);
  const rows = await db.query(
    `SELECT p.id AS product_id, p.stock_quantity AS total, l.location_id, loc.name AS location_name, l.quantity, l.updated_at
     FROM products p
     LEFT JOIN (
       -- a variable product has one row per variant at a location: the level is their sum
       SELECT product_id, location_id, sum(quantity)::int AS quantity, max(updated_at) AS updated_at FROM inventory_levels
       WHERE store_id = $1 AND product_id = ANY($2::uuid[])${locationId ? ' AND location_id = $3' : ''} GROUP BY product_id, location_id
     ) l ON l.product_id = p.id
     LEFT JOIN locations loc ON loc.id = l.location_id
     WHERE p.store_id = $1 AND p.id = ANY($2::uuid[])
     ORDER BY loc.is_default DESC, loc.seq`,
    params,
  );
  const totals = new Map<string, number>();
  const levels = new Map<string, Static<typeof InventoryLevel>[]>();
  for (const r of rows) {
    totals.set(r.product_id, Number(r.total));
    if (r.location_id == null) continue;
    const list = levels.get(r.product_id) ?? [];
    list.push({
      object: 'inventory_level',
      location_id: r.location_id,
      location_name: r.location_name,
      quantity: Number(r.quantity),
      updated_at: iso(r.updated_at),
    });
    levels.set(r.product_id, list);
  }
  return products.map((p) => ({
    object: 'inventory_item' as const,
    product_id: p.id,
    sku: p.sku,
    name: p.name,
    total: totals.get(p.id) ?? Number(p.stock_quantity),
    levels: levels.get(p.id) ?? [],
  }));
}

function toAdjustment(r: Row): Static<typeof InventoryAdjustment> {
  return {
    object: 'inventory_adjustment',
    id: r.id,
    product_id: r.product_id,
    variant_id: r.variant_id ?? null,
    location_id: r.location_id,
    type: r.type,
    delta: Number(r.delta),
    quantity_after: Number(r.quantity_after),
    reason: r.reason,
    transfer_id: r.transfer_id,
    created_at: iso(r.created_at),
  };
}

/** A live (not archived) product of this store, or 404 naming `param`. */
const liveProduct = (db: Db, storeId: string, id: string, param: string) =>
  rowOr404(db, { table: 'products', storeId, id, noun: 'product', param, where: 'archived_at IS NULL' });

async function itemOf(db: Db, storeId: string, productId: string, withAdjustments = false): Promise<Item> {
  const [item] = await itemsFor(db, storeId, [await liveProduct(db, storeId, productId, 'product_id')]);
  if (!withAdjustments) return item;
  const rows = await db.query('SELECT * FROM inventory_adjustments WHERE store_id = $1 AND product_id = $2 ORDER BY seq DESC LIMIT $3', [
    storeId,
    productId,
    RECENT_ADJUSTMENTS,
  ]);
  return { ...item, adjustments: rows.map(toAdjustment) };
}

export async function listInventory(ctx: Ctx, input: Static<typeof InventoryQuery>) {
  const storeId = ctx.store.id;
  // A filter naming something that is not this store's is a mistake worth a 404, as on Stripe.
  const productId = input.product_id || undefined;
  const locationId = input.location_id || undefined;
  if (productId) await liveProduct(ctx.db, storeId, productId, 'product_id');
  if (locationId)
    await rowOr404(ctx.db, { table: 'locations', storeId, id: locationId, noun: 'location', param: 'location_id', where: 'deleted_at IS NULL' });
  // Paginate over products (newest first, like list_products), so cursors are product ids.
  return listPage(
    ctx,
    {
      table: 'products',
      path: '/inventory',
      input,
      where: ['archived_at IS NULL'],
      filters: {
        'id = $': productId,
        'EXISTS (SELECT 1 FROM inventory_levels l WHERE l.product_id = products.id AND l.location_id = $)': locationId,
      },
    },
    (rows) => itemsFor(ctx.db, storeId, rows, input.location_id),
  );
}

export const getInventory = (ctx: Ctx, input: Static<typeof InventoryGet>) =>
  itemOf(ctx.db, ctx.store.id, input.product_id, input.include_adjustments ?? false);

/**
 * A location of this store that stock may move at. Holding the row FOR SHARE until commit is the
 * other half of update_location's and delete_location's row locks: a location cannot be
 * deactivated or deleted while a movement into it is under way, and a movement that waited for a
 * deletion finds the location gone (404). Inactive locations may still give stock (so stranded
 * units can be moved out or written off) but never receive it.
 */
async function stockLocation(tx: Db, storeId: string, id: string, param: string, receiving: boolean) {
  const loc = await rowOr404(tx, { table: 'locations', storeId, id, noun: 'location', param, where: 'deleted_at IS NULL', lock: 'FOR SHARE' });
  if (receiving && !loc.active) throw errors.validation(`Location '${loc.name}' is inactive and cannot receive stock.`, param);
  return loc;
}

async function record(
  tx: Db,
  ctx: Ctx,
  r: {
    productId: string;
    variantId?: string | null;
    locationId: string;
    type: 'adjustment' | 'transfer';
    delta: number;
    after: number;
    reason?: string;
    transferId?: string;
  },
) {
  const [row] = await tx.query(
    `INSERT INTO inventory_adjustments (id, store_id, product_id, variant_id, location_id, type, delta, quantity_after, reason, transfer_id, api_key_id, created_at)
     VALUES (gen_random_uuid(), $1, $2, $11, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [
      ctx.store.id,
      r.productId,
      r.locationId,
      r.type,
      r.delta,
      r.after,
      r.reason ?? null,
      r.transferId ?? null,
      actorOf(ctx.principal).id,
      ctx.clock.now(),
      r.variantId ?? null,
    ],
  );
  return toAdjustment(row);
}

/** Runs inside invoke's transaction: the level, the product total and the history row change together. */
export async function adjustStock(ctx: Ctx, input: Static<typeof StockAdjust>) {
  if (input.delta === 0) throw errors.validation('Invalid delta: must not be zero.', 'delta');
  const tx = ctx.db;
  const storeId = ctx.store.id;
  const now = ctx.clock.now();
  // The product lock comes first, always (./stock.ts): adjustments of one product queue up here.
  const product = await lockProduct(tx, storeId, input.product_id);
  const variant = await variantOf(tx, storeId, product, input.variant_id);
  if (Number(product.stock_quantity) + input.delta > MAX_STOCK)
    throw errors.validation(`Invalid delta: the product's total would exceed ${MAX_STOCK}.`, 'delta');
  const locationId = input.location_id ?? (await defaultLocation(tx, storeId, now));
  await stockLocation(tx, storeId, locationId, 'location_id', input.delta > 0);
  const { location_quantity } = await adjust(tx, storeId, product.id, locationId, input.delta, now, 'delta', variant?.id);
  const adjustment = await record(tx, ctx, {
    productId: product.id,
    variantId: variant?.id,
    locationId,
    type: 'adjustment',
    delta: input.delta,
    after: location_quantity,
    reason: input.reason,
  });
  const item = await itemOf(tx, storeId, product.id);
  // The adjustment is the resource this event is about (it has the id); `total` is the product's new total.
  ctx.emit('inventory.adjusted', { ...adjustment, total: item.total });
  return item;
}

export async function transferStock(ctx: Ctx, input: Static<typeof StockTransfer>) {
  const from = input.from_location_id.toLowerCase();
  const to = input.to_location_id.toLowerCase();
  if (from === to) throw errors.validation('Invalid to_location_id: must differ from from_location_id.', 'to_location_id');
  const tx = ctx.db;
  const storeId = ctx.store.id;
  const now = ctx.clock.now();
  const product = await lockProduct(tx, storeId, input.product_id);
  const variant = await variantOf(tx, storeId, product, input.variant_id);
  await stockLocation(tx, storeId, from, 'from_location_id', false);
  await stockLocation(tx, storeId, to, 'to_location_id', true);
  // Out first: short stock at the source throws before anything arrives, and the transaction undoes the rest.
  const out = await adjust(tx, storeId, product.id, from, -input.quantity, now, 'quantity', variant?.id);
  const into = await adjust(tx, storeId, product.id, to, input.quantity, now, 'quantity', variant?.id);
  const transferId = crypto.randomUUID();
  const base = { productId: product.id, variantId: variant?.id, type: 'transfer' as const, transferId };
  const taken = await record(tx, ctx, { ...base, locationId: from, delta: -input.quantity, after: out.location_quantity });
  await record(tx, ctx, { ...base, locationId: to, delta: input.quantity, after: into.location_quantity });
  const item = await itemOf(tx, storeId, product.id);
  ctx.emit('inventory.transferred', {
    object: 'inventory_transfer',
    id: transferId,
    product_id: product.id,
    variant_id: variant?.id ?? null,
    from_location_id: from,
    to_location_id: to,
    quantity: input.quantity,
    from_quantity_after: out.location_quantity,
    to_quantity_after: into.location_quantity,
    total: item.total,
    created_at: taken.created_at,
  });
  return item;
}
