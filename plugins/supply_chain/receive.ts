import type { Static } from '@sinclair/typebox';
import { errors, fail, type Ctx } from '../../core/sdk';
import { defaultLocation } from '../locations/public';
import type { PoReceive } from './schemas';
import { poRow, toPos } from './store';

/**
 * Goods arrived: every line or none. The PO's row lock is taken first, so two receipts racing on
 * one PO run one after the other and the second sees what the first received (never more than
 * ordered). Stock moves through inventory's adjust_stock, one call (one inventory.adjusted) per
 * product of this receipt, in this transaction: a failure rolls the receipt back whole.
 */
export async function receivePo(ctx: Ctx, input: Static<typeof PoReceive>) {
  const po = await poRow(ctx, input.id, true);
  if (po.status !== 'sent' && po.status !== 'partially_received')
    throw fail('invalid_po_status', `The purchase order is ${po.status}: only a sent or partially received one receives goods.`, 'id');
  const lines = await ctx.db.query('SELECT * FROM purchase_order_lines WHERE store_id = $1 AND po_id = $2', [ctx.store.id, po.id]);
  const adding = new Map<string, number>();
  const byProduct = new Map<string, number>();
  for (const [i, l] of input.line_items.entries()) {
    const id = l.line_item_id.toLowerCase();
    const line = lines.find((x) => x.id === id);
    if (!line) throw errors.notFound(`purchase order line: '${l.line_item_id}'`, `line_items.${i}.line_item_id`);
    const total = (adding.get(id) ?? 0) + l.quantity;
    if (line.received + total > line.quantity)
      throw fail(
        'over_receipt',
        `Line ${id} ordered ${line.quantity} and has received ${line.received}: ${total} more is over what was ordered. Nothing was received.`,
        `line_items.${i}.quantity`,
      );
    adding.set(id, total);
    byProduct.set(line.product_id, (byProduct.get(line.product_id) ?? 0) + l.quantity);
  }
  const location = po.location_id ?? (await defaultLocation(ctx.db, ctx.store.id, ctx.clock.now()));
  for (const [product_id, delta] of byProduct)
    await ctx.call('inventory.adjust_stock', { product_id, location_id: location, delta, reason: `received: purchase order ${po.id}` });
  for (const [id, qty] of adding)
    await ctx.db.query('UPDATE purchase_order_lines SET received = received + $3 WHERE store_id = $1 AND id = $2', [ctx.store.id, id, qty]);
  const [{ open }] = await ctx.db.query<{ open: number }>(
    'SELECT count(*)::int AS open FROM purchase_order_lines WHERE store_id = $1 AND po_id = $2 AND received < quantity',
    [ctx.store.id, po.id],
  );
  const [r] = await ctx.db.query('UPDATE purchase_orders SET status = $3, updated_at = $4 WHERE store_id = $1 AND id = $2 RETURNING *', [
    ctx.store.id,
    po.id,
    open === 0 ? 'received' : 'partially_received',
    ctx.clock.now(),
  ]);
  return (await toPos(ctx.db, ctx.store.id, [r]))[0];
}
