import type { Ctx, Db } from '../../core/sdk';
import { productSales, salesByBucket, type Range } from '../orders/public';
import { storeSettings } from '../store/public';
import { dayAfter, todayIn } from './period';

/**
 * Daily rollups (issue 48): per store and day, and per store, day and product, what the reports
 * sum. A day's rows are never added to: they are recomputed whole from the orders (through
 * orders' public.ts, the same SQL the reports read raw), so a reaction run twice, run late or run
 * out of order leaves the same rows, and every event of a day may simply recompute it. Concurrent
 * recomputes of one day are serialised by an advisory lock taken before the day is read: under
 * READ COMMITTED the second one reads after the first committed, and a reaction runs only after
 * its own order committed, so the last recompute of a day has seen every order of it.
 */

/** The instants [day 00:00, the day after 00:00) of `tz`, daylight saving included. */
async function dayRange(db: Db, from: string, to: string, tz: string, currency: string): Promise<Range> {
  const [r] = await db.query(`SELECT ($1::date::timestamp AT TIME ZONE $3) AS s, ($2::date::timestamp AT TIME ZONE $3) AS e`, [
    from,
    dayAfter(to),
    tz,
  ]);
  return { start: new Date(r.s), end: new Date(r.e), tz, currency };
}

/** Recomputes one day of the store's rollups from its orders, in `db`'s transaction. */
export async function recomputeDay(db: Db, storeId: string, day: string, tz: string, currency: string) {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 48))`, [`analytics:${storeId}:${day}`]);
  const r = await dayRange(db, day, day, tz, currency);
  const [b] = await salesByBucket(db, storeId, r, 'day');
  const products = await productSales(db, storeId, r);
  await db.query(`DELETE FROM analytics_daily_sales WHERE store_id = $1 AND day = $2`, [storeId, day]);
  await db.query(`DELETE FROM analytics_daily_products WHERE store_id = $1 AND day = $2`, [storeId, day]);
  if (b && (b.orders || b.refunds))
    await db.query(`INSERT INTO analytics_daily_sales (store_id, day, orders, gross, discounts, tax, refunds) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      storeId,
      day,
      b.orders,
      b.gross,
      b.discounts,
      b.tax,
      b.refunds,
    ]);
  if (products.length)
    await db.query(
      `INSERT INTO analytics_daily_products (store_id, day, product_id, name, units, net)
       SELECT $1, $2, p.product_id, p.name, p.units, p.net
       FROM jsonb_to_recordset($3::text::jsonb) AS p(product_id uuid, name text, units bigint, net bigint)`,
      [storeId, day, JSON.stringify(products)],
    );
}

/** The store's dates (in `tz`) of these instants. */
async function datesOf(db: Db, instants: string[], tz: string): Promise<string[]> {
  const rows = await db.query(`SELECT DISTINCT to_char((t::timestamptz AT TIME ZONE $2)::date, 'YYYY-MM-DD') AS d FROM unnest($1::text[]) AS t`, [
    instants,
    tz,
  ]);
  return rows.map((x) => x.d as string).sort();
}

/**
 * A reaction: recompute the days an order event touches (the order's creation day, where its sale
 * counts, and each of its refunds' days, which a cancellation takes out), and queue the backfill
 * when the store's rollups are missing or were cut in another time zone or currency.
 */
export async function onOrderEvent(ctx: Ctx, instants: string[]) {
  const s = await storeSettings(ctx.db, ctx.store.id);
  for (const day of await datesOf(ctx.db, instants, s.timezone)) await recomputeDay(ctx.db, ctx.store.id, day, s.timezone, s.currency);
  const [state] = await ctx.db.query(`SELECT tz, currency FROM analytics_rollup_state WHERE store_id = $1`, [ctx.store.id]);
  if (!state || state.tz !== s.timezone || state.currency !== s.currency)
    await ctx.enqueue('backfill', {}, { singletonKey: `analytics.backfill:${ctx.store.id}` });
}

/**
 * The backfill: rebuilds every day of the store from its first counted order (or refund) to
 * today, one transaction per day, then records the time zone and currency the rollups are cut in;
 * until then the reports read the orders. Reactions that run meanwhile recompute their days too:
 * either order gives the same rows.
 */
export async function backfill(ctx: Ctx) {
  const s = await storeSettings(ctx.db, ctx.store.id);
  const today = todayIn(ctx.clock.now(), s.timezone);
  const tenYears = new Date(Date.parse(`${today}T00:00:00Z`) - 3650 * 86_400_000).toISOString().slice(0, 10);
  const months = await salesByBucket(ctx.db, ctx.store.id, await dayRange(ctx.db, tenYears, today, s.timezone, s.currency), 'month');
  const first = months.find((m) => m.orders || m.refunds)?.bucket;
  await ctx.db.transaction(async (tx) => {
    await tx.query(`DELETE FROM analytics_rollup_state WHERE store_id = $1`, [ctx.store.id]);
    await tx.query(`DELETE FROM analytics_daily_sales WHERE store_id = $1 AND (day < $2 OR day > $3)`, [ctx.store.id, first ?? today, today]);
    await tx.query(`DELETE FROM analytics_daily_products WHERE store_id = $1 AND (day < $2 OR day > $3)`, [ctx.store.id, first ?? today, today]);
  });
  let days = 0;
  for (let day = first; day && day <= today; day = dayAfter(day), days++)
    await ctx.db.transaction((tx) => recomputeDay(tx, ctx.store.id, day!, s.timezone, s.currency));
  await ctx.db.query(
    `INSERT INTO analytics_rollup_state (store_id, tz, currency, built_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (store_id) DO UPDATE SET tz = excluded.tz, currency = excluded.currency, built_at = excluded.built_at`,
    [ctx.store.id, s.timezone, s.currency, ctx.clock.now()],
  );
  return { days };
}

/** Whether the store's rollups answer for this time zone and currency. */
export async function rollupsReady(db: Db, storeId: string, tz: string, currency: string) {
  const [state] = await db.query(`SELECT tz, currency FROM analytics_rollup_state WHERE store_id = $1`, [storeId]);
  return !!state && state.tz === tz && state.currency === currency;
}
