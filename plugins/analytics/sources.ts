import type { Ctx } from '../../core/sdk';
import {
  cohorts,
  customerFigures,
  customerSales,
  productSales,
  salesByBucket,
  topCustomers,
  type Bucket,
  type Range,
  type SalesBucket,
} from '../orders/public';
import type { Period } from './period';
import { dayAfter, todayIn } from './period';
import { rollupsReady } from './rollups';

/** What a report reads with: its transaction (see reports.ts), the store and the clock. */
export type Reader = Pick<Ctx, 'db' | 'store' | 'clock'>;

/**
 * Where a report's figures come from: the daily rollups for the whole days before today (in the
 * store's zone), the orders themselves for today (still filling, and what the reactions may not
 * have reached yet) and for any store whose rollups are not built for its time zone and currency.
 */
export interface Source {
  ctx: Reader;
  p: Period;
  r: Range;
  /** The last day the rollups answer for (inclusive), or null: all from the orders. */
  rolledTo: string | null;
}

const DAY = 86_400_000;
const monthOf = (day: string) => `${day.slice(0, 7)}-01`;
const shiftMonth = (day: string, n: number) => {
  const d = new Date(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1 + n, 1));
  return d.toISOString().slice(0, 10);
};
const nextMonth = (day: string) => shiftMonth(day, 1);
const prevMonth = (day: string) => shiftMonth(day, -1);
const dayBefore = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) - DAY).toISOString().slice(0, 10);

export async function sourceOf(ctx: Reader, p: Period, r: Range): Promise<Source> {
  if (!(await rollupsReady(ctx.db, ctx.store.id, r.tz, r.currency))) return { ctx, p, r, rolledTo: null };
  const yesterday = dayBefore(todayIn(ctx.clock.now(), r.tz));
  const rolledTo = p.to < yesterday ? p.to : yesterday;
  return { ctx, p, r, rolledTo: rolledTo >= p.from ? rolledTo : null };
}

/** The instant today starts at (the end of what the rollups answer). */
async function startOf(s: Source, day: string) {
  const [x] = await s.ctx.db.query(`SELECT ($1::date::timestamp AT TIME ZONE $2) AS t`, [day, s.r.tz]);
  return new Date(x.t);
}

/** salesByBucket over the period, every bucket present. */
export async function sales(s: Source, by: Bucket): Promise<SalesBucket[]> {
  const { ctx, p, r } = s;
  if (!s.rolledTo) return salesByBucket(ctx.db, ctx.store.id, r, by);
  const rows = await ctx.db.query(
    `WITH b AS (SELECT generate_series(date_trunc('${by}', $2::date), $3::date, interval '1 ${by}')::date AS bucket),
     s AS (
       SELECT date_trunc('${by}', day)::date AS bucket, sum(orders)::bigint AS orders, sum(gross)::bigint AS gross,
              sum(discounts)::bigint AS discounts, sum(tax)::bigint AS tax, sum(refunds)::bigint AS refunds
       FROM analytics_daily_sales WHERE store_id = $1 AND day >= $2 AND day <= $4 GROUP BY 1
     )
     SELECT to_char(b.bucket, 'YYYY-MM-DD') AS bucket, coalesce(s.orders, 0) AS orders, coalesce(s.gross, 0) AS gross,
            coalesce(s.discounts, 0) AS discounts, coalesce(s.tax, 0) AS tax, coalesce(s.refunds, 0) AS refunds
     FROM b LEFT JOIN s ON s.bucket = b.bucket ORDER BY b.bucket`,
    [ctx.store.id, p.from, p.to, s.rolledTo],
  );
  const out: SalesBucket[] = rows.map((x) => ({
    bucket: x.bucket,
    orders: Number(x.orders),
    gross: Number(x.gross),
    discounts: Number(x.discounts),
    tax: Number(x.tax),
    refunds: Number(x.refunds),
  }));
  if (s.rolledTo < p.to) {
    const byBucket = new Map(out.map((b) => [b.bucket, b]));
    const rest = await salesByBucket(ctx.db, ctx.store.id, { ...r, start: await startOf(s, dayAfter(s.rolledTo)) }, by);
    for (const x of rest) {
      const b = byBucket.get(x.bucket)!;
      for (const k of ['orders', 'gross', 'discounts', 'tax', 'refunds'] as const) b[k] += x[k];
    }
  }
  return out;
}

export interface ProductSale {
  product_id: string;
  name: string;
  units: number;
  net: number;
}

const monthEnd = (month: string) => dayBefore(nextMonth(month));

/**
 * Per product, units and net sold over the rolled days [a, b]: the running totals as of b less
 * those as of the day before a. The totals as of a day d are the history row valid at a month's
 * end plus or minus the days between: the month before d's plus d's month up to d, or d's month
 * less its days after d, whichever reads fewer days (at most half a month). Products with no sale
 * in [a, b] are left out. Sorted as orders' SQL sorts; names are not read here (see namesOf).
 */
async function rolledProducts(s: Source, a: string, b: string, limit?: number) {
  const asOf = (d: string) => {
    const m = monthOf(d);
    return Number(d.slice(8, 10)) <= 15
      ? { month: prevMonth(m), sign: 1, from: m, to: d }
      : { month: m, sign: -1, from: dayAfter(d), to: monthEnd(m) };
  };
  const hi = asOf(b);
  const lo = asOf(dayBefore(a));
  const rows = await s.ctx.db.query(
    `SELECT product_id, sum(units::float8)::bigint AS units, sum(net::float8)::bigint AS net FROM (
       SELECT product_id, units, net FROM analytics_product_history WHERE store_id = $1 AND month <= $2 AND until > $2
       UNION ALL
       SELECT product_id, $5::int * units, $5::int * net FROM analytics_daily_products WHERE store_id = $1 AND day >= $3 AND day <= $4
       UNION ALL
       SELECT product_id, -units, -net FROM analytics_product_history WHERE store_id = $1 AND month <= $6 AND until > $6
       UNION ALL
       SELECT product_id, -$9::int * units, -$9::int * net FROM analytics_daily_products WHERE store_id = $1 AND day >= $7 AND day <= $8
     ) x GROUP BY product_id HAVING sum(units::float8) > 0 ORDER BY units DESC, net DESC, product_id ${limit ? 'LIMIT $10' : ''}`,
    [s.ctx.store.id, hi.month, hi.from, hi.to, hi.sign, lo.month, lo.from, lo.to, lo.sign, ...(limit ? [limit] : [])],
  );
  return rows.map((x) => ({ product_id: x.product_id as string, units: Number(x.units), net: Number(x.net) }));
}

/**
 * The names these products sold under in the rolled days [a, b] (the greatest, as orders' SQL
 * has it): month rows for the whole months, day rows for the others, a few rows per product.
 */
async function namesOf(s: Source, ids: string[], a: string, b: string): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const m1 = a.endsWith('-01') ? a : nextMonth(a);
  const m2 = dayAfter(b).endsWith('-01') ? monthOf(b) : prevMonth(b);
  const whole = m1 <= m2;
  const rows = await s.ctx.db.query(
    `SELECT product_id, max(name) AS name FROM (
       SELECT product_id, name FROM analytics_monthly_products
       WHERE store_id = $1 AND product_id IN (SELECT (jsonb_array_elements_text($2::text::jsonb))::uuid) AND month >= $3 AND month <= $4
       UNION ALL
       SELECT product_id, name FROM analytics_daily_products
       WHERE store_id = $1 AND product_id IN (SELECT (jsonb_array_elements_text($2::text::jsonb))::uuid) AND day >= $5 AND day <= $6
       UNION ALL
       SELECT product_id, name FROM analytics_daily_products
       WHERE store_id = $1 AND product_id IN (SELECT (jsonb_array_elements_text($2::text::jsonb))::uuid) AND day >= $7 AND day <= $8
     ) x GROUP BY product_id`,
    whole
      ? [s.ctx.store.id, JSON.stringify(ids), m1, m2, a, dayBefore(m1), nextMonth(m2), b]
      : [s.ctx.store.id, JSON.stringify(ids), '9999-01-01', '0001-01-01', a, b, '9999-01-01', '0001-01-01'],
  );
  return new Map(rows.map((x) => [x.product_id as string, x.name as string]));
}

/** Today's sales (and any later day's) from the orders, when the period reaches past the rolled days. */
async function productTail(s: Source) {
  if (!s.rolledTo || s.rolledTo >= s.p.to) return [];
  return productSales(s.ctx.db, s.ctx.store.id, { ...s.r, start: await startOf(s, dayAfter(s.rolledTo)) });
}

/** Units sold per product over the period (the inventory report's), no names. */
export async function productUnits(s: Source): Promise<Map<string, number>> {
  if (!s.rolledTo || s.rolledTo < s.p.from) return new Map((await productSales(s.ctx.db, s.ctx.store.id, s.r)).map((x) => [x.product_id, x.units]));
  const units = new Map((await rolledProducts(s, s.p.from, s.rolledTo)).map((x) => [x.product_id, x.units]));
  for (const x of await productTail(s)) units.set(x.product_id, (units.get(x.product_id) ?? 0) + x.units);
  return units;
}

/** The period's `limit` best-selling products (by units, then net), ordered as orders' SQL orders them. */
export async function topProducts(s: Source, limit: number): Promise<ProductSale[]> {
  const { ctx, r } = s;
  if (!s.rolledTo || s.rolledTo < s.p.from) return productSales(ctx.db, ctx.store.id, r, limit);
  const tail = await productTail(s);
  const rolled = await rolledProducts(s, s.p.from, s.rolledTo, tail.length ? undefined : limit);
  const byId = new Map<string, ProductSale>(rolled.map((x) => [x.product_id, { ...x, name: '' }]));
  for (const x of tail) {
    const e = byId.get(x.product_id);
    if (!e) byId.set(x.product_id, { ...x });
    else ((e.units += x.units), (e.net += x.net), (e.name = x.name));
  }
  const top = [...byId.values()]
    .sort((a, b) => b.units - a.units || b.net - a.net || (a.product_id < b.product_id ? -1 : a.product_id > b.product_id ? 1 : 0))
    .slice(0, limit);
  const names = await namesOf(
    s,
    top.map((t) => t.product_id),
    s.p.from,
    s.rolledTo,
  );
  return top.map((t) => {
    const rolledName = names.get(t.product_id);
    return { ...t, name: rolledName !== undefined && rolledName > t.name ? rolledName : t.name };
  });
}

/**
 * The customer report's three readings (orders' customerFigures, topCustomers and cohorts): each
 * customer's whole history up to `to` matters. The rollups answer every day up to `cut` (`to`, or
 * yesterday): per customer, the history row valid at the end of the month before `cut`'s plus the
 * day rows of `cut`'s month up to it, or (`cut` in the second half of its month) the row valid at
 * that month's end less its days after `cut`: one row per customer, whatever the period's length.
 * The orders answer today. Cohorts: the counts of the months before `cut`'s from
 * analytics_cohorts, `cut`'s month and today's from those rows.
 */
export async function customerData(ctx: Reader, p: Period, r: Range) {
  if (!(await rollupsReady(ctx.db, ctx.store.id, r.tz, r.currency)))
    return {
      figures: await customerFigures(ctx.db, ctx.store.id, r),
      top: await topCustomers(ctx.db, ctx.store.id, r, 10),
      cohorts: await cohorts(ctx.db, ctx.store.id, r),
    };
  const today = todayIn(ctx.clock.now(), r.tz);
  const cut = p.to < today ? p.to : dayBefore(today);
  const tail =
    p.to > cut ? await customerSales(ctx.db, ctx.store.id, { ...r, start: await startOf({ ctx, p, r, rolledTo: null }, dayAfter(cut)) }) : [];
  // Sums over day rows in float8: exact for integers below 2^53, and much cheaper than numeric.
  const up = Number(cut.slice(8, 10)) <= 15;
  const c = up
    ? // The history as of the month before cut's, plus cut's month up to cut (at most 15 days).
      `d AS (
         SELECT customer_id, min(day) AS first_day, max(day) AS last_day, bool_or(src = 1) AS in_cut_month, bool_or(src = 2) AS in_tail,
                sum(orders::float8) AS orders, sum(ltv::float8) AS ltv
         FROM (
           SELECT customer_id, day, 1 AS src, orders, ltv FROM analytics_daily_customers WHERE store_id = $1 AND day >= $3 AND day <= $4
           UNION ALL
           SELECT customer_id, $6::date, 2, orders, ltv FROM tail
         ) x GROUP BY customer_id
       ), c AS MATERIALIZED (
         -- History rows end before cut's month, day rows start in it: the first day is the history's, the last the days'.
         SELECT coalesce(h.customer_id, d.customer_id) AS customer_id, coalesce(h.first_day, d.first_day) AS first_day,
                coalesce(d.last_day, h.last_day) AS last_day, coalesce(d.in_cut_month, false) AS in_cut_month, coalesce(d.in_tail, false) AS in_tail,
                (coalesce(h.orders, 0) + coalesce(d.orders, 0))::bigint AS orders, (coalesce(h.ltv, 0) + coalesce(d.ltv, 0))::bigint AS ltv
         FROM (SELECT customer_id, first_day, last_day, orders, ltv FROM analytics_customer_history WHERE store_id = $1 AND month <= $2 AND until > $2) h
         FULL JOIN d ON d.customer_id = h.customer_id
       )`
    : // The history as of cut's month's end, less that month's days after cut (at most 15: for a period
      // ending today, today's). A customer who ordered after cut had a last day before it that only the
      // days up to cut, or the history row before, know: looked up for those few.
      `late AS (
         SELECT customer_id, sum(orders::float8) AS orders, sum(ltv::float8) AS ltv FROM analytics_daily_customers
         WHERE store_id = $1 AND day > $4 AND day <= $2 GROUP BY customer_id
       ), h AS (
         SELECT h.customer_id, h.first_day, h.orders - coalesce(late.orders, 0) AS orders, h.ltv - coalesce(late.ltv, 0) AS ltv,
                CASE WHEN late.customer_id IS NULL THEN h.last_day ELSE coalesce(
                  (SELECT max(x.day) FROM analytics_daily_customers x WHERE x.store_id = $1 AND x.customer_id = h.customer_id AND x.day >= $3 AND x.day <= $4),
                  h.prev_last_day) END AS last_day
         FROM analytics_customer_history h LEFT JOIN late ON late.customer_id = h.customer_id
         WHERE h.store_id = $1 AND h.month <= $3 AND h.until > $3
       ), c AS MATERIALIZED (
         SELECT coalesce(h.customer_id, t.customer_id) AS customer_id, coalesce(h.first_day, $6::date) AS first_day,
                CASE WHEN t.customer_id IS NULL THEN h.last_day ELSE $6::date END AS last_day, coalesce(h.last_day >= $3, false) AS in_cut_month,
                t.customer_id IS NOT NULL AS in_tail, (coalesce(h.orders, 0) + coalesce(t.orders, 0))::bigint AS orders,
                (coalesce(h.ltv, 0) + coalesce(t.ltv, 0))::bigint AS ltv
         FROM (SELECT * FROM h WHERE orders > 0) h FULL JOIN tail t ON t.customer_id = h.customer_id
       )`;
  const [x] = await ctx.db.query(
    `WITH tail AS (SELECT customer_id, orders, ltv FROM jsonb_to_recordset($7::text::jsonb) AS t(customer_id text, orders bigint, ltv bigint)),
     ${c}
     SELECT
       (SELECT json_build_object('ordered', count(*) FILTER (WHERE last_day >= $5), 'new_customers', count(*) FILTER (WHERE first_day >= $5),
               'returning_customers', count(*) FILTER (WHERE last_day >= $5 AND first_day < $5), 'with_orders', count(*),
               'lifetime_total', coalesce(sum(ltv::float8), 0)::bigint) FROM c) AS figures,
       (SELECT coalesce(json_agg(json_build_object('customer_id', customer_id, 'orders', orders, 'ltv', ltv) ORDER BY ltv DESC, customer_id), '[]')
        FROM (SELECT customer_id, orders, ltv FROM c ORDER BY ltv DESC, customer_id LIMIT 10) t) AS top,
       (SELECT coalesce(json_agg(json_build_object('cohort', to_char(cohort, 'YYYY-MM'), 'm', to_char(month, 'YYYY-MM'), 'n', n) ORDER BY cohort, month), '[]')
        FROM (
          SELECT cohort, month, customers AS n FROM analytics_cohorts
          WHERE store_id = $1 AND cohort >= date_trunc('month', $5::date)::date AND month < $3
          UNION ALL
          -- Cut's month up to cut, and today's (the same month, or the next): each customer once per month.
          SELECT first_m, m, count(*) FROM (
            SELECT date_trunc('month', first_day)::date AS first_m, $3::date AS m FROM c
            WHERE in_cut_month OR (in_tail AND date_trunc('month', $6::date)::date = $3::date)
            UNION ALL
            SELECT date_trunc('month', first_day)::date, date_trunc('month', $6::date)::date FROM c
            WHERE in_tail AND date_trunc('month', $6::date)::date <> $3::date
          ) y WHERE first_m >= date_trunc('month', $5::date)::date GROUP BY 1, 2
        ) t) AS cohorts`,
    // $2: the month before cut's (up), or the last day of cut's month (down).
    [ctx.store.id, up ? prevMonth(monthOf(cut)) : monthEnd(monthOf(cut)), monthOf(cut), cut, p.from, today, JSON.stringify(tail)],
  );
  const j = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
  const f = j(x.figures);
  const months = (a: string, b: string) => (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + Number(b.slice(5, 7)) - Number(a.slice(5, 7));
  return {
    figures: {
      ordered: Number(f.ordered),
      new_customers: Number(f.new_customers),
      returning_customers: Number(f.returning_customers),
      with_orders: Number(f.with_orders),
      lifetime_total: Number(f.lifetime_total),
    },
    top: (j(x.top) as any[]).map((t) => ({ customer_id: t.customer_id as string, orders: Number(t.orders), ltv: Number(t.ltv) })),
    cohorts: (j(x.cohorts) as any[]).map((c) => ({ cohort: c.cohort as string, k: months(c.cohort, c.m), n: Number(c.n) })),
  };
}
