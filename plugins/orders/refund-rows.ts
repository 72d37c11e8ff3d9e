import type { Static } from '@sinclair/typebox';
import { fromMinor, iso, type Db, type Row } from '../../core/sdk';
import type { Refund } from './refund-schemas';

export function toRefund(r: Row): Static<typeof Refund> {
  return {
    object: 'refund',
    id: r.id,
    order_id: r.order_id,
    amount: fromMinor(r.amount_minor, r.currency),
    currency: r.currency,
    reason: r.reason,
    restock: r.restock,
    lines: r.lines.map((l: Row) => ({
      line_item_id: l.line_item_id,
      quantity: Number(l.quantity),
      amount: fromMinor(l.amount_minor, r.currency),
    })),
    created_at: iso(r.created_at),
  };
}

/** The refunds of these orders, oldest first, by order id: one query for a whole page of orders. */
export async function refundsByOrder(db: Db, orderIds: string[]): Promise<Map<string, Static<typeof Refund>[]>> {
  const byOrder = new Map<string, Static<typeof Refund>[]>();
  if (!orderIds.length) return byOrder;
  for (const r of await db.query('SELECT * FROM order_refunds WHERE order_id = ANY($1::uuid[]) ORDER BY seq', [orderIds])) {
    const list = byOrder.get(r.order_id) ?? [];
    list.push(toRefund(r));
    byOrder.set(r.order_id, list);
  }
  return byOrder;
}
