import type { Ctx } from '../../core/sdk';
import { productSales, salesByBucket, type Bucket, type Range, type SalesBucket } from '../orders/public';
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
  const rows = await ctx.db.query(
    `SELECT product_id, max(name) AS name, sum(units)::bigint AS units, sum(net)::bigint AS net
     FROM analytics_daily_products WHERE store_id = $1 AND day >= $2 AND day <= $3
     GROUP BY product_id ORDER BY units DESC, net DESC, product_id ${limit && s.rolledTo === s.p.to ? 'LIMIT $4' : ''}`,
    limit && s.rolledTo === s.p.to ? [ctx.store.id, from, s.rolledTo, limit] : [ctx.store.id, from, s.rolledTo],
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
