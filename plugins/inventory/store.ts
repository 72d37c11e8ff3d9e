import type { Static } from '@sinclair/typebox';
import { actorOf, errors, iso, type Ctx, type Db, type PageInput, type Row } from '../../core/sdk';
import { joinLocation, liveLocation, locationOrder } from '../locations/public';
import { adjust, defaultLocation, variantOf } from './stock';
import { lockStock, totalOf } from './totals';
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

/** A product as products' get_product and list_products answer it: what the ledger needs of it. */
interface ProductView {
  id: string;
  sku: string | null;
  name: string;
  type: string;
  variants: { id: string }[];
}

/**
 * Items for the given products, in the given order. Totals and levels come from one statement,
 * so a concurrent change can never show a total that disagrees with the levels beside it. With
 * `locationId`, only that location's level is listed (the total stays the product's whole).
 */
async function itemsFor(db: Db, storeId: string, products: ProductView[], locationId?: string): Promise<Item[]> {
  if (!products.length) return [];
  const rows = await db.query(
    // a variable product has one row per variant at a location: the level is their sum
    `SELECT l.product_id, l.location_id, loc.name AS location_name, sum(l.quantity)::int AS quantity, max(l.updated_at) AS updated_at
     FROM inventory_levels l ${joinLocation('loc', 'l.location_id')}
     WHERE l.store_id = $1 AND l.product_id = ANY($2::uuid[])
     GROUP BY l.product_id, l.location_id, loc.id
     ORDER BY ${locationOrder('loc')}`,
    [storeId, products.map((p) => p.id)],
  );
  const totals = new Map<string, number>();
  const levels = new Map<string, Static<typeof InventoryLevel>[]>();
  for (const r of rows) {
    totals.set(r.product_id, (totals.get(r.product_id) ?? 0) + Number(r.quantity));
    if (locationId && r.location_id !== locationId.toLowerCase()) continue;
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
    total: totals.get(p.id) ?? 0,
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

/**
 * A live product of this store, as products answers it (get_product, run as this plugin:
 * `calls: ['products']`), or 404 naming `param`. Products owns its rows; the ledger asks.
 */
async function productOf(ctx: Ctx, id: string, param = 'product_id'): Promise<ProductView> {
  return ctx.call('products.get_product', { id }, { notFoundParam: param });
}

/** A page of the store's live products (newest first), as products lists them. */
async function productPage(ctx: Ctx, input: PageInput): Promise<{ data: ProductView[]; has_more: boolean }> {
  return ctx.call('products.list_products', input);
}

async function itemOf(ctx: Ctx, db: Db, product: ProductView, withAdjustments = false): Promise<Item> {
  const [item] = await itemsFor(db, ctx.store.id, [product]);
  if (!withAdjustments) return item;
  const rows = await db.query('SELECT * FROM inventory_adjustments WHERE store_id = $1 AND product_id = $2 ORDER BY seq DESC LIMIT $3', [
    ctx.store.id,
    product.id,
    RECENT_ADJUSTMENTS,
  ]);
  return { ...item, adjustments: rows.map(toAdjustment) };
}

/** Products are read from products in batches this size when a location filter skips some. */
const BATCH = 100;

/**
 * Paginates over products (newest first, like list_products), so cursors are product ids. A
 * location filter keeps the products with a level there: batches of products are read (from the
 * cursor on, in the page's direction) until the page is full or none are left.
 */
export async function listInventory(ctx: Ctx, input: Static<typeof InventoryQuery>) {
  const storeId = ctx.store.id;
  const url = `${ctx.storePath}/inventory`;
  // A filter naming something that is not this store's is a mistake worth a 404, as on Stripe.
  const productId = input.product_id || undefined;
  const locationId = input.location_id || undefined;
  if (locationId) await liveLocation(ctx.db, storeId, locationId, { param: 'location_id' });
  if (input.starting_after && input.ending_before) throw errors.validation('Pass only one of starting_after and ending_before.', 'ending_before');
  if (productId) {
    const items = await itemsFor(ctx.db, storeId, [await productOf(ctx, productId)], locationId);
    return { object: 'list' as const, data: items.filter((i) => !locationId || i.levels.length), has_more: false, url };
  }
  const page = { limit: input.limit, starting_after: input.starting_after, ending_before: input.ending_before };
  if (!locationId) {
    const products = await productPage(ctx, page);
    return { object: 'list' as const, data: await itemsFor(ctx.db, storeId, products.data, locationId), has_more: products.has_more, url };
  }
  const limit = input.limit ?? 10;
  const backwards = Boolean(input.ending_before);
  let cursor = input.starting_after ?? input.ending_before;
  let found: Item[] = [];
  for (;;) {
    const batch = await productPage(ctx, { limit: BATCH, ...(cursor ? { [backwards ? 'ending_before' : 'starting_after']: cursor } : {}) });
    const stocked = (await itemsFor(ctx.db, storeId, batch.data, locationId)).filter((i) => i.levels.length);
    found = backwards ? [...stocked, ...found] : [...found, ...stocked];
    if (found.length > limit || !batch.has_more || !batch.data.length)
      return { object: 'list' as const, data: backwards ? found.slice(-limit) : found.slice(0, limit), has_more: found.length > limit, url };
    cursor = (backwards ? batch.data[0] : batch.data.at(-1)!).id;
  }
}

export const getInventory = async (ctx: Ctx, input: Static<typeof InventoryGet>) =>
  itemOf(ctx, ctx.db, await productOf(ctx, input.product_id), input.include_adjustments ?? false);

/**
 * A location of this store that stock may move at. Holding the row FOR SHARE until commit is the
 * other half of update_location's and delete_location's row locks: a location cannot be
 * deactivated or deleted while a movement into it is under way, and a movement that waited for a
 * deletion finds the location gone (404). Inactive locations may still give stock (so stranded
 * units can be moved out or written off) but never receive it.
 */
async function stockLocation(tx: Db, storeId: string, id: string, param: string, receiving: boolean) {
  const loc = await liveLocation(tx, storeId, id, { param, lock: 'FOR SHARE' });
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
  const product = await productOf(ctx, input.product_id);
  const variantId = variantOf(product, input.variant_id);
  // The stock lock comes first, always (./totals.ts): adjustments of one product queue up here.
  await lockStock(tx, storeId, product.id);
  if ((await totalOf(tx, product.id)) + input.delta > MAX_STOCK)
    throw errors.validation(`Invalid delta: the product's total would exceed ${MAX_STOCK}.`, 'delta');
  const locationId = input.location_id ?? (await defaultLocation(tx, storeId, now));
  await stockLocation(tx, storeId, locationId, 'location_id', input.delta > 0);
  const { location_quantity } = await adjust(tx, storeId, product.id, locationId, input.delta, now, 'delta', variantId);
  const adjustment = await record(tx, ctx, {
    productId: product.id,
    variantId,
    locationId,
    type: 'adjustment',
    delta: input.delta,
    after: location_quantity,
    reason: input.reason,
  });
  const item = await itemOf(ctx, tx, product);
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
  const product = await productOf(ctx, input.product_id);
  const variantId = variantOf(product, input.variant_id);
  await lockStock(tx, storeId, product.id);
  await stockLocation(tx, storeId, from, 'from_location_id', false);
  await stockLocation(tx, storeId, to, 'to_location_id', true);
  // Out first: short stock at the source throws before anything arrives, and the transaction undoes the rest.
  const out = await adjust(tx, storeId, product.id, from, -input.quantity, now, 'quantity', variantId);
  const into = await adjust(tx, storeId, product.id, to, input.quantity, now, 'quantity', variantId);
  const transferId = crypto.randomUUID();
  const base = { productId: product.id, variantId, type: 'transfer' as const, transferId };
  const taken = await record(tx, ctx, { ...base, locationId: from, delta: -input.quantity, after: out.location_quantity });
  await record(tx, ctx, { ...base, locationId: to, delta: input.quantity, after: into.location_quantity });
  const item = await itemOf(ctx, tx, product);
  ctx.emit('inventory.transferred', {
    object: 'inventory_transfer',
    id: transferId,
    product_id: product.id,
    variant_id: variantId ?? null,
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
