import type { Static } from '@sinclair/typebox';
import {
  dateRangeFilters,
  errors,
  fromMinor,
  iso,
  isoOrNull,
  jsonParam,
  listPage,
  metadataFilter,
  rowOr404,
  setClause,
  toMinor,
  type Ctx,
  type Db,
  type Row,
} from '../../core/sdk';
import { take, type Allocation } from '../inventory/public';
import { lockedProduct, variantFor } from '../products/public';
import { returnUnits } from './restock';
import type { Order, OrderCreate, OrderQuery, OrderUpdate } from './schemas';
import { checkDetails, detailsOf } from './details';
import { refundsByOrder } from './refund-rows';
import { discountsOut, priceOrder } from './pricing';
import { redemptionCtes } from '../coupons/public';
import { orderTaxCtes, setOrderTaxStatus } from '../tax/public';
import { unitPrices } from '../wholesale/public';
import { firstRead } from './first-read';
import { fulfillmentsByOrder, fulfillRemaining, lockOrderUnits, shippedUnits, statusOf } from '../fulfillment/public';
import { walletPart } from './wallet-part';

/** The documented order lifecycle (README, Orders). Anything else is a 409. */
export const TRANSITIONS: Record<string, string[]> = {
  // Fulfilling ships units, and only paid units ship (issue 46): pending -> fulfilled is 409.
  pending: ['paid', 'completed', 'cancelled'],
  paid: ['fulfilled', 'completed', 'cancelled'],
  fulfilled: ['completed'],
  completed: [],
  cancelled: [],
};

function toOrder(
  r: Row,
  items: Row[],
  refunds: Static<typeof Order>['refunds'],
  fulfillments: Static<typeof Order>['fulfillments'],
): Static<typeof Order> {
  const units = items.map((i) => ({ id: i.id, quantity: Number(i.quantity), quantity_refunded: Number(i.quantity_refunded) }));
  return {
    object: 'order',
    id: r.id,
    order_number: r.order_number,
    status: r.status,
    currency: r.currency,
    total: fromMinor(r.total_minor, r.currency),
    subtotal: fromMinor(r.subtotal_minor ?? r.total_minor, r.currency),
    discounts: discountsOut(r.discounts ?? [], r.currency),
    discount_total: fromMinor(r.discount_total_minor ?? 0, r.currency),
    tax_lines: (r.tax_lines ?? []).map((t: Row) => ({
      rate_id: t.rate_id,
      name: t.name,
      percentage: Number(t.percentage),
      amount: fromMinor(t.amount_minor, r.currency),
    })),
    tax_total: fromMinor(r.tax_total_minor ?? 0, r.currency),
    prices_include_tax: r.prices_include_tax ?? false,
    customer_id: r.customer_id,
    payment_method: r.payment_method,
    line_items: items.map((i) => ({
      object: 'line_item' as const,
      id: i.id,
      product_id: i.product_id,
      variant_id: i.variant_id ?? null,
      name: i.name,
      sku: i.sku,
      quantity: Number(i.quantity),
      unit_price: fromMinor(i.unit_price_minor, r.currency),
      total: fromMinor(i.total_minor, r.currency),
      quantity_refunded: Number(i.quantity_refunded),
      discount: fromMinor(i.discount_minor ?? 0, r.currency),
      tax: fromMinor(i.tax_minor ?? 0, r.currency),
    })),
    ...detailsOf(r),
    amount_refunded: fromMinor(r.amount_refunded_minor, r.currency),
    refunds,
    fulfillment_status: statusOf(units, shippedUnits(fulfillments)),
    fulfillments,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    cancelled_at: isoOrNull(r.cancelled_at),
    cancel_reason: r.cancel_reason,
    attribution: r.attribution ?? null,
    wallet_amount: fromMinor(r.wallet_amount_minor ?? 0, r.currency),
    amount_due: fromMinor(Number(r.total_minor) - Number(r.wallet_amount_minor ?? 0), r.currency),
    channel: r.channel ?? 'api',
    agent: r.agent ?? null,
    shipping_method: r.shipping_method ?? null,
    shipping_total: fromMinor(r.shipping_total_minor ?? 0, r.currency),
  };
}

async function withItems(db: Db, orders: Row[]) {
  if (!orders.length) return [];
  const items = await db.query('SELECT * FROM order_line_items WHERE order_id = ANY($1::uuid[]) ORDER BY position', [orders.map((o) => o.id)]);
  const ids = orders.map((o) => o.id);
  const refunds = await refundsByOrder(db, ids);
  const shipments = await fulfillmentsByOrder(db, orders[0].store_id, ids);
  return orders.map((o) =>
    toOrder(
      o,
      items.filter((i) => i.order_id === o.id),
      refunds.get(o.id) ?? [],
      shipments.get(o.id) ?? [],
    ),
  );
}

export const orderRow = (db: Db, storeId: string, id: string, forUpdate = false) =>
  rowOr404(db, { table: 'orders', storeId, id, noun: 'order', lock: forUpdate ? 'FOR UPDATE' : undefined });

/**
 * An order row locked for a change: the unit lock first (fulfillment takes it before reading the
 * order), then the row, so fulfilments, refunds and status changes of one order queue up in one
 * lock order and never deadlock.
 */
export async function lockedOrder(db: Db, storeId: string, id: string) {
  await lockOrderUnits(db, storeId, id);
  return orderRow(db, storeId, id, true);
}

export async function getOrder(ctx: Ctx, id: string) {
  return (await withItems(ctx.db, [await orderRow(ctx.db, ctx.store.id, id)]))[0];
}

/** `q` is an order number as people write it: 1001 or #1001. */
const orderNumberOf = (q: string | undefined) => q?.trim().replace(/^#/, '');

export const listOrders = (ctx: Ctx, input: Static<typeof OrderQuery>) =>
  listPage(
    ctx,
    {
      table: 'orders',
      path: '/orders',
      input,
      filters: {
        // Several statuses: status=paid,fulfilled (the schema admits only known names).
        'status = ANY($::text[])': input.status?.split(','),
        // customer_id is free text on older orders, so an id sent in another case still matches.
        'lower(customer_id) = lower($)': input.customer_id,
        // Exact, so the (store_id, order_number) unique index answers it.
        'order_number = $': orderNumberOf(input.q),
        ...dateRangeFilters('created_at', input.created),
        ...metadataFilter(input.metadata),
      },
    },
    (rows) => withItems(ctx.db, rows),
  );

type Line = { product_id: string; variant_id?: string; quantity: number };

/** A line's stock item: the product, or product and variant. Lines for the same one merge. */
const lineKey = (l: Line) => `${l.product_id.toLowerCase()}/${l.variant_id?.toLowerCase() ?? ''}`;

/**
 * Merges repeated lines and sorts by product id (then variant), so concurrent orders lock
 * products in one order (no deadlock). Keeps each merged line's first position, for error params.
 */
function mergeLines(lines: Line[]) {
  const merged = new Map<string, { line: Line; position: number; quantity: number }>();
  lines.forEach((l, position) => {
    const key = lineKey(l);
    const seen = merged.get(key);
    if (seen) seen.quantity += l.quantity;
    else merged.set(key, { line: l, position, quantity: l.quantity });
  });
  return [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, m]) => m);
}

/** Creates the order and takes its stock in one transaction: all or nothing. */
export async function createOrder(ctx: Ctx, input: Static<typeof OrderCreate>) {
  return ctx.db.transaction(async (tx) => {
    // Taxed where it goes: the shipping address, else the billing one; neither, no tax. The first
    // read (before any lock) takes that country's rates, with the settings, customer and group prices.
    const address = input.shipping_address ?? input.billing_address ?? null;
    const { settings, customer, groupPrices, taxRates } = await firstRead(tx, ctx.store.id, {
      customerId: input.customer_id,
      productIds: [...new Set(input.line_items.map((l) => l.product_id.toLowerCase()))],
      country: address?.country,
    });
    // An order is for one of this store's customers, or for nobody: never for an id naming no one.
    if (customer === undefined) throw errors.notFound(`customer: '${input.customer_id}'`, 'customer_id');
    const customerId = customer?.id ?? null;
    const taken: { product: Row; variant: Row | null; position: number; quantity: number; allocations: Allocation[] }[] = [];
    const now = ctx.clock.now();
    for (const { line, position, quantity } of mergeLines(input.line_items)) {
      const productId = line.product_id.toLowerCase();
      const param = `line_items.${position}.product_id`;
      const product = await lockedProduct(tx, ctx.store.id, productId, param);
      if (product.status !== 'active') throw errors.validation(`Product '${productId}' is not active and cannot be ordered.`, param);
      const variantParam = `line_items.${position}.variant_id`;
      const variant = await variantFor(tx, ctx.store.id, product, line.variant_id?.toLowerCase(), variantParam);
      if (variant && variant.status !== 'active')
        throw errors.validation(`Variant '${variant.id}' is not active and cannot be ordered.`, variantParam);
      const allocations = await take(tx, ctx.store.id, productId, quantity, now, variant ? variantParam : param, variant?.id);
      taken.push({ product, variant, position, quantity, allocations });
    }
    const currencies = new Set(taken.map((t) => t.product.currency));
    if (currencies.size > 1) throw errors.validation('All line items must share one currency.', 'line_items');
    const currency = [...currencies][0];
    // Lines in the order given: codes and tax are worked out on them, and stored in that order.
    const ordered = [...taken].sort((a, b) => a.position - b.position);
    // Retail, or less for a customer whose groups have wholesale prices (the lowest applies).
    const units = unitPrices(
      groupPrices,
      ordered.map((t) => ({
        product_id: t.product.id,
        variant_id: t.variant?.id ?? null,
        quantity: t.quantity,
        unit_price_minor: Number((t.variant ?? t.product).price_minor),
        currency: t.product.currency,
      })),
    );
    const amounts = ordered.map((t, i) => units[i] * t.quantity);
    // Beyond 2^53 minor units the sum is no longer exact (and soon overflows bigint): refuse, never round.
    if (!Number.isSafeInteger(amounts.reduce((s, a) => s + a, 0))) throw errors.validation('The order total is too large.', 'line_items');
    const details = checkDetails(input);
    const priced = await priceOrder(tx, ctx.store.id, {
      lines: ordered.map((t, i) => ({ product_id: t.product.id, amount_minor: amounts[i], tax_class: t.product.tax_class ?? 'standard' })),
      codes: input.discount_codes ?? [],
      customerId,
      currency,
      now,
      address: details.shipping_address ?? details.billing_address ?? null,
      pricesIncludeTax: settings.prices_include_tax,
      rates: taxRates,
    });
    // Shipping (a checkout's chosen option) is added after tax, untaxed.
    const shippingMinor = input.shipping ? toMinor(input.shipping.amount, currency, 'shipping.amount') : 0;
    const totalMinor = priced.total + shippingMinor;
    const wallet = walletPart(input, customerId, currency, totalMinor);
    const [{ n }] = await tx.query<{ n: number }>(
      'UPDATE stores SET next_order_number = next_order_number + 1 WHERE id = $1 RETURNING next_order_number - 1 AS n',
      [ctx.store.id],
    );
    const params: unknown[] = [
      ctx.store.id,
      `${settings.order_number_prefix}${n}`,
      currency,
      totalMinor,
      customerId,
      input.payment_method ?? null,
      now,
      jsonParam(details.shipping_address),
      jsonParam(details.billing_address),
      details.customer_note ?? null,
      details.merchant_note ?? null,
      jsonParam(details.metadata ?? {}),
      jsonParam(input.attribution ? { qr_scan_id: input.attribution.qr_scan_id.toLowerCase() } : null),
      priced.subtotal,
      priced.discountTotal,
      priced.taxTotal,
      priced.pricesIncludeTax,
      JSON.stringify(priced.discounts),
      JSON.stringify(priced.taxLines),
      wallet.status ?? input.status ?? 'pending',
      wallet.minor,
      input.channel ?? 'api',
      jsonParam(input.agent ?? null),
      input.shipping?.method ?? null,
      shippingMinor,
    ];
    const param = (v: unknown) => `$${params.push(v)}`;
    // The coupons' redemptions and the tax ledger's rows go in the statement inserting the order
    // (their owners' CTEs over its row `o`): one round trip while the stock locks are held.
    const ctes = [...redemptionCtes(priced.discounts, param), ...orderTaxCtes(priced.taxLines, param)];
    const insert = `INSERT INTO orders (id, store_id, order_number, status, currency, total_minor, customer_id, payment_method, created_at, updated_at,
         shipping_address, billing_address, customer_note, merchant_note, metadata, attribution,
         subtotal_minor, discount_total_minor, tax_total_minor, prices_include_tax, discounts, tax_lines, wallet_amount_minor,
         channel, agent, shipping_method, shipping_total_minor)
       VALUES (gen_random_uuid(), $1, $2, $20, $3, $4, $5, $6, $7, $7, $8::text::jsonb, $9::text::jsonb, $10, $11, $12::text::jsonb, $13::text::jsonb,
         $14, $15, $16, $17, $18::text::jsonb, $19::text::jsonb, $21, $22, $23::text::jsonb, $24, $25) RETURNING *`;
    const [order] = await tx.query(ctes.length ? `WITH o AS (${insert}), ${ctes.join(', ')} SELECT * FROM o` : insert, params);
    await wallet.pay(tx, ctx.store.id, order.id, now);
    for (const [position, t] of ordered.entries()) {
      // A variant's line reads "Tee (M / red)" and carries the variant's SKU and price.
      const name = t.variant ? `${t.product.name} (${Object.values(t.variant.options).join(' / ')})` : t.product.name;
      const tax = priced.lineTax[position];
      const paid = amounts[position] - priced.lineDiscounts[position] + (priced.pricesIncludeTax ? 0 : tax.minor);
      await tx.query(
        `INSERT INTO order_line_items (id, order_id, store_id, position, product_id, variant_id, name, sku, quantity, unit_price_minor, total_minor, allocations,
           discount_minor, tax_minor, tax_rate_id, amount_paid_minor)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $11, $5, $6, $7, $8, $9, $10::text::jsonb, $12, $13, $14, $15)`,
        [
          order.id,
          ctx.store.id,
          position,
          t.product.id,
          name,
          (t.variant ?? t.product).sku,
          t.quantity,
          units[position],
          amounts[position],
          JSON.stringify(t.allocations),
          t.variant?.id ?? null,
          priced.lineDiscounts[position],
          tax.minor,
          tax.rate_id,
          paid,
        ],
      );
    }
    const created = (await withItems(tx, [order]))[0];
    ctx.emit('order.created', created);
    if (PAID.includes(created.status)) ctx.emit('order.paid', created);
    return created;
  });
}

/** The order's lines as fulfilment counts them. */
export async function unitLines(db: Db, orderId: string) {
  const rows = await db.query('SELECT id, quantity, quantity_refunded FROM order_line_items WHERE order_id = $1 ORDER BY position', [orderId]);
  return rows.map((i) => ({ id: i.id, quantity: Number(i.quantity), quantity_refunded: Number(i.quantity_refunded) }));
}

/** Puts every line's units back where they came from, locking products in id order. */
async function restock(tx: Db, storeId: string, orderId: string, now: Date) {
  const items = await tx.query(
    'SELECT product_id, variant_id, allocations FROM order_line_items WHERE order_id = $1 ORDER BY product_id, variant_id',
    [orderId],
  );
  // A product or variant deleted since the order took its units gets nothing back: its stock left with it.
  for (const item of items) await returnUnits(tx, storeId, item.product_id, item.allocations, now, item.variant_id);
}

/** Status transitions that have their own event besides order.updated (SPEC 6.1). */
const STATUS_EVENTS: Record<string, string> = { fulfilled: 'order.fulfilled', cancelled: 'order.cancelled' };

/** The statuses of an order whose payment was taken: entering one from another is "became paid". */
const PAID = ['paid', 'fulfilled', 'completed'];

/**
 * order.updated when the status, payment or details changed, plus order.fulfilled/cancelled on
 * entering those, and order.paid whenever the order becomes paid, however it got there (pending
 * straight to fulfilled or completed is paid too: reactions such as loyalty points count on it).
 */
function emitChanges(ctx: Ctx, before: Row, after: Static<typeof Order>, detailsChanged: boolean) {
  if (after.status === before.status && after.payment_method === before.payment_method && !detailsChanged) return;
  ctx.emit('order.updated', after);
  if (PAID.includes(after.status) && !PAID.includes(before.status)) ctx.emit('order.paid', after);
  if (after.status !== before.status && STATUS_EVENTS[after.status]) ctx.emit(STATUS_EVENTS[after.status], after);
}

/** Moves an order along TRANSITIONS (cancelling puts the stock back, with the cancel action's reason); sets addresses, notes, metadata. */
export async function updateOrder(ctx: Ctx, input: Static<typeof OrderUpdate>, cancelReason?: string) {
  return ctx.db.transaction(async (tx) => {
    const cur = await lockedOrder(tx, ctx.store.id, input.id);
    const status = input.status ?? cur.status;
    if (status !== cur.status && !TRANSITIONS[cur.status]?.includes(status))
      throw errors.conflict(`Cannot move an order from '${cur.status}' to '${status}'.`, 'conflict_error', 'status');
    const now = ctx.clock.now();
    if (status === 'cancelled' && cur.status !== 'cancelled') await restock(tx, ctx.store.id, cur.id, now);
    // The shortcut: fulfilled by PATCH ships every unit left, in one fulfilment without tracking.
    if (status === 'fulfilled' && cur.status !== 'fulfilled') await fulfillRemaining(tx, ctx.store.id, cur.id, await unitLines(tx, cur.id), now);
    const details = checkDetails(input, cur.metadata);
    const set = setClause(details, { json: ['shipping_address', 'billing_address', 'metadata'], after: 6 });
    const [row] = await tx.query(
      `UPDATE orders SET status = $3, payment_method = $4, updated_at = $5,
         cancelled_at = CASE WHEN $3 = 'cancelled' THEN coalesce(cancelled_at, $5) ELSE cancelled_at END,
         cancel_reason = CASE WHEN $3 = 'cancelled' AND cancelled_at IS NULL THEN $6 ELSE cancel_reason END${set.sql ? `, ${set.sql}` : ''}
       WHERE store_id = $1 AND id = $2 RETURNING *`,
      [ctx.store.id, cur.id, status, input.payment_method ?? cur.payment_method, now, cancelReason ?? null, ...set.params],
    );
    if (status !== cur.status) await setOrderTaxStatus(tx, ctx.store.id, cur.id, status);
    const order = (await withItems(tx, [row]))[0];
    emitChanges(ctx, cur, order, set.params.length > 0);
    return order;
  });
}

export async function cancelOrder(ctx: Ctx, id: string, reason?: string) {
  // Check under the row lock (ctx.db is the action's transaction): parallel cancels see each other.
  const cur = await lockedOrder(ctx.db, ctx.store.id, id);
  if (cur.status === 'cancelled') throw errors.conflict('This order is already cancelled.', 'conflict_error', 'id');
  return updateOrder(ctx, { id, status: 'cancelled' }, reason);
}
