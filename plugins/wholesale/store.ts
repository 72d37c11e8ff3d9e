import type { Static } from '@sinclair/typebox';
import { errors, fromMinor, listPage, SvcError, stamps, toMinor, type Ctx, type Row } from '../../core/sdk';
import { customerIdIn } from '../customers/public';
import { liveProducts, skuOwners, variantProducts } from '../products/public';
import { PRODUCT_KEY } from './public';
import type { BulkOrder, PlacedOrder, PriceQuery, SetPricing } from './schemas';

export const toPrice = (r: Row) => ({
  object: 'wholesale_price' as const,
  id: r.id,
  customer_group: r.customer_group,
  product_id: r.product_id,
  variant_id: r.variant_key === PRODUCT_KEY ? null : r.variant_key,
  price: fromMinor(r.price_minor, r.currency),
  currency: r.currency,
  quantity_breaks: (r.quantity_breaks as Row[]).map((b) => ({ min_quantity: Number(b.min_quantity), price: fromMinor(b.price_minor, r.currency) })),
  ...stamps(r),
});

export const listPrices = (ctx: Ctx, input: Static<typeof PriceQuery>) =>
  listPage(
    ctx,
    {
      table: 'wholesale_prices',
      path: '/wholesale/prices',
      input,
      filters: { 'customer_group = $': input.customer_group, 'product_id = $': input.product_id },
    },
    (rows) => rows.map(toPrice),
  );

/**
 * Sets a group's prices for the products (or variants) named, all or nothing: each replaces that
 * product's (variant's) earlier price and breaks for the group; others are left as they were.
 */
export async function setPricing(ctx: Ctx, i: Static<typeof SetPricing>) {
  const products = await liveProducts(
    ctx.db,
    ctx.store.id,
    i.prices.map((p) => p.product_id.toLowerCase()),
  );
  const variants = await variantProducts(
    ctx.db,
    ctx.store.id,
    i.prices.flatMap((p) => (p.variant_id ? [p.variant_id.toLowerCase()] : [])),
  );
  const now = ctx.clock.now();
  const seen = new Set<string>();
  const rows: Row[] = [];
  for (const [n, p] of i.prices.entries()) {
    const product = products.get(p.product_id.toLowerCase());
    if (!product) throw errors.notFound(`product: '${p.product_id}'`, `prices.${n}.product_id`);
    const variantKey = p.variant_id ? p.variant_id.toLowerCase() : PRODUCT_KEY;
    if (p.variant_id && variants.get(variantKey) !== product.id)
      throw errors.notFound(`variant of this product: '${p.variant_id}'`, `prices.${n}.variant_id`);
    if (seen.has(`${product.id}/${variantKey}`))
      throw errors.validation(`Invalid prices.${n}: this product or variant is priced twice.`, `prices.${n}`);
    seen.add(`${product.id}/${variantKey}`);
    const currency = product.pricing_data.currency;
    const breaks = (p.quantity_breaks ?? []).map((b, k) => ({
      min_quantity: b.min_quantity,
      price_minor: toMinor(b.price, currency, `prices.${n}.quantity_breaks.${k}.price`),
    }));
    if (new Set(breaks.map((b) => b.min_quantity)).size !== breaks.length)
      throw errors.validation(`Invalid prices.${n}.quantity_breaks: each min_quantity once.`, `prices.${n}.quantity_breaks`);
    breaks.sort((a, b) => a.min_quantity - b.min_quantity);
    const [row] = await ctx.db.query(
      `INSERT INTO wholesale_prices (id, store_id, customer_group, product_id, variant_key, currency, price_minor, quantity_breaks, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $8)
       ON CONFLICT (store_id, customer_group, product_id, variant_key)
       DO UPDATE SET currency = EXCLUDED.currency, price_minor = EXCLUDED.price_minor, quantity_breaks = EXCLUDED.quantity_breaks, updated_at = EXCLUDED.updated_at
       RETURNING *`,
      [
        ctx.store.id,
        i.customer_group,
        product.id,
        variantKey,
        currency,
        toMinor(p.price, currency, `prices.${n}.price`),
        JSON.stringify(breaks),
        now,
      ],
    );
    rows.push(row);
  }
  const out = { object: 'wholesale_pricing' as const, customer_group: i.customer_group, prices: rows.map(toPrice) };
  ctx.emit('wholesale.pricing_set', out);
  return out;
}

/**
 * One order from SKUs, all or nothing, through orders' own create_order (so stock, discounts, tax
 * and the customer's group prices are exactly an order's): an unknown SKU is 404, and any refusal
 * of a line names `line_items.<n>.sku`, the field this client sent.
 */
export async function createBulkOrder(ctx: Ctx, i: Static<typeof BulkOrder>): Promise<Static<typeof PlacedOrder>> {
  if (!(await customerIdIn(ctx.db, ctx.store.id, i.customer_id))) throw errors.notFound(`customer: '${i.customer_id}'`, 'customer_id');
  const owners = await skuOwners(
    ctx.db,
    ctx.store.id,
    i.line_items.map((l) => l.sku),
  );
  const line_items = i.line_items.map((l, n) => {
    const owner = owners.get(l.sku);
    if (!owner) throw errors.notFound(`product or variant with SKU '${l.sku}'`, `line_items.${n}.sku`);
    return { product_id: owner.product_id, ...(owner.variant_id ? { variant_id: owner.variant_id } : {}), quantity: l.quantity };
  });
  try {
    // Typed by its own output schema: orders' type, reached through CallableActions, would name this plugin's again.
    const placed: Static<typeof PlacedOrder> = await ctx.call('orders.create_order', {
      customer_id: i.customer_id,
      line_items,
      ...(i.payment_method ? { payment_method: i.payment_method } : {}),
      ...(i.discount_codes ? { discount_codes: i.discount_codes } : {}),
    });
    return placed;
  } catch (err) {
    if (!(err instanceof SvcError)) throw err;
    const m = /^line_items\.(\d+)\.(product_id|variant_id)$/.exec(err.param ?? '');
    throw m ? new SvcError(err.code, err.message, `line_items.${m[1]}.sku`, err.headers) : err;
  }
}
