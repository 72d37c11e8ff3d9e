import type { Static } from '@sinclair/typebox';
import {
  decimalsOf,
  errors,
  fail,
  fromMinor,
  iso,
  isoOrNull,
  listPage,
  lockKey,
  rowOr404,
  stamps,
  toMinor,
  type Ctx,
  type Db,
  type Row,
} from '../../core/sdk';
import { customerIdIn } from '../customers/public';
import { storeSettings } from '../store/public';
import type { Entry, PointsAdd, Program, RedeemInput, Redemption, Reward, RewardCreate, RewardQuery, EntryQuery } from './schemas';

export const toEntry = (r: Row): Static<typeof Entry> => ({
  object: 'loyalty_entry',
  id: r.id,
  customer_id: r.customer_id,
  points: Number(r.points),
  kind: r.kind,
  reason: r.reason,
  order_id: r.order_id,
  refund_id: r.refund_id,
  reward_id: r.reward_id,
  coupon_id: r.coupon_id,
  created_at: iso(r.created_at),
});

const toReward = (r: Row): Static<typeof Reward> => ({
  object: 'loyalty_reward',
  id: r.id,
  name: r.name,
  points_cost: Number(r.points_cost),
  percent_off: r.percent_off === null ? null : Number(r.percent_off),
  amount_off: r.amount_off_minor === null ? null : fromMinor(r.amount_off_minor, r.currency),
  currency: r.currency,
  ...stamps(r),
});

/** This store's customer (canonical id), or 404 naming customer_id. */
async function customer(ctx: Ctx, id: string) {
  const found = await customerIdIn(ctx.db, ctx.store.id, id);
  if (!found) throw errors.notFound(`customer: '${id}'`, 'customer_id');
  return found;
}

export async function balanceOf(db: Db, storeId: string, customerId: string) {
  const [r] = await db.query<{ n: string }>('SELECT coalesce(sum(points), 0) AS n FROM loyalty_entries WHERE store_id = $1 AND customer_id = $2', [
    storeId,
    customerId,
  ]);
  return Number(r.n);
}

/**
 * Spending and taking back read the balance and write under this lock, held to the end of the
 * transaction: parallel redemptions of one customer queue, so none spends points another spent.
 */
export const lockCustomer = (db: Db, storeId: string, customerId: string) => lockKey(db, storeId, `loyalty:${customerId}`);

type NewEntry = {
  customer_id: string;
  points: number;
  kind: string;
  reason: string;
  order_id?: string;
  refund_id?: string;
  reward_id?: string;
  coupon_id?: string;
};

/** Appends an entry; `once` entries (an order's earning, a refund's take-back) are skipped when already there. */
export async function appendEntry(db: Db, storeId: string, e: NewEntry, now: Date) {
  const [r] = await db.query(
    `INSERT INTO loyalty_entries (id, store_id, customer_id, points, kind, reason, order_id, refund_id, reward_id, coupon_id, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING RETURNING *`,
    [storeId, e.customer_id, e.points, e.kind, e.reason, e.order_id ?? null, e.refund_id ?? null, e.reward_id ?? null, e.coupon_id ?? null, now],
  );
  return r ? toEntry(r) : undefined;
}

export async function getBalance(ctx: Ctx, customerId: string) {
  const id = await customer(ctx, customerId);
  return { object: 'loyalty_balance' as const, customer_id: id, points: await balanceOf(ctx.db, ctx.store.id, id) };
}

export async function listEntries(ctx: Ctx, input: Static<typeof EntryQuery>) {
  const id = await customer(ctx, input.customer_id);
  return listPage(ctx, { table: 'loyalty_entries', path: '/loyalty/entries', input, filters: { 'customer_id = $': id } }, (rows) =>
    rows.map(toEntry),
  );
}

const insufficient = (balance: number, asked: number) =>
  fail('insufficient_points', `The customer has ${balance} points; ${asked} are needed.`, 'customer_id');

/** A manual entry with its reason; taking away more than the balance is 409 insufficient_points. */
export async function addPoints(ctx: Ctx, input: Static<typeof PointsAdd>) {
  if (input.points === 0) throw errors.validation('Invalid points: must not be 0.', 'points');
  const id = await customer(ctx, input.customer_id);
  if (input.points < 0) {
    await lockCustomer(ctx.db, ctx.store.id, id);
    const balance = await balanceOf(ctx.db, ctx.store.id, id);
    if (balance + input.points < 0) throw insufficient(balance, -input.points);
  }
  const entry = (await appendEntry(
    ctx.db,
    ctx.store.id,
    { customer_id: id, points: input.points, kind: 'manual', reason: input.reason },
    ctx.clock.now(),
  ))!;
  ctx.emit('loyalty_entry.created', entry);
  return entry;
}

export const listRewards = (ctx: Ctx, input: Static<typeof RewardQuery>) =>
  listPage(ctx, { table: 'loyalty_rewards', path: '/loyalty/rewards', input, filters: {} }, (rows) => rows.map(toReward));

/** A reward in the store's currency (for amount_off): what it is when the customer redeems it. */
export async function createReward(ctx: Ctx, i: Static<typeof RewardCreate>) {
  if ((i.percent_off === undefined) === (i.amount_off === undefined))
    throw errors.validation('Give exactly one of percent_off and amount_off.', i.percent_off === undefined ? 'percent_off' : 'amount_off');
  if (i.percent_off !== undefined && Math.round(i.percent_off * 10_000) / 10_000 !== i.percent_off)
    throw errors.validation('Invalid percent_off: at most 4 decimal places.', 'percent_off');
  const currency = i.amount_off === undefined ? null : (await storeSettings(ctx.db, ctx.store.id)).currency;
  const now = ctx.clock.now();
  const [r] = await ctx.db.query(
    `INSERT INTO loyalty_rewards (id, store_id, name, points_cost, percent_off, amount_off_minor, currency, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
    [ctx.store.id, i.name, i.points_cost, i.percent_off ?? null, currency ? toMinor(i.amount_off!, currency, 'amount_off') : null, currency, now],
  );
  const reward = toReward(r);
  ctx.emit('loyalty_reward.created', reward);
  return reward;
}

/** An unguessable code: the coupon is the customer's, but a code is typed at a till too. */
const rewardCode = () => `REWARD-${crypto.randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase()}`;

/**
 * Spends a reward's points for a single-use coupon only this customer's orders can use, made by
 * coupons' own action (as loyalty, in this transaction: a refused coupon leaves no entry).
 */
export async function redeem(ctx: Ctx, input: Static<typeof RedeemInput>): Promise<Static<typeof Redemption>> {
  const id = await customer(ctx, input.customer_id);
  const reward = await rowOr404(ctx.db, { table: 'loyalty_rewards', storeId: ctx.store.id, id: input.reward_id, noun: 'reward', param: 'reward_id' });
  await lockCustomer(ctx.db, ctx.store.id, id);
  const balance = await balanceOf(ctx.db, ctx.store.id, id);
  const cost = Number(reward.points_cost);
  if (balance < cost) throw insufficient(balance, cost);
  const coupon = await ctx.call('coupons.create_coupon', {
    code: rewardCode(),
    ...(reward.percent_off !== null
      ? { percent_off: Number(reward.percent_off) }
      : { amount_off: fromMinor(reward.amount_off_minor, reward.currency), currency: reward.currency }),
    usage_limit: 1,
    customer_id: id,
  });
  const entry = (await appendEntry(
    ctx.db,
    ctx.store.id,
    { customer_id: id, points: -cost, kind: 'redeem', reason: `Reward: ${reward.name}`, reward_id: reward.id, coupon_id: coupon.id },
    ctx.clock.now(),
  ))!;
  ctx.emit('loyalty_entry.created', entry);
  return {
    object: 'loyalty_redemption',
    customer_id: id,
    reward_id: reward.id,
    points_spent: cost,
    balance: balance - cost,
    coupon_id: coupon.id,
    coupon_code: coupon.code,
    entry,
  };
}

async function programRow(db: Db, storeId: string) {
  const [r] = await db.query('SELECT * FROM loyalty_programs WHERE store_id = $1', [storeId]);
  return r as Row | undefined;
}

export async function getProgram(ctx: Ctx): Promise<Static<typeof Program>> {
  const r = await programRow(ctx.db, ctx.store.id);
  const { currency } = await storeSettings(ctx.db, ctx.store.id);
  return { object: 'loyalty_program', points_per_unit: r ? Number(r.points_per_unit) : 1, currency, updated_at: isoOrNull(r?.updated_at) };
}

export async function updateProgram(ctx: Ctx, pointsPerUnit: number) {
  const now = ctx.clock.now();
  await ctx.db.query(
    `INSERT INTO loyalty_programs (store_id, points_per_unit, created_at, updated_at) VALUES ($1, $2, $3, $3)
     ON CONFLICT (store_id) DO UPDATE SET points_per_unit = EXCLUDED.points_per_unit, updated_at = EXCLUDED.updated_at`,
    [ctx.store.id, pointsPerUnit, now],
  );
  return getProgram(ctx);
}

/** Points for an amount: points_per_unit per whole 1.00 (of its currency), rounded down. */
export function pointsFor(amountMinor: number, currency: string, pointsPerUnit: number) {
  if (amountMinor <= 0) return 0;
  return Math.floor(amountMinor / 10 ** decimalsOf(currency)) * pointsPerUnit;
}
export const pointsPerUnit = async (db: Db, storeId: string) => Number((await programRow(db, storeId))?.points_per_unit ?? 1);
