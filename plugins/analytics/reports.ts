import { fromMinor, type Ctx } from '../../core/sdk';
import type { Range, SalesBucket } from '../orders/public';
import { stockAndPrices } from '../products/public';
import { storeSettings } from '../store/public';
import { dayAfter, periodOf, previousOf, type Period } from './period';
import type { CustomerInput, InventoryInput, SalesInput } from './schemas';
import { customerData, productUnits, sales, sourceOf, topProducts, type Reader } from './sources';

const DAY = 86_400_000;

/** The period's instants in the store's zone (DST included): [from 00:00, the day after to 00:00). */
async function rangeOf(ctx: Reader, p: Period, tz: string, currency: string): Promise<Range> {
  const [r] = await ctx.db.query(`SELECT ($1::date::timestamp AT TIME ZONE $3) AS s, ($2::date::timestamp AT TIME ZONE $3) AS e`, [
    p.from,
    dayAfter(p.to),
    tz,
  ]);
  return { start: new Date(r.s), end: new Date(r.e), tz, currency };
}

/**
 * Runs a report for the period and, with `compare`, for the one before it too, the two at once
 * (each its own transaction, so its own connection on PostgreSQL; their reads are independent).
 * Each runs with PostgreSQL's JIT off: a report's statements run for tens of milliseconds, and
 * their row estimates (unions of running totals and day rows) can be high enough for the planner
 * to compile them first, which took seconds over 1M orders (docs/benchmarks.md). The same figures
 * either way; only the plan's cost changes.
 */
async function withCompare<T>(
  ctx: Ctx,
  input: { from?: string; to?: string; compare?: boolean },
  one: (rd: Reader, p: Period, tz: string, currency: string) => Promise<T>,
) {
  const s = await storeSettings(ctx.db, ctx.store.id);
  const p = periodOf(input, ctx.clock.now(), s.timezone);
  const run = (period: Period) =>
    ctx.db.transaction(async (db) => {
      // Room to hash a store's customers (100k rows) without spilling to disk.
      await db.query(`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`);
      return one({ db, store: ctx.store, clock: ctx.clock }, period, s.timezone, s.currency);
    });
  if (!input.compare) return run(p);
  const [now, previous] = await Promise.all([run(p), run(previousOf(p))]);
  return { ...now, previous };
}

function figures(b: Omit<SalesBucket, 'bucket'>, currency: string) {
  const m = (minor: number) => fromMinor(minor, currency);
  const net = b.gross - b.discounts - b.refunds;
  return {
    gross_sales: m(b.gross),
    discounts: m(b.discounts),
    refunds: m(b.refunds),
    net_sales: m(net),
    tax: m(b.tax),
    shipping: 0,
    total_sales: m(net + b.tax),
    orders: b.orders,
    average_order_value: b.orders ? m(Math.round((b.gross - b.discounts) / b.orders)) : 0,
  };
}

export const salesReport = (ctx: Ctx, input: SalesInput) =>
  withCompare(ctx, input, async (rd, p, tz, currency) => {
    const by = input.group_by ?? 'day';
    const r = await rangeOf(rd, p, tz, currency);
    const src = await sourceOf(rd, p, r);
    const buckets = await sales(src, by);
    const sum = buckets.reduce(
      (a, b) => ({
        orders: a.orders + b.orders,
        gross: a.gross + b.gross,
        discounts: a.discounts + b.discounts,
        tax: a.tax + b.tax,
        refunds: a.refunds + b.refunds,
      }),
      { orders: 0, gross: 0, discounts: 0, tax: 0, refunds: 0 },
    );
    const top = await topProducts(src, 10);
    return {
      object: 'sales_report' as const,
      from: p.from,
      to: p.to,
      currency,
      group_by: by,
      ...figures(sum, currency),
      top_products: top.map((t) => ({ product_id: t.product_id, name: t.name, units: t.units, net_sales: fromMinor(t.net, currency) })),
      series: buckets.map((b) => ({ bucket: b.bucket, ...figures(b, currency) })),
    };
  });

export const inventoryReport = (ctx: Ctx, input: InventoryInput) =>
  withCompare(ctx, input, async (rd, p, tz, currency) => {
    const threshold = input.low_stock_threshold ?? 5;
    const r = await rangeOf(rd, p, tz, currency);
    const src = await sourceOf(rd, p, r);
    const sold = await productUnits(src);
    // Days of cover look at the 30 days up to the period's end (30 x 24 h), whatever the period's length.
    const recentStart = new Date(r.end.getTime() - 30 * DAY);
    const [d] = await rd.db.query(
      `SELECT to_char(($1::timestamptz AT TIME ZONE $2)::date, 'YYYY-MM-DD') AS day, (($1::timestamptz AT TIME ZONE $2)::time = '00:00') AS midnight`,
      [recentStart, tz],
    );
    // Across a daylight-saving change those 30 x 24 h do not start at a midnight: the orders answer.
    const recentSrc = d.midnight
      ? { ...src, p: { ...p, from: d.day }, r: { ...r, start: recentStart } }
      : { ...src, r: { ...r, start: recentStart }, rolledTo: null };
    // The default period is those 30 days: read once.
    const same = recentSrc.r.start.getTime() === r.start.getTime() && recentSrc.p.from === p.from && recentSrc.rolledTo === src.rolledTo;
    const recent = same ? sold : await productUnits(recentSrc);
    const stock = await stockAndPrices(rd.db, rd.store.id);
    const value = stock.filter((s) => s.currency === currency).reduce((a, s) => a + s.on_hand * s.price_minor, 0);
    const products = stock
      .map((s) => {
        const units = sold.get(s.id) ?? 0;
        const perDay = (recent.get(s.id) ?? 0) / 30;
        return {
          product_id: s.id,
          name: s.name,
          on_hand: s.on_hand,
          units_sold: units,
          sell_through_rate: units + s.on_hand > 0 ? Math.round((units / (units + s.on_hand)) * 10_000) / 10_000 : 0,
          days_of_cover: perDay > 0 ? Math.round((s.on_hand / perDay) * 10) / 10 : null,
        };
      })
      .sort((a, b) => b.units_sold - a.units_sold || a.name.localeCompare(b.name));
    return {
      object: 'inventory_report' as const,
      from: p.from,
      to: p.to,
      currency,
      low_stock_threshold: threshold,
      stock_value: fromMinor(value, currency),
      low_stock: stock.filter((s) => s.on_hand <= threshold).map((s) => ({ product_id: s.id, name: s.name, on_hand: s.on_hand })),
      products: products.slice(0, input.limit ?? 100),
    };
  });

export const customerReport = (ctx: Ctx, input: CustomerInput) =>
  withCompare(ctx, input, async (rd, p, tz, currency) => {
    const r = await rangeOf(rd, p, tz, currency);
    const { figures: f, top, cohorts } = await customerData(rd, p, r);
    const byCohort = new Map<string, { cohort: string; customers: number; retained: number[] }>();
    for (const c of cohorts) {
      const entry = byCohort.get(c.cohort) ?? { cohort: c.cohort, customers: 0, retained: [] };
      if (c.k === 0) entry.customers = c.n;
      else entry.retained[c.k - 1] = c.n;
      byCohort.set(c.cohort, entry);
    }
    const lastMonth = p.to.slice(0, 7);
    const months = (a: string, b: string) => (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + Number(b.slice(5, 7)) - Number(a.slice(5, 7));
    return {
      object: 'customer_report' as const,
      from: p.from,
      to: p.to,
      currency,
      customers: f.ordered,
      new_customers: f.new_customers,
      returning_customers: f.returning_customers,
      average_lifetime_value: f.with_orders ? fromMinor(Math.round(f.lifetime_total / f.with_orders), currency) : 0,
      top_customers: top.map((t) => ({ customer_id: t.customer_id, orders: t.orders, lifetime_value: fromMinor(t.ltv, currency) })),
      // Every later month up to `to` is present (0 when none came back).
      cohorts: [...byCohort.values()].map((c) => ({
        ...c,
        retained: Array.from({ length: months(c.cohort, lastMonth) }, (_, i) => c.retained[i] ?? 0),
      })),
    };
  });
