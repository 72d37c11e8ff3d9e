import type { Static } from '@sinclair/typebox';
import { errors, type Ctx } from '../../core/sdk';
import type { TrackShipment } from './schemas';
import { poRow, toShipment } from './store';

/** `{po_id, carrier, tracking_number}` adds a shipment to a PO; `{id, status}` sets one's status. */
export async function trackShipment(ctx: Ctx, input: Static<typeof TrackShipment>) {
  const now = ctx.clock.now();
  if (input.id) {
    if (!input.status) throw errors.validation('Invalid status: required with id (pending, in_transit, delivered, exception).', 'status');
    const [r] = await ctx.db.query('UPDATE po_shipments SET status = $3, updated_at = $4 WHERE store_id = $1 AND id = $2 RETURNING *', [
      ctx.store.id,
      input.id.toLowerCase(),
      input.status,
      now,
    ]);
    if (!r) throw errors.notFound(`shipment: '${input.id}'`, 'id');
    return toShipment(r);
  }
  for (const f of ['po_id', 'carrier', 'tracking_number'] as const)
    if (!input[f]) throw errors.validation(`Invalid ${f}: required for a new shipment (or give id and status to update one).`, f);
  const po = await poRow(ctx, input.po_id!, false, 'po_id');
  const [r] = await ctx.db.query(
    `INSERT INTO po_shipments (id, store_id, po_id, carrier, tracking_number, status, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $6) RETURNING *`,
    [ctx.store.id, po.id, input.carrier!.toLowerCase(), input.tracking_number, input.status ?? 'pending', now],
  );
  return toShipment(r);
}
