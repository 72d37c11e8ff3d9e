import type { Static } from '@sinclair/typebox';
import {
  checkCurrency,
  errors,
  fail,
  fromMinor,
  isoOrNull,
  listPage,
  parseInstant,
  rowOr404,
  stamps,
  toMinor,
  unique,
  type Ctx,
  type Row,
} from '../../core/sdk';
import { collectionsIn } from '../collections/public';
import { customerIdIn } from '../customers/public';
import { pricedLines, productsIn } from '../products/public';
import { applyCodes } from './public';
import type { CouponCreate, CouponQuery, ValidateInput } from './schemas';

export const toCoupon = (r: Row) => ({
  object: 'coupon' as const,
  id: r.id,
  code: r.code,
  percent_off: r.percent_off === null ? null : Number(r.percent_off),
  amount_off: r.amount_off_minor === null ? null : fromMinor(r.amount_off_minor, r.currency),
  currency: r.currency,
  minimum_subtotal: r.minimum_subtotal_minor === null ? null : fromMinor(r.minimum_subtotal_minor, r.currency),
  product_ids: r.product_ids,
  collection_ids: r.collection_ids,
  starts_at: isoOrNull(r.starts_at),
  ends_at: isoOrNull(r.ends_at),
  usage_limit: r.usage_limit,
  usage_limit_per_customer: r.usage_limit_per_customer,
  customer_id: r.customer_id ?? null,
  times_redeemed: Number(r.times_redeemed),
  active: r.active,
  ...stamps(r),
});

const row = (ctx: Ctx, id: string, lock?: 'FOR UPDATE') => rowOr404(ctx.db, { table: 'coupons', storeId: ctx.store.id, id, noun: 'coupon', lock });

export const getCoupon = async (ctx: Ctx, id: string) => toCoupon(await row(ctx, id));

export const listCoupons = (ctx: Ctx, input: Static<typeof CouponQuery>) =>
  listPage(
    ctx,
    { table: 'coupons', path: '/coupons', input, filters: { 'active = $': input.active, 'lower(code) = lower($)': input.code } },
    (rows) => rows.map(toCoupon),
  );

/** Every id a restriction names must be a live resource of the store: 404 naming the first that is not. */
function checkIds(ids: string[], found: Set<string>, param: string) {
  ids.forEach((id, n) => {
    if (!found.has(id.toLowerCase())) throw errors.notFound(`${param === 'product_ids' ? 'product' : 'collection'}: '${id}'`, `${param}.${n}`);
  });
}

export async function createCoupon(ctx: Ctx, i: Static<typeof CouponCreate>) {
  if ((i.percent_off === undefined) === (i.amount_off === undefined))
    throw errors.validation('Give exactly one of percent_off and amount_off.', i.percent_off === undefined ? 'percent_off' : 'amount_off');
  if (i.percent_off !== undefined && Math.round(i.percent_off * 10_000) / 10_000 !== i.percent_off)
    throw errors.validation('Invalid percent_off: at most 4 decimal places.', 'percent_off');
  const needsCurrency = i.amount_off !== undefined || i.minimum_subtotal !== undefined;
  if (needsCurrency && !i.currency)
    throw errors.validation('Missing currency: amount_off and minimum_subtotal are amounts in a currency.', 'currency');
  const currency = i.currency ? checkCurrency(i.currency, 'currency') : null;
  const startsAt = i.starts_at === undefined ? null : parseInstant(i.starts_at, 'starts_at');
  const endsAt = i.ends_at === undefined ? null : parseInstant(i.ends_at, 'ends_at');
  if (startsAt && endsAt && endsAt <= startsAt) throw errors.validation('ends_at must be after starts_at.', 'ends_at');
  const productIds = [...new Set((i.product_ids ?? []).map((id) => id.toLowerCase()))];
  const collectionIds = [...new Set((i.collection_ids ?? []).map((id) => id.toLowerCase()))];
  checkIds(productIds, await productsIn(ctx.db, ctx.store.id, productIds), 'product_ids');
  checkIds(collectionIds, await collectionsIn(ctx.db, ctx.store.id, collectionIds), 'collection_ids');
  let customerId: string | null = null;
  if (i.customer_id !== undefined) {
    customerId = (await customerIdIn(ctx.db, ctx.store.id, i.customer_id)) ?? null;
    if (!customerId) throw errors.notFound(`customer: '${i.customer_id}'`, 'customer_id');
  }
  const now = ctx.clock.now();
  const [r] = await unique(
    ctx.db.query(
      `INSERT INTO coupons (id, store_id, code, percent_off, amount_off_minor, currency, minimum_subtotal_minor, product_ids, collection_ids,
         starts_at, ends_at, usage_limit, usage_limit_per_customer, created_at, updated_at, customer_id)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7::uuid[], $8::uuid[], $9, $10, $11, $12, $13, $13, $14) RETURNING *`,
      [
        ctx.store.id,
        i.code,
        i.percent_off ?? null,
        i.amount_off === undefined ? null : toMinor(i.amount_off, currency!, 'amount_off'),
        currency,
        i.minimum_subtotal === undefined ? null : toMinor(i.minimum_subtotal, currency!, 'minimum_subtotal'),
        productIds,
        collectionIds,
        startsAt,
        endsAt,
        i.usage_limit ?? null,
        i.usage_limit_per_customer ?? null,
        now,
        customerId,
      ],
    ),
    { coupons_store_code: () => fail('duplicate_code', `Another coupon of this store has the code '${i.code}' (codes ignore case).`, 'code') },
  );
  const coupon = toCoupon(r);
  ctx.emit('coupon.created', coupon);
  return coupon;
}

/** Final and idempotent: a deactivated coupon stays so, and deactivating it again answers it unchanged. */
export async function deactivate(ctx: Ctx, id: string) {
  const cur = await row(ctx, id, 'FOR UPDATE');
  if (!cur.active) return toCoupon(cur);
  const [r] = await ctx.db.query('UPDATE coupons SET active = false, updated_at = $3 WHERE store_id = $1 AND id = $2 RETURNING *', [
    ctx.store.id,
    cur.id,
    ctx.clock.now(),
  ]);
  const coupon = toCoupon(r);
  ctx.emit('coupon.deactivated', coupon);
  return coupon;
}

/** Would this code discount these lines, and by how much? The same check an order makes, without redeeming. */
export async function validate(ctx: Ctx, i: Static<typeof ValidateInput>) {
  const lines = await pricedLines(ctx.db, ctx.store.id, i.line_items);
  const currency = lines[0].currency;
  const applied = await applyCodes(ctx.db, ctx.store.id, [i.code], { now: ctx.clock.now(), currency, lines, customerId: i.customer_id ?? null });
  const base = { object: 'coupon_validation' as const, code: i.code, currency };
  if (!applied.ok) return { ...base, coupon_id: applied.coupon_id, valid: false, discount_amount: 0, ...applied.refusal };
  return {
    ...base,
    coupon_id: applied.discounts[0].coupon_id,
    valid: true,
    discount_amount: fromMinor(applied.discounts[0].amount_minor, currency),
    reason_code: null,
    reason: null,
  };
}
