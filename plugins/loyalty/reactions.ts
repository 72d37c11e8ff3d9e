import { toMinor, type Ctx } from '../../core/sdk';
import { customerIdIn } from '../customers/public';
import { appendEntry, balanceOf, lockCustomer, pointsFor, pointsPerUnit } from './store';

interface PaidOrder {
  id: string;
  order_number: string;
  customer_id: string | null;
  currency: string;
  subtotal: number;
  discount_total: number;
}

/**
 * An order paid earns points_per_unit per whole 1.00 of its subtotal after discounts (no tax, no
 * shipping), naming the order; once per order (a unique index), whatever runs this again.
 */
export async function earn(ctx: Ctx, order: PaidOrder) {
  const customerId = order.customer_id && (await customerIdIn(ctx.db, ctx.store.id, order.customer_id));
  if (!customerId) return;
  const base = toMinor(order.subtotal, order.currency, 'subtotal') - toMinor(order.discount_total, order.currency, 'discount_total');
  const points = pointsFor(base, order.currency, await pointsPerUnit(ctx.db, ctx.store.id));
  if (!points) return;
  const entry = await appendEntry(
    ctx.db,
    ctx.store.id,
    { customer_id: customerId, points, kind: 'earn', reason: `Order ${order.order_number}`, order_id: order.id },
    ctx.clock.now(),
  );
  if (entry) ctx.emit('loyalty_entry.created', entry);
}

/**
 * A refund takes back its share of what the order earned: the refunds up to this one (oldest
 * first) over the order's total, rounded down cumulatively, so a full refund takes back exactly
 * what was earned. Never below zero: points already spent are not taken twice.
 */
export async function takeBack(ctx: Ctx, refund: { id: string; order_id: string; amount: number; currency: string }) {
  const [earned] = await ctx.db.query(`SELECT customer_id, points FROM loyalty_entries WHERE store_id = $1 AND order_id = $2 AND kind = 'earn'`, [
    ctx.store.id,
    refund.order_id,
  ]);
  if (!earned) return;
  const order = await ctx.call('orders.get_order', { id: refund.order_id });
  const total = toMinor(order.total, order.currency, 'total');
  const at = order.refunds.findIndex((r) => r.id === refund.id);
  if (at < 0 || total <= 0) return;
  const minor = (x: number) => toMinor(x, order.currency, 'amount');
  const before = order.refunds.slice(0, at).reduce((s, r) => s + minor(r.amount), 0);
  const after = before + minor(refund.amount);
  const share = (refunded: number) => Number((BigInt(earned.points) * BigInt(Math.min(refunded, total))) / BigInt(total));
  const owed = share(after) - share(before);
  if (owed <= 0) return;
  await lockCustomer(ctx.db, ctx.store.id, earned.customer_id);
  const take = Math.min(owed, await balanceOf(ctx.db, ctx.store.id, earned.customer_id));
  if (take <= 0) return;
  const entry = await appendEntry(
    ctx.db,
    ctx.store.id,
    {
      customer_id: earned.customer_id,
      points: -take,
      kind: 'refund',
      reason: `Refund of order ${order.order_number}`,
      order_id: order.id,
      refund_id: refund.id,
    },
    ctx.clock.now(),
  );
  if (entry) ctx.emit('loyalty_entry.created', entry);
}
