import type { Static } from '@sinclair/typebox';
import { errors, fail, fromMinor, iso, listPage, rowOr404, stamps, toMinor, type Ctx, type Db, type Row } from '../../core/sdk';
import { productsIn } from '../products/public';
import { locationsIn } from '../locations/public';
import { storeSettings } from '../store/public';
import type { PoCreate, PoQuery, SupplierCreate } from './schemas';

const toSupplier = (r: Row) => ({
  object: 'supplier' as const,
  id: r.id,
  name: r.name,
  email: r.email ?? null,
  phone: r.phone ?? null,
  ...stamps(r),
});

export const toShipment = (r: Row) => ({
  object: 'shipment' as const,
  id: r.id,
  po_id: r.po_id,
  carrier: r.carrier,
  tracking_number: r.tracking_number,
  status: r.status,
  occurred_at: r.occurred_at == null ? null : iso(r.occurred_at),
  ...stamps(r),
});

export const listSuppliers = (ctx: Ctx, input: any) =>
  listPage(ctx, { table: 'suppliers', path: '/suppliers', input }, (rows) => rows.map(toSupplier));

export async function createSupplier(ctx: Ctx, input: Static<typeof SupplierCreate>) {
  const now = ctx.clock.now();
  const [r] = await ctx.db.query(
    `INSERT INTO suppliers (id, store_id, name, email, phone, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $5) RETURNING *`,
    [ctx.store.id, input.name, input.email ?? null, input.phone ?? null, now],
  );
  return toSupplier(r);
}

/** POs with their lines and shipments, in the order of `rows`. */
async function toPos(db: Db, storeId: string, rows: Row[]) {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const lines = await db.query('SELECT * FROM purchase_order_lines WHERE store_id = $1 AND po_id = ANY($2) ORDER BY position', [storeId, ids]);
  const ships = await db.query('SELECT * FROM po_shipments WHERE store_id = $1 AND po_id = ANY($2) ORDER BY seq', [storeId, ids]);
  return rows.map((r) => {
    const mine = lines.filter((l) => l.po_id === r.id);
    const totalMinor = mine.reduce((s, l) => s + Number(l.unit_cost_minor) * l.quantity, 0);
    return {
      object: 'purchase_order' as const,
      id: r.id,
      supplier_id: r.supplier_id,
      location_id: r.location_id ?? null,
      status: r.status,
      currency: r.currency,
      line_items: mine.map((l) => ({
        id: l.id,
        product_id: l.product_id,
        quantity: l.quantity,
        received_quantity: l.received,
        unit_cost: fromMinor(l.unit_cost_minor, r.currency),
      })),
      total: fromMinor(totalMinor, r.currency),
      shipments: ships.filter((s) => s.po_id === r.id).map(toShipment),
      ...stamps(r),
    };
  });
}

export const listPos = (ctx: Ctx, input: Static<typeof PoQuery>) =>
  listPage(
    ctx,
    {
      table: 'purchase_orders',
      path: '/purchase-orders',
      input,
      filters: { 'status = $': input.status, 'supplier_id = $': input.supplier_id?.toLowerCase() },
    },
    (rows) => toPos(ctx.db, ctx.store.id, rows),
  );

/** One PO; `lock` holds its row until the transaction ends (every transition and receipt takes it). */
export async function poRow(ctx: Ctx, id: string, lock = false, param = 'id') {
  const [r] = await ctx.db.query(`SELECT * FROM purchase_orders WHERE store_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [
    ctx.store.id,
    id.toLowerCase(),
  ]);
  if (!r) throw errors.notFound(`purchase order: '${id}'`, param);
  return r;
}

export const getPo = async (ctx: Ctx, id: string) => (await toPos(ctx.db, ctx.store.id, [await poRow(ctx, id)]))[0];

export async function createPo(ctx: Ctx, input: Static<typeof PoCreate>) {
  await rowOr404(ctx.db, { table: 'suppliers', storeId: ctx.store.id, id: input.supplier_id, noun: 'supplier', param: 'supplier_id' });
  if (input.location_id && !(await locationsIn(ctx.db, ctx.store.id, [input.location_id])).size)
    throw errors.notFound(`location: '${input.location_id}'`, 'location_id');
  const wanted = input.line_items.map((l) => l.product_id.toLowerCase());
  const found = await productsIn(ctx.db, ctx.store.id, wanted);
  const missing = wanted.findIndex((p) => !found.has(p));
  if (missing >= 0) throw errors.notFound(`product: '${wanted[missing]}'`, `line_items.${missing}.product_id`);
  const { currency } = await storeSettings(ctx.db, ctx.store.id);
  const costs = input.line_items.map((l, i) => toMinor(l.unit_cost, currency, `line_items.${i}.unit_cost`));
  const now = ctx.clock.now();
  const [po] = await ctx.db.query(
    `INSERT INTO purchase_orders (id, store_id, supplier_id, location_id, status, currency, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, 'draft', $4, $5, $5) RETURNING *`,
    [ctx.store.id, input.supplier_id.toLowerCase(), input.location_id?.toLowerCase() ?? null, currency, now],
  );
  for (const [i, l] of input.line_items.entries())
    await ctx.db.query(
      `INSERT INTO purchase_order_lines (id, store_id, po_id, position, product_id, quantity, unit_cost_minor)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6)`,
      [ctx.store.id, po.id, i, wanted[i], l.quantity, costs[i]],
    );
  return (await toPos(ctx.db, ctx.store.id, [po]))[0];
}

/** A status change allowed only from `from`: anything else is 409 invalid_po_status, naming where the PO is. */
export async function transition(ctx: Ctx, id: string, from: string[], to: string) {
  const po = await poRow(ctx, id, true);
  if (!from.includes(po.status))
    throw fail('invalid_po_status', `The purchase order is ${po.status}: it cannot become ${to} (only from ${from.join(' or ')}).`, 'id');
  const [r] = await ctx.db.query('UPDATE purchase_orders SET status = $3, updated_at = $4 WHERE store_id = $1 AND id = $2 RETURNING *', [
    ctx.store.id,
    po.id,
    to,
    ctx.clock.now(),
  ]);
  return (await toPos(ctx.db, ctx.store.id, [r]))[0];
}

export { toPos };
