import type { Clock, Ctx, Db } from '../../core/sdk';
import { customerSales, productSales, salesByBucket, type Range } from '../orders/public';
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

const monthOf = (day: string) => `${day.slice(0, 7)}-01`;
/** JSON text of a list, for `jsonb_to_recordset($n::text::jsonb)` / `jsonb_array_elements_text` (one parameter, any length). */
const json = (v: unknown) => JSON.stringify(v);

/**
 * Recomputes one day of the store's rollups from its orders, in `db`'s transaction, and the month
 * rows of the products and customers that day had or has (`months: false`: the backfill sums the
 * months once at the end). The lock is the month's: month rows sum the days of their month.
 */
export async function recomputeDay(db: Db, storeId: string, day: string, tz: string, currency: string, months = true) {
  const month = monthOf(day);
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 48))`, [`analytics:${storeId}:${month}`]);
  const r = await dayRange(db, day, day, tz, currency);
  const [b] = await salesByBucket(db, storeId, r, 'day');
  const products = await productSales(db, storeId, r);
  const customers = await customerSales(db, storeId, r);
  await db.query(`DELETE FROM analytics_daily_sales WHERE store_id = $1 AND day = $2`, [storeId, day]);
  const hadProducts = await db.query(`DELETE FROM analytics_daily_products WHERE store_id = $1 AND day = $2 RETURNING product_id`, [storeId, day]);
  const hadCustomers = await db.query(`DELETE FROM analytics_daily_customers WHERE store_id = $1 AND day = $2 RETURNING customer_id`, [storeId, day]);
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
      [storeId, day, json(products)],
    );
  if (customers.length)
    await db.query(
      `INSERT INTO analytics_daily_customers (store_id, day, customer_id, orders, ltv)
       SELECT $1, $2, c.customer_id, c.orders, c.ltv FROM jsonb_to_recordset($3::text::jsonb) AS c(customer_id text, orders bigint, ltv bigint)`,
      [storeId, day, json(customers)],
    );
  if (!months) return;
  const productIds = [...new Set([...hadProducts.map((x) => x.product_id as string), ...products.map((x) => x.product_id)])];
  const customerIds = [...new Set([...hadCustomers.map((x) => x.customer_id as string), ...customers.map((x) => x.customer_id)])];
  if (productIds.length) {
    const changed = await sumMonth(db, storeId, month, 'products', productIds);
    if (changed.length) await sumProductHistory(db, storeId, changed);
  }
  if (customerIds.length) {
    const changed = await sumMonth(db, storeId, month, 'customers', customerIds);
    if (changed.length) await sumCustomerHistory(db, storeId, changed, month);
  }
}

/**
 * Products' running totals from their month rows (`ids` null: all of the store's, written in month
 * order, so a reading as of an early month finds its rows together on disk). A store-wide
 * lock, taken after the month's: two months' recomputes of one product write here one after the
 * other, the later having seen the earlier's committed month rows.
 */
async function sumProductHistory(db: Db, storeId: string, ids: string[] | null) {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 48))`, [`analytics:${storeId}:products`]);
  const only = ids ? `AND product_id IN (SELECT (jsonb_array_elements_text($2::text::jsonb))::uuid)` : '';
  const params = ids ? [storeId, json(ids)] : [storeId];
  await db.query(`DELETE FROM analytics_product_history WHERE store_id = $1 ${only}`, params);
  await db.query(
    `INSERT INTO analytics_product_history (store_id, month, product_id, until, units, net)
     SELECT $1, month, product_id, coalesce(lead(month) OVER w, '9999-12-01'), sum(units) OVER w, sum(net) OVER w
     FROM analytics_monthly_products WHERE store_id = $1 ${only}
     WINDOW w AS (PARTITION BY product_id ORDER BY month) ${ids ? '' : 'ORDER BY month'}`,
    params,
  );
}

/**
 * Customers' running totals from their month rows (`ids` null: all of the store's, and every
 * cohort count), then the cohort counts they change: the recomputed `month`'s, and every month of
 * a customer whose first order moved (a first order, or its cancellation). Under a store-wide lock,
 * as the products'.
 */
async function sumCustomerHistory(db: Db, storeId: string, ids: string[] | null, month?: string) {
  await db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 48))`, [`analytics:${storeId}:customers`]);
  const only = ids ? `AND customer_id IN (SELECT jsonb_array_elements_text($2::text::jsonb))` : '';
  const params = ids ? [storeId, json(ids)] : [storeId];
  const before = await db.query(
    `DELETE FROM analytics_customer_history WHERE store_id = $1 ${only}
     RETURNING customer_id, to_char(month, 'YYYY-MM-DD') AS month, to_char(first_day, 'YYYY-MM-DD') AS first_day`,
    params,
  );
  const after = await db.query(
    `INSERT INTO analytics_customer_history (store_id, month, customer_id, until, first_day, last_day, prev_last_day, orders, ltv)
     SELECT $1, month, customer_id, coalesce(lead(month) OVER w, '9999-12-01'), min(first_day) OVER (PARTITION BY customer_id), last_day,
            lag(last_day) OVER w, sum(orders) OVER w, sum(ltv) OVER w
     FROM analytics_monthly_customers WHERE store_id = $1 ${only}
     WINDOW w AS (PARTITION BY customer_id ORDER BY month) ${ids ? '' : 'ORDER BY month'}
     RETURNING customer_id, to_char(month, 'YYYY-MM-DD') AS month, to_char(first_day, 'YYYY-MM-DD') AS first_day`,
    params,
  );
  let months: string[] | null = null;
  if (ids) {
    const first = (rows: Record<string, any>[]) => new Map(rows.map((r) => [r.customer_id as string, r.first_day as string]));
    const was = first(before);
    const is = first(after);
    const moved = new Set(ids.filter((id) => was.get(id) !== is.get(id)));
    months = [...new Set([month!, ...[...before, ...after].filter((r) => moved.has(r.customer_id)).map((r) => r.month as string)])];
  }
  const which = months ? `AND month IN (SELECT (jsonb_array_elements_text($2::text::jsonb))::date)` : '';
  const counted = months ? [storeId, json(months)] : [storeId];
  await db.query(`DELETE FROM analytics_cohorts WHERE store_id = $1 ${which}`, counted);
  await db.query(
    `INSERT INTO analytics_cohorts (store_id, cohort, month, customers)
     SELECT $1, date_trunc('month', first_day)::date, month, count(*) FROM analytics_customer_history WHERE store_id = $1 ${which} GROUP BY 2, 3`,
    counted,
  );
}

/**
 * Month rows from the month's day rows: for these products or customers, or (ids null) all. With
 * ids, answers those whose month row changed (appeared, went, or holds other figures): a day's
 * recompute rewrites every product and customer of the day, and only the changed ones need their
 * running totals summed again.
 */
async function sumMonth(db: Db, storeId: string, month: string, of: 'products' | 'customers', ids: string[] | null): Promise<string[]> {
  const key = of === 'products' ? 'product_id' : 'customer_id';
  const only = ids ? `AND ${key}::text IN (SELECT jsonb_array_elements_text($3::text::jsonb))` : '';
  const params = ids ? [storeId, month, json(ids)] : [storeId, month];
  const figures = of === 'products' ? 'json_build_array(name, units, net)::text' : 'json_build_array(first_day, last_day, orders, ltv)::text';
  const returning = ids ? `RETURNING ${key}::text AS id, ${figures} AS f` : '';
  const was = await db.query(
    of === 'products'
      ? `DELETE FROM analytics_monthly_products WHERE store_id = $1 AND month = $2 ${only} ${returning}`
      : `DELETE FROM analytics_monthly_customers WHERE store_id = $1 AND month = $2 ${only} ${returning}`,
    params,
  );
  const days = `store_id = $1 AND day >= $2::date AND day < ($2::date + interval '1 month') ${only}`;
  const is = await db.query(
    of === 'products'
      ? `INSERT INTO analytics_monthly_products (store_id, month, product_id, name, units, net)
         SELECT $1, $2, product_id, max(name), sum(units), sum(net) FROM analytics_daily_products WHERE ${days} GROUP BY product_id ${returning}`
      : `INSERT INTO analytics_monthly_customers (store_id, month, customer_id, first_day, last_day, orders, ltv)
         SELECT $1, $2, customer_id, min(day), max(day), sum(orders), sum(ltv) FROM analytics_daily_customers WHERE ${days} GROUP BY customer_id ${returning}`,
    params,
  );
  if (!ids) return [];
  const before = new Map(was.map((r) => [r.id as string, r.f as string]));
  const after = new Map(is.map((r) => [r.id as string, r.f as string]));
  return ids.filter((id) => before.get(id) !== after.get(id));
}

/** Rebuilds one month's rows from its days, under the month's lock. */
const rebuildMonth = (db: Db, storeId: string, month: string) =>
  db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 48))`, [`analytics:${storeId}:${month}`]);
    await sumMonth(tx, storeId, month, 'products', null);
    await sumMonth(tx, storeId, month, 'customers', null);
  });

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
  const days = await datesOf(ctx.db, instants, s.timezone);
  // Every lock this event's days take, up front and in one order (months ascending, then the
  // store-wide ones): an event touching two months (a refund a month later) would otherwise hold
  // one month and the store-wide locks while waiting on the other month, which another event holds.
  const keys = [...new Set(days.map(monthOf))].sort().concat('products', 'customers');
  for (const key of keys) await ctx.db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 48))`, [`analytics:${ctx.store.id}:${key}`]);
  for (const day of days) await recomputeDay(ctx.db, ctx.store.id, day, s.timezone, s.currency);
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
export const backfill = (ctx: Ctx) => backfillStore(ctx.db, ctx.clock, ctx.store.id);

export async function backfillStore(db: Db, clock: Clock, storeId: string) {
  const s = await storeSettings(db, storeId);
  const today = todayIn(clock.now(), s.timezone);
  const tenYears = new Date(Date.parse(`${today}T00:00:00Z`) - 3650 * 86_400_000).toISOString().slice(0, 10);
  const months = await salesByBucket(db, storeId, await dayRange(db, tenYears, today, s.timezone, s.currency), 'month');
  const first = months.find((m) => m.orders || m.refunds)?.bucket;
  await db.transaction(async (tx) => {
    await tx.query(`DELETE FROM analytics_rollup_state WHERE store_id = $1`, [storeId]);
    for (const t of ['analytics_daily_sales', 'analytics_daily_products', 'analytics_daily_customers'])
      await tx.query(`DELETE FROM ${t} WHERE store_id = $1 AND (day < $2 OR day > $3)`, [storeId, first ?? today, today]);
    for (const t of ['analytics_product_history', 'analytics_customer_history', 'analytics_cohorts'])
      await tx.query(`DELETE FROM ${t} WHERE store_id = $1`, [storeId]);
    for (const t of ['analytics_monthly_products', 'analytics_monthly_customers'])
      await tx.query(`DELETE FROM ${t} WHERE store_id = $1 AND (month < $2 OR month > $3)`, [storeId, first ?? today, today]);
  });
  let days = 0;
  for (let day = first; day && day <= today; day = dayAfter(day), days++) {
    await db.transaction((tx) => recomputeDay(tx, storeId, day!, s.timezone, s.currency, false));
    if (day === today || dayAfter(day).endsWith('-01')) await rebuildMonth(db, storeId, monthOf(day));
  }
  // No counted order: no month rows, so no history (deleted above) to sum.
  if (first) {
    await db.transaction((tx) => sumProductHistory(tx, storeId, null));
    await db.transaction((tx) => sumCustomerHistory(tx, storeId, null));
  }
  await db.query(
    `INSERT INTO analytics_rollup_state (store_id, tz, currency, built_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (store_id) DO UPDATE SET tz = excluded.tz, currency = excluded.currency, built_at = excluded.built_at`,
    [storeId, s.timezone, s.currency, clock.now()],
  );
  return { days };
}

/**
 * The cron sweep (every 10 minutes, and so soon after start): backfills each store that has no
 * rollups yet (a store that existed before them, or one whose orders came in without events).
 */
export async function sweep(ctx: Ctx) {
  const stores = await ctx.db.query(
    `SELECT s.id FROM stores s WHERE NOT EXISTS (SELECT 1 FROM analytics_rollup_state r WHERE r.store_id = s.id) ORDER BY s.id`,
  );
  for (const s of stores) await backfillStore(ctx.db, ctx.clock, s.id);
  return { stores: stores.length };
}

/** Whether the store's rollups answer for this time zone and currency. */
export async function rollupsReady(db: Db, storeId: string, tz: string, currency: string) {
  const [state] = await db.query(`SELECT tz, currency FROM analytics_rollup_state WHERE store_id = $1`, [storeId]);
  return !!state && state.tz === tz && state.currency === currency;
}
