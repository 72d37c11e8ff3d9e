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

/**
 * Where a report's figures come from: the daily rollups for the whole days before today (in the
 * store's zone), the orders themselves for today (still filling, and what the reactions may not
 * have reached yet) and for any store whose rollups are not built for its time zone and currency.
 */
export interface Source {
  ctx: Ctx;
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

export async function sourceOf(ctx: Ctx, p: Period, r: Range): Promise<Source> {
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

/** productSales over the period, ordered as orders' SQL orders them. */
export async function products(s: Source, limit?: number): Promise<ProductSale[]> {
  const { ctx, r } = s;
  const from = s.p.from;
  if (!s.rolledTo || s.rolledTo < from) return productSales(ctx.db, ctx.store.id, r, limit);
  // Whole months [m1, m2] from the month rows, the days before m1 and after m2's month from the day rows.
  const m1 = from.endsWith('-01') ? from : nextMonth(from);
  const m2 = dayAfter(s.rolledTo).endsWith('-01') ? monthOf(s.rolledTo) : prevMonth(s.rolledTo);
  const whole = m1 <= m2;
  const limited = limit && s.rolledTo === s.p.to;
  const rows = await ctx.db.query(
    `SELECT product_id, max(name) AS name, sum(units)::bigint AS units, sum(net)::bigint AS net FROM (
       SELECT product_id, name, units, net FROM analytics_monthly_products WHERE store_id = $1 AND month >= $4 AND month <= $5
       UNION ALL
       SELECT product_id, name, units, net FROM analytics_daily_products
       WHERE store_id = $1 AND day >= $2 AND day <= $3 AND NOT (day >= $4 AND day < $6)
     ) x GROUP BY product_id ORDER BY units DESC, net DESC, product_id ${limited ? 'LIMIT $7' : ''}`,
    [
      ctx.store.id,
      from,
      s.rolledTo,
      whole ? m1 : '9999-01-01',
      whole ? m2 : '0001-01-01',
      whole ? nextMonth(m2) : '0001-01-01',
      ...(limited ? [limit] : []),
    ],
  );
  const out: ProductSale[] = rows.map((x) => ({ product_id: x.product_id, name: x.name, units: Number(x.units), net: Number(x.net) }));
  if (s.rolledTo === s.p.to) return out;
  const byId = new Map(out.map((x) => [x.product_id, x]));
  for (const x of await productSales(ctx.db, ctx.store.id, { ...r, start: await startOf(s, dayAfter(s.rolledTo)) })) {
    const e = byId.get(x.product_id);
    if (!e) byId.set(x.product_id, { ...x });
    else ((e.units += x.units), (e.net += x.net), (e.name = x.name > e.name ? x.name : e.name));
  }
  const all = [...byId.values()].sort(
    (a, b) => b.units - a.units || b.net - a.net || (a.product_id < b.product_id ? -1 : a.product_id > b.product_id ? 1 : 0),
  );
  return limit ? all.slice(0, limit) : all;
}

/**
 * The customer report's three readings (orders' customerFigures, topCustomers and cohorts): each
 * customer's whole history up to `to` matters, so the rollups answer every day before today
 * (month rows for the months before `to`'s, day rows for that month) and the orders today's.
 */
export async function customerData(ctx: Ctx, p: Period, r: Range) {
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
  // A period ending today or later: one row per customer (their whole history) less what the
  // reactions already rolled up of today, which the orders answer. Otherwise every customer-month.
  const recent = cut === dayBefore(today);
  const cohortOf = `c.first_m >= date_trunc('month', $4::date)::date`;
  const ctes = recent
    ? `WITH tail AS (SELECT customer_id, orders, ltv FROM jsonb_to_recordset($5::text::jsonb) AS t(customer_id text, orders bigint, ltv bigint)),
       late AS (SELECT customer_id, sum(orders) AS orders, sum(ltv) AS ltv FROM analytics_daily_customers WHERE store_id = $1 AND day > $3 GROUP BY customer_id),
       l AS (
         SELECT l.customer_id, l.first_day, l.orders - coalesce(late.orders, 0) AS orders, l.ltv - coalesce(late.ltv, 0) AS ltv,
                CASE WHEN l.last_day <= $3 THEN l.last_day >= $4 ELSE
                  EXISTS (SELECT 1 FROM analytics_monthly_customers m WHERE m.store_id = $1 AND m.customer_id = l.customer_id AND m.month < $2 AND m.last_day >= $4)
                  OR EXISTS (SELECT 1 FROM analytics_daily_customers d WHERE d.store_id = $1 AND d.customer_id = l.customer_id AND d.day >= $2 AND d.day >= $4 AND d.day <= $3)
                END AS in_range
         FROM analytics_customers l LEFT JOIN late ON late.customer_id = l.customer_id
         WHERE l.store_id = $1 AND l.first_day <= $3
       ), c AS MATERIALIZED (
         SELECT customer_id, min(first_day) AS first_day, date_trunc('month', min(first_day))::date AS first_m, bool_or(in_range) AS in_range,
                sum(orders)::bigint AS orders, sum(ltv)::bigint AS ltv
         FROM (SELECT customer_id, first_day, in_range, orders, ltv FROM l UNION ALL SELECT customer_id, $6::date, true, orders, ltv FROM tail) x
         GROUP BY customer_id
       ), rows AS (
         SELECT m.customer_id, m.month AS m FROM c JOIN analytics_monthly_customers m ON m.store_id = $1 AND m.customer_id = c.customer_id AND m.month < $2 WHERE ${cohortOf}
         UNION ALL
         SELECT d.customer_id, $2::date FROM c JOIN analytics_daily_customers d ON d.store_id = $1 AND d.customer_id = c.customer_id AND d.day >= $2 AND d.day <= $3 WHERE ${cohortOf}
         UNION ALL
         SELECT customer_id, date_trunc('month', $6::date)::date FROM tail
       )`
    : `WITH rows AS MATERIALIZED (
       SELECT customer_id, month AS m, first_day, last_day, orders, ltv FROM analytics_monthly_customers WHERE store_id = $1 AND month < $2
       UNION ALL
       SELECT customer_id, $2::date, day, day, orders, ltv FROM analytics_daily_customers WHERE store_id = $1 AND day >= $2 AND day <= $3
       UNION ALL
       SELECT customer_id, date_trunc('month', $6::date)::date, $6::date, $6::date, orders, ltv
       FROM jsonb_to_recordset($5::text::jsonb) AS t(customer_id text, orders bigint, ltv bigint)
     ), c AS MATERIALIZED (
       SELECT customer_id, min(first_day) AS first_day, min(m) AS first_m, bool_or(last_day >= $4) AS in_range,
              sum(orders)::bigint AS orders, sum(ltv)::bigint AS ltv
       FROM rows GROUP BY customer_id
     )`;
  const [x] = await ctx.db.query(
    `${ctes}
     SELECT
       (SELECT json_build_object('ordered', count(*) FILTER (WHERE in_range), 'new_customers', count(*) FILTER (WHERE first_day >= $4),
               'returning_customers', count(*) FILTER (WHERE in_range AND first_day < $4), 'with_orders', count(*),
               'lifetime_total', coalesce(sum(ltv), 0)::bigint) FROM c) AS figures,
       (SELECT coalesce(json_agg(json_build_object('customer_id', customer_id, 'orders', orders, 'ltv', ltv) ORDER BY ltv DESC, customer_id), '[]')
        FROM (SELECT customer_id, orders, ltv FROM c ORDER BY ltv DESC, customer_id LIMIT 10) t) AS top,
       (SELECT coalesce(json_agg(json_build_object('cohort', cohort, 'k', k, 'n', n) ORDER BY cohort, k), '[]') FROM (
          SELECT to_char(c.first_m, 'YYYY-MM') AS cohort,
                 ((extract(year FROM rows.m) - extract(year FROM c.first_m)) * 12 + extract(month FROM rows.m) - extract(month FROM c.first_m))::int AS k,
                 count(DISTINCT rows.customer_id)::bigint AS n
          FROM c JOIN rows ON rows.customer_id = c.customer_id
          WHERE c.first_m >= date_trunc('month', $4::date)::date
          GROUP BY 1, 2) t) AS cohorts`,
    [ctx.store.id, monthOf(cut), cut, p.from, JSON.stringify(tail), today],
  );
  const j = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v);
  const f = j(x.figures);
  return {
    figures: {
      ordered: Number(f.ordered),
      new_customers: Number(f.new_customers),
      returning_customers: Number(f.returning_customers),
      with_orders: Number(f.with_orders),
      lifetime_total: Number(f.lifetime_total),
    },
    top: (j(x.top) as any[]).map((t) => ({ customer_id: t.customer_id as string, orders: Number(t.orders), ltv: Number(t.ltv) })),
    cohorts: (j(x.cohorts) as any[]).map((c) => ({ cohort: c.cohort as string, k: Number(c.k), n: Number(c.n) })),
  };
}
