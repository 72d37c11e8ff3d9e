import type { Static } from '@sinclair/typebox';
import { recordRefundTax } from '../tax/public';
import { creditRefund } from '../wallet/public';
import { decimalsOf, errors, fail, fromMinor, jsonParam, listPage, toMinor, type Ctx, type Db, type Row } from '../../core/sdk';
import type { Allocation } from '../inventory/public';
import { returnUnits } from './restock';
import { toRefund } from './refund-rows';
import type { RefundCreate, RefundQuery } from './refund-schemas';
import { getOrder, lockedOrder, orderRow, unitLines, updateOrder } from './store';
import { fulfillmentsByOrder, shippedUnits, statusOf } from '../fulfillment/public';

/**
 * Refunds (README, Orders: refunds). Money goes back only for what was paid: an order is
 * refundable once paid (paid, fulfilled, completed); a pending order has taken no money and a
 * cancelled one is closed. Everything happens under the order's row lock, so parallel refunds
 * queue up and each sees what the ones before it gave back: the sum never passes the total (and
 * the CHECK on orders.amount_refunded_minor would refuse it if it did).
 */
export const REFUNDABLE = ['paid', 'fulfilled', 'completed'];

/** An amount as messages show it: 12.50 USD, 1200 JPY. */
const money = (minor: number, currency: string) => `${fromMinor(minor, currency).toFixed(decimalsOf(currency))} ${currency}`;

interface RefundedLine {
  item: Row;
  quantity: number;
  amount_minor: number;
}

/**
 * What `quantity` more units of a line give back: their share of what was paid for the line
 * (after its discounts, with its tax when added on top), taken as the difference of two
 * cumulative half-up shares, so the refunds of every unit add up to exactly what was paid.
 */
function paidFor(item: Row, quantity: number) {
  const paid = BigInt(item.amount_paid_minor ?? item.total_minor);
  const units = BigInt(item.quantity);
  const share = (q: number) => (2n * paid * BigInt(q) + units) / (2n * units);
  const before = Number(item.quantity_refunded);
  return Number(share(before + quantity) - share(before));
}

/** The units refunded: the lines asked for (repeats of one line add up), or for a full refund every unit not yet refunded. */
function refundedLines(items: Row[], input: Static<typeof RefundCreate>, full: boolean): RefundedLine[] {
  if (!input.lines) {
    if (!full) return [];
    return items
      .filter((i) => Number(i.quantity) > Number(i.quantity_refunded))
      .map((item) => ({ item, quantity: Number(item.quantity) - Number(item.quantity_refunded), amount_minor: 0 }))
      .map((l) => ({ ...l, amount_minor: paidFor(l.item, l.quantity) }));
  }
  const byId = new Map(items.map((i) => [String(i.id).toLowerCase(), i]));
  const wanted = new Map<string, RefundedLine>();
  for (const [n, line] of input.lines.entries()) {
    const item = byId.get(line.line_item_id.toLowerCase());
    if (!item) throw errors.notFound(`line item of this order: '${line.line_item_id}'`, `lines.${n}.line_item_id`);
    const entry = wanted.get(item.id) ?? { item, quantity: 0, amount_minor: 0 };
    entry.quantity += line.quantity;
    const left = Number(item.quantity) - Number(item.quantity_refunded);
    if (entry.quantity > left)
      throw fail(
        'refund_exceeds_quantity',
        `Line '${item.id}' (${item.name}) has ${left} of ${item.quantity} units left to refund; ${entry.quantity} asked.`,
        `lines.${n}.quantity`,
      );
    entry.amount_minor = paidFor(item, entry.quantity);
    wanted.set(item.id, entry);
  }
  return [...wanted.values()];
}

/** Takes `quantity` units off a line's allocations (where its units came from): the part to put back, and what the order still holds. */
function splitAllocations(allocations: Allocation[], quantity: number) {
  const back: Allocation[] = [];
  const kept: Allocation[] = [];
  let left = quantity;
  for (const a of allocations) {
    const n = Math.min(left, a.quantity);
    if (n > 0) back.push({ location_id: a.location_id, quantity: n });
    if (a.quantity - n > 0) kept.push({ location_id: a.location_id, quantity: a.quantity - n });
    left -= n;
  }
  return { back, kept };
}

/** Marks the units refunded and, with restock, puts them back where they were taken from (products locked in id order, as orders lock them). */
async function settleLines(tx: Db, ctx: Ctx, lines: RefundedLine[], restock: boolean) {
  const now = ctx.clock.now();
  for (const { item, quantity } of [...lines].sort((a, b) => (a.item.product_id < b.item.product_id ? -1 : 1))) {
    let allocations: Allocation[] = item.allocations;
    if (restock) {
      const { back, kept } = splitAllocations(item.allocations, quantity);
      // A product or variant deleted since has no stock to return to; its units stay with the order's books.
      if (await returnUnits(tx, ctx.store.id, item.product_id, back, now, item.variant_id)) allocations = kept;
    }
    await tx.query('UPDATE order_line_items SET quantity_refunded = quantity_refunded + $2, allocations = $3::text::jsonb WHERE id = $1', [
      item.id,
      quantity,
      jsonParam(allocations),
    ]);
  }
}

export async function createRefund(ctx: Ctx, input: Static<typeof RefundCreate>) {
  const order = await lockedOrder(ctx.db, ctx.store.id, input.id);
  if (!REFUNDABLE.includes(order.status))
    throw fail(
      'order_not_refundable',
      `Order ${order.order_number} is ${order.status}; only paid, fulfilled or completed orders can be refunded.`,
      'id',
    );
  const currency: string = order.currency;
  const left = Number(order.total_minor) - Number(order.amount_refunded_minor);
  const full = input.amount === undefined && input.lines === undefined;
  if (input.restock && !input.lines && !full)
    throw errors.validation('Invalid restock: say which units come back with `lines` (or leave out amount for a full refund).', 'restock');
  const items = await ctx.db.query('SELECT * FROM order_line_items WHERE order_id = $1 ORDER BY position', [order.id]);
  const lines = refundedLines(items, input, full);
  const amount = input.amount !== undefined ? toMinor(input.amount, currency, 'amount') : full ? left : lines.reduce((s, l) => s + l.amount_minor, 0);
  if (amount === 0 && left > 0) throw errors.validation('These lines were sold for nothing; give an amount to refund, or leave them out.', 'lines');
  if (amount > left || amount === 0)
    throw fail(
      'refund_exceeds_paid',
      `${left === 0 ? 'Nothing' : `Only ${money(left, currency)}`} of order ${order.order_number}'s ${money(Number(order.total_minor), currency)} is left to refund${amount > 0 ? `; ${money(amount, currency)} asked` : ''}.`,
      input.amount !== undefined ? 'amount' : input.lines ? 'lines' : 'id',
    );
  await settleLines(ctx.db, ctx, lines, input.restock ?? false);
  const now = ctx.clock.now();
  const [row] = await ctx.db.query(
    `INSERT INTO order_refunds (id, store_id, order_id, amount_minor, currency, reason, restock, lines, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7::text::jsonb, $8) RETURNING *`,
    [
      ctx.store.id,
      order.id,
      amount,
      currency,
      input.reason ?? null,
      input.restock ?? false,
      jsonParam(lines.map((l) => ({ line_item_id: l.item.id, quantity: l.quantity, amount_minor: l.amount_minor }))),
      now,
    ],
  );
  // The tax report takes this refund's share of the order's tax back on today's date.
  await recordRefundTax(ctx.db, ctx.store.id, {
    orderId: order.id,
    refundId: row.id,
    amountMinor: amount,
    orderTotalMinor: Number(order.total_minor),
    at: now,
  });
  // Store credit spent on the order comes back to the wallet first; the rest goes back as it was paid.
  await creditRefund(ctx.db, ctx.store.id, { orderId: order.id, refundId: row.id, amountMinor: amount, now });
  await ctx.db.query('UPDATE orders SET amount_refunded_minor = amount_refunded_minor + $3, updated_at = $4 WHERE store_id = $1 AND id = $2', [
    ctx.store.id,
    order.id,
    amount,
    now,
  ]);
  const refund = toRefund(row);
  ctx.emit('refund.created', refund);
  // Refunding the last unshipped units of a partly shipped paid order leaves nothing to ship: it is fulfilled now.
  if (order.status === 'paid' && lines.length && (await nothingLeftToShip(ctx, order.id)))
    await updateOrder(ctx, { id: order.id, status: 'fulfilled' });
  else ctx.emit('order.updated', await getOrder(ctx, order.id));
  return refund;
}

async function nothingLeftToShip(ctx: Ctx, orderId: string) {
  const shipped = shippedUnits((await fulfillmentsByOrder(ctx.db, ctx.store.id, [orderId])).get(orderId) ?? []);
  return statusOf(await unitLines(ctx.db, orderId), shipped) === 'fulfilled';
}

export async function listRefunds(ctx: Ctx, input: Static<typeof RefundQuery>) {
  const order = await orderRow(ctx.db, ctx.store.id, input.id);
  return listPage(ctx, { table: 'order_refunds', path: `/orders/${order.id}/refunds`, input, filters: { 'order_id = $': order.id } }, (rows) =>
    rows.map(toRefund),
  );
}
