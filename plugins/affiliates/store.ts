import type { Static } from '@sinclair/typebox';
import {
  decimalsOf,
  errors,
  fail,
  fromMinor,
  iso,
  jsonParam,
  listPage,
  rowOr404,
  toMinor,
  unique,
  type Ctx,
  type Db,
  type Row,
} from '../../core/sdk';
import { productsIn } from '../products/public';
import { storeSettings } from '../store/public';
import { commissionMinor } from './commission';
import type { Affiliate, AffiliateCreate, AffiliateQuery, Attribution, Commission, Payout } from './schemas';

const DAY = 86_400_000;

export const toAffiliate = (ctx: Ctx, r: Row): Static<typeof Affiliate> => ({
  object: 'affiliate',
  id: r.id,
  name: r.name,
  email: r.email,
  code: r.code,
  link: `${ctx.origin}/r/${ctx.store.id}/${encodeURIComponent(r.code)}`,
  commission: { type: r.commission_type, value: Number(r.commission_value) },
  product_commissions: r.product_commissions,
  refund_window_days: r.refund_window_days,
  clicks: Number(r.clicks),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

const statusOf = (r: Row, now: Date) => (r.payout_id ? 'paid' : new Date(r.payable_at) > now ? 'pending' : 'payable');

const toCommission = (r: Row, now: Date): Static<typeof Commission> => ({
  object: 'affiliate_commission',
  id: r.id,
  affiliate_id: r.affiliate_id,
  order_id: r.order_id,
  status: statusOf(r, now),
  earned: fromMinor(r.earned_minor, r.currency),
  amount: fromMinor(r.amount_minor, r.currency),
  currency: r.currency,
  payable_at: iso(r.payable_at),
  payout_id: r.payout_id,
  created_at: iso(r.created_at),
});

const toPayout = (r: Row): Static<typeof Payout> => ({
  object: 'affiliate_payout',
  id: r.id,
  affiliate_id: r.affiliate_id,
  amount: fromMinor(r.amount_minor, r.currency),
  currency: r.currency,
  created_at: iso(r.created_at),
});

const affiliateRow = (db: Db, storeId: string, id: string, lock = false) =>
  rowOr404(db, { table: 'affiliates', storeId, id, noun: 'affiliate', lock: lock ? 'FOR UPDATE' : undefined });

/** One affiliate of the store (404 otherwise): also the owner its sub-routes are checked against first. */
export const getAffiliate = async (ctx: Ctx, id: string) => toAffiliate(ctx, await affiliateRow(ctx.db, ctx.store.id, id));

export async function createAffiliate(ctx: Ctx, input: Static<typeof AffiliateCreate>) {
  const { currency } = await storeSettings(ctx.db, ctx.store.id);
  const rules = [input.commission, ...(input.product_commissions ?? [])];
  rules.forEach((r, i) => {
    const param = i === 0 ? 'commission.value' : `product_commissions.${i - 1}.value`;
    if (r.type === 'percentage' && r.value > 100) throw errors.validation(`Invalid ${param}: a percentage is at most 100.`, param);
    if (r.type === 'fixed') toMinor(r.value, currency, param);
  });
  const ids = (input.product_commissions ?? []).map((p) => p.product_id.toLowerCase());
  const known = await productsIn(ctx.db, ctx.store.id, ids);
  const missing = ids.findIndex((id) => !known.has(id));
  if (missing >= 0) throw errors.notFound(`product: '${ids[missing]}'`, `product_commissions.${missing}.product_id`);
  const now = ctx.clock.now();
  const [r] = await unique(
    ctx.db.query(
      `INSERT INTO affiliates (id, store_id, name, email, code, commission_type, commission_value, product_commissions, refund_window_days, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $9, $9) RETURNING *`,
      [
        ctx.store.id,
        input.name,
        input.email,
        input.code,
        input.commission.type,
        input.commission.value,
        jsonParam((input.product_commissions ?? []).map((p) => ({ ...p, product_id: p.product_id.toLowerCase() }))),
        input.refund_window_days ?? 30,
        now,
      ],
    ),
    { affiliates_code: () => fail('duplicate_code', `Another affiliate of this store has the code '${input.code}'.`, 'code') },
  );
  const made = toAffiliate(ctx, r);
  ctx.emit('affiliate.created', made);
  return made;
}

export const listAffiliates = (ctx: Ctx, input: Static<typeof AffiliateQuery>) =>
  listPage(ctx, { table: 'affiliates', path: '/affiliates', input, filters: { 'lower(code) = lower($)': input.code } }, (rows) =>
    rows.map((r) => toAffiliate(ctx, r)),
  );

/** Credits an order to the affiliate whose code the shop received; one affiliate per order. */
export async function attributeOrder(ctx: Ctx, input: Static<typeof Attribution>): Promise<Static<typeof Commission>> {
  const [aff] = await ctx.db.query('SELECT * FROM affiliates WHERE store_id = $1 AND lower(code) = lower($2)', [ctx.store.id, input.code]);
  if (!aff) throw errors.notFound(`affiliate code: '${input.code}'`, 'code');
  const order = await ctx.call('orders.get_order', { id: input.order_id }, { notFoundParam: 'order_id' });
  if (order.status === 'cancelled') throw fail('order_cancelled', `Order ${order.order_number} is cancelled: it earns nothing.`, 'order_id');
  const scale = 10 ** decimalsOf(order.currency);
  const earned = commissionMinor(
    order.line_items,
    { type: aff.commission_type, value: Number(aff.commission_value) },
    aff.product_commissions,
    scale,
  );
  // A refund given before the attribution lowers it as one given after would.
  const left = order.total > 0 ? Math.round((earned * (order.total - order.amount_refunded)) / order.total) : earned;
  const now = ctx.clock.now();
  const payableAt = new Date(new Date(order.created_at).getTime() + aff.refund_window_days * DAY);
  const [r] = await unique(
    ctx.db.query(
      `INSERT INTO affiliate_commissions (id, store_id, affiliate_id, order_id, currency, earned_minor, amount_minor, payable_at, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING *`,
      [ctx.store.id, aff.id, order.id, order.currency, earned, left, payableAt, now],
    ),
    {
      affiliate_commissions_order: () =>
        fail('order_already_attributed', `Order ${order.order_number} is already attributed to an affiliate.`, 'order_id'),
    },
  );
  return toCommission(r, now);
}

/**
 * A refund inside the window lowers the order's commission in proportion to what is left of the
 * order; after the window (or once paid out) the commission stands.
 */
export async function onRefund(ctx: Ctx, orderId: string): Promise<void> {
  const [c] = await ctx.db.query('SELECT * FROM affiliate_commissions WHERE store_id = $1 AND order_id = $2 FOR UPDATE', [ctx.store.id, orderId]);
  if (!c || c.payout_id || new Date(c.payable_at) <= ctx.clock.now()) return;
  const order = await ctx.call('orders.get_order', { id: orderId });
  const left = order.total > 0 ? Math.round((Number(c.earned_minor) * (order.total - order.amount_refunded)) / order.total) : 0;
  await ctx.db.query('UPDATE affiliate_commissions SET amount_minor = LEAST(amount_minor, $3), updated_at = $4 WHERE store_id = $1 AND id = $2', [
    ctx.store.id,
    c.id,
    Math.max(0, left),
    ctx.clock.now(),
  ]);
}

/** A cancelled order earns nothing (unless already paid out). */
export async function onCancel(ctx: Ctx, orderId: string): Promise<void> {
  await ctx.db.query(
    'UPDATE affiliate_commissions SET amount_minor = 0, updated_at = $3 WHERE store_id = $1 AND order_id = $2 AND payout_id IS NULL',
    [ctx.store.id, orderId, ctx.clock.now()],
  );
}

export async function getEarnings(ctx: Ctx, id: string) {
  const aff = await affiliateRow(ctx.db, ctx.store.id, id);
  const now = ctx.clock.now();
  const rows = await ctx.db.query('SELECT * FROM affiliate_commissions WHERE store_id = $1 AND affiliate_id = $2 ORDER BY seq DESC', [
    ctx.store.id,
    aff.id,
  ]);
  const payouts = await ctx.db.query('SELECT * FROM affiliate_payouts WHERE store_id = $1 AND affiliate_id = $2 ORDER BY seq DESC', [
    ctx.store.id,
    aff.id,
  ]);
  const currency = rows[0]?.currency ?? (await storeSettings(ctx.db, ctx.store.id)).currency;
  const sum = (status: string) =>
    fromMinor(
      rows.filter((r) => statusOf(r, now) === status).reduce((s, r) => s + Number(r.amount_minor), 0),
      currency,
    );
  return {
    object: 'affiliate_earnings' as const,
    affiliate_id: aff.id,
    pending: sum('pending'),
    payable: sum('payable'),
    paid: sum('paid'),
    currency,
    commissions: rows.map((r) => toCommission(r, now)),
    payouts: payouts.map(toPayout),
  };
}

/** Pays everything payable now, under the affiliate's row lock (two payouts never pay one commission). */
export async function createPayout(ctx: Ctx, id: string) {
  const aff = await affiliateRow(ctx.db, ctx.store.id, id, true);
  const now = ctx.clock.now();
  const due = await ctx.db.query(
    'SELECT * FROM affiliate_commissions WHERE store_id = $1 AND affiliate_id = $2 AND payout_id IS NULL AND payable_at <= $3 AND amount_minor > 0',
    [ctx.store.id, aff.id, now],
  );
  if (!due.length) throw fail('nothing_payable', 'This affiliate has nothing payable yet (earnings stay pending through the refund window).', 'id');
  const amount = due.reduce((s, r) => s + Number(r.amount_minor), 0);
  const [p] = await ctx.db.query(
    `INSERT INTO affiliate_payouts (id, store_id, affiliate_id, amount_minor, currency, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5) RETURNING *`,
    [ctx.store.id, aff.id, amount, due[0].currency, now],
  );
  await ctx.db.query('UPDATE affiliate_commissions SET payout_id = $2, updated_at = $3 WHERE id = ANY($1::uuid[])', [
    due.map((r) => r.id),
    p.id,
    now,
  ]);
  const payout = toPayout(p);
  ctx.emit('affiliate.payout_created', payout);
  return payout;
}
