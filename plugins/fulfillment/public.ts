/**
 * What orders use of fulfillment: an order's fulfilments and status for its API shape, the lock
 * that orders every change to an order's units, and the shortcut that ships whatever is left.
 * A plugin importing this declares `requires: ['fulfillment']` (orders does; fulfillment reaches
 * orders back through `ctx.call`, declared in its `calls`).
 */
import type { Static } from '@sinclair/typebox';
import { existingIds, iso, jsonParam, lockKey, type Db, type Row } from '../../core/sdk';
import type { Fulfillment, FULFILLMENT_STATUSES } from './schemas';

export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

/** Which of `ids` are fulfilments of the store. */
export const fulfillmentsIn = (db: Db, storeId: string, ids: readonly string[]) => existingIds(db, { table: 'fulfillments', storeId, ids });

/**
 * Serialises what changes an order's units (fulfilments, refunds, status changes): taken before
 * the order's row lock by both plugins, so the two never wait on each other in opposite orders.
 */
export const lockOrderUnits = (db: Db, storeId: string, orderId: string) => lockKey(db, storeId, `order-units:${orderId.toLowerCase()}`);

export const toFulfillment = (r: Row): Static<typeof Fulfillment> => ({
  object: 'fulfillment',
  id: r.id,
  order_id: r.order_id,
  carrier: r.carrier,
  tracking_number: r.tracking_number,
  tracking_url: r.tracking_url,
  line_items: (r.line_items as Row[]).map((l) => ({ line_item_id: l.line_item_id, quantity: Number(l.quantity) })),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

/** The fulfilments of these orders, oldest first, by order id: one query for a page of orders. */
export async function fulfillmentsByOrder(db: Db, storeId: string, orderIds: string[]) {
  const byOrder = new Map<string, Static<typeof Fulfillment>[]>();
  if (!orderIds.length) return byOrder;
  const rows = await db.query('SELECT * FROM fulfillments WHERE store_id = $1 AND order_id = ANY($2::uuid[]) ORDER BY seq', [storeId, orderIds]);
  for (const r of rows) byOrder.set(r.order_id, [...(byOrder.get(r.order_id) ?? []), toFulfillment(r)]);
  return byOrder;
}

/** An order line as fulfilment counts it. */
export interface UnitLine {
  id: string;
  quantity: number;
  quantity_refunded: number;
}

/** Units shipped per line item id. */
export function shippedUnits(fulfillments: { line_items: { line_item_id: string; quantity: number }[] }[]) {
  const shipped = new Map<string, number>();
  for (const f of fulfillments) for (const l of f.line_items) shipped.set(l.line_item_id, (shipped.get(l.line_item_id) ?? 0) + l.quantity);
  return shipped;
}

/** Units neither shipped nor refunded: a refund takes unshipped units first (a return of shipped ones leaves none to ship). */
export const unitsLeft = (line: UnitLine, shipped: number) => Math.max(0, line.quantity - line.quantity_refunded - shipped);

/** unfulfilled until a unit ships; fulfilled once every unit not refunded has shipped. */
export function statusOf(lines: UnitLine[], shipped: Map<string, number>): FulfillmentStatus {
  const any = lines.some((l) => (shipped.get(l.id) ?? 0) > 0);
  if (!any) return 'unfulfilled';
  return lines.every((l) => unitsLeft(l, shipped.get(l.id) ?? 0) === 0) ? 'fulfilled' : 'partially_fulfilled';
}

/** Writes one fulfilment of these units (the caller checked them under lockOrderUnits). */
export async function insertFulfillment(
  db: Db,
  storeId: string,
  f: {
    order_id: string;
    lines: { line_item_id: string; quantity: number }[];
    carrier?: string | null;
    tracking_number?: string | null;
    tracking_url?: string | null;
    now: Date;
  },
) {
  const [r] = await db.query(
    `INSERT INTO fulfillments (id, store_id, order_id, carrier, tracking_number, tracking_url, line_items, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6::text::jsonb, $7, $7) RETURNING *`,
    [storeId, f.order_id, f.carrier ?? null, f.tracking_number ?? null, f.tracking_url ?? null, jsonParam(f.lines), f.now],
  );
  return toFulfillment(r);
}

/**
 * The `PATCH /orders/{id} {status: "fulfilled"}` shortcut: ships every unit left in one fulfilment
 * without tracking (none when nothing is left). The caller holds lockOrderUnits.
 */
export async function fulfillRemaining(db: Db, storeId: string, orderId: string, lines: UnitLine[], now: Date) {
  const shipped = shippedUnits((await fulfillmentsByOrder(db, storeId, [orderId])).get(orderId) ?? []);
  const left = lines.map((l) => ({ line_item_id: l.id, quantity: unitsLeft(l, shipped.get(l.id) ?? 0) })).filter((l) => l.quantity > 0);
  if (!left.length) return null;
  return insertFulfillment(db, storeId, { order_id: orderId, lines: left, now });
}

// The shapes orders shows on every order (`fulfillments`, `fulfillment_status`).
export { Fulfillment, FulfillmentStatus as FulfillmentStatusSchema } from './schemas';

/** Shipping zones (issue 50): the options a checkout offers for an address. */
export { shippingQuotes, shippingZoneCount, type ShippingQuote } from './quotes';
