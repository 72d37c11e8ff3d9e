import type { Static } from '@sinclair/typebox';
import { errors, fail, rowOr404, setClause, type Ctx } from '../../core/sdk';
import { fulfillmentsByOrder, insertFulfillment, lockOrderUnits, shippedUnits, statusOf, toFulfillment, unitsLeft, type UnitLine } from './public';
import type { Fulfillment, FulfillmentCreate, Status, TrackingUpdate } from './schemas';

/** What fulfilment reads of an order (orders' get_order answers more). */
interface OrderView {
  id: string;
  order_number: string;
  status: string;
  line_items: { id: string; quantity: number; quantity_refunded: number }[];
}

/** The order as orders answers it (404 naming `order_id`), with what each line has shipped. */
async function orderUnits(ctx: Ctx, orderId: string) {
  const order: OrderView = await ctx.call('orders.get_order', { id: orderId }, { notFoundParam: 'order_id' });
  const lines: UnitLine[] = order.line_items.map((l) => ({ id: l.id, quantity: l.quantity, quantity_refunded: l.quantity_refunded }));
  const fulfillments = (await fulfillmentsByOrder(ctx.db, ctx.store.id, [order.id])).get(order.id) ?? [];
  return { order, lines, fulfillments, shipped: shippedUnits(fulfillments) };
}

export async function getStatus(ctx: Ctx, orderId: string): Promise<Static<typeof Status>> {
  const { order, lines, fulfillments, shipped } = await orderUnits(ctx, orderId);
  return {
    object: 'fulfillment_status',
    order_id: order.id,
    status: statusOf(lines, shipped),
    order_status: order.status,
    lines: lines.map((l) => ({
      line_item_id: l.id,
      quantity: l.quantity,
      quantity_refunded: l.quantity_refunded,
      quantity_fulfilled: shipped.get(l.id) ?? 0,
      quantity_remaining: unitsLeft(l, shipped.get(l.id) ?? 0),
    })),
    fulfillments,
  };
}

/** The units asked for, repeats of a line adding up; none asked: every unit left. */
function wantedUnits(input: Static<typeof FulfillmentCreate>, lines: UnitLine[], shipped: Map<string, number>) {
  const left = (l: UnitLine) => unitsLeft(l, shipped.get(l.id) ?? 0);
  if (!input.line_items) {
    const all = lines.filter((l) => left(l) > 0).map((l) => ({ line_item_id: l.id, quantity: left(l) }));
    if (!all.length) throw fail('fulfillment_exceeds_quantity', 'Every unit of this order was already fulfilled or refunded.', 'order_id');
    return all;
  }
  const byId = new Map(lines.map((l) => [l.id.toLowerCase(), l]));
  const wanted = new Map<string, number>();
  for (const [n, asked] of input.line_items.entries()) {
    const line = byId.get(asked.line_item_id.toLowerCase());
    if (!line) throw errors.notFound(`line item of this order: '${asked.line_item_id}'`, `line_items.${n}.line_item_id`);
    const total = (wanted.get(line.id) ?? 0) + asked.quantity;
    if (total > left(line))
      throw fail(
        'fulfillment_exceeds_quantity',
        `Line '${line.id}' has ${left(line)} of ${line.quantity} units left to fulfil (${shipped.get(line.id) ?? 0} shipped, ${line.quantity_refunded} refunded); ${total} asked.`,
        `line_items.${n}.quantity`,
      );
    wanted.set(line.id, total);
  }
  return [...wanted].map(([line_item_id, quantity]) => ({ line_item_id, quantity }));
}

/**
 * Ships units of a paid order. Under the order's unit lock (orders takes it too, before its row
 * lock), so parallel fulfilments and refunds of one order see each other and never ship a unit
 * twice. Once every unit not refunded has shipped, the order moves to fulfilled through orders'
 * own action, which emits order.fulfilled (once: the order leaves `paid`).
 */
export async function createFulfillment(ctx: Ctx, input: Static<typeof FulfillmentCreate>): Promise<Static<typeof Fulfillment>> {
  await lockOrderUnits(ctx.db, ctx.store.id, input.order_id);
  const { order, lines, shipped } = await orderUnits(ctx, input.order_id);
  if (order.status !== 'paid')
    throw errors.conflict(`Order ${order.order_number} is ${order.status}; only a paid order can be fulfilled.`, 'conflict_error', 'order_id');
  const fulfillment = await insertFulfillment(ctx.db, ctx.store.id, {
    order_id: order.id,
    lines: wantedUnits(input, lines, shipped),
    carrier: input.carrier,
    tracking_number: input.tracking_number,
    tracking_url: input.tracking_url,
    now: ctx.clock.now(),
  });
  ctx.emit('fulfillment.created', fulfillment);
  for (const l of fulfillment.line_items) shipped.set(l.line_item_id, (shipped.get(l.line_item_id) ?? 0) + l.quantity);
  if (statusOf(lines, shipped) === 'fulfilled') await ctx.call('orders.update_order', { id: order.id, status: 'fulfilled' });
  else ctx.emit('order.updated', await ctx.call('orders.get_order', { id: order.id }));
  return fulfillment;
}

/** Tracking changes after shipping (a new carrier, a corrected number); `null` clears a field. */
export async function updateTracking(ctx: Ctx, input: Static<typeof TrackingUpdate>) {
  const cur = await rowOr404(ctx.db, { table: 'fulfillments', storeId: ctx.store.id, id: input.id, noun: 'fulfillment', lock: 'FOR UPDATE' });
  const { id: _, ...fields } = input;
  const set = setClause(fields, { after: 3 });
  if (!set.sql) return toFulfillment(cur);
  const [r] = await ctx.db.query(`UPDATE fulfillments SET updated_at = $3, ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *`, [
    ctx.store.id,
    cur.id,
    ctx.clock.now(),
    ...set.params,
  ]);
  const fulfillment = toFulfillment(r);
  ctx.emit('fulfillment.updated', fulfillment);
  return fulfillment;
}

export const getFulfillment = async (ctx: Ctx, id: string) =>
  toFulfillment(await rowOr404(ctx.db, { table: 'fulfillments', storeId: ctx.store.id, id, noun: 'fulfillment' }));
