import type { Static } from '@sinclair/typebox';
import { decimalsOf, fromMinor, toMinor, type Ctx } from '../../core/sdk';
import { customerRow, toCustomer } from './store';
import type { Enrichment } from './schemas';

/**
 * enrich_customer works from the store's own data only: no outside provider sees customer data,
 * and the result is reproducible from the orders table. The thresholds are documented in
 * README.md beside this file; tests pin them.
 */
export const SEGMENT_RULES = {
  /** `new`: the first order is at most this many days old. */
  newWithinDays: 30,
  /** `repeat`: at least this many orders. */
  repeatMinOrders: 2,
  /** `vip`: at least this much spent in the main currency (1000.00, in hundredths of its major unit)... */
  vipMinSpentMinor: 100_000n,
  /** ...or at least this many orders. */
  vipMinOrders: 10,
  /** `lapsed`: the last order is older than this many days. */
  lapsedAfterDays: 180,
} as const;

const DAY_MS = 24 * 60 * 60 * 1000;

interface CurrencyStats {
  currency: string;
  orders: number;
  totalMinor: bigint;
  firstAt: Date;
  lastAt: Date;
}

/** Minor units of `currency` to the API's decimal number; exact while the sum fits 2^53 minor units (orders cap each total there). */
const toDecimal = (minor: bigint, currency: string) => fromMinor(minor, currency);

/** Integer mean rounded half up (amounts are never negative), so the figure is exact to the cent. */
const meanMinor = (total: bigint, n: number) => (n === 0 ? 0n : (2n * total + BigInt(n)) / (2n * BigInt(n)));

/**
 * Orders placed for this customer, not cancelled, grouped by currency (a sum across currencies
 * means nothing), each worth its total less what was refunded of it. Read through the orders
 * plugin's own action (ctx.call), as the customers plugin (`calls: ['orders']`): it owns no
 * order data and does not read the orders table.
 */
async function orderStats(ctx: Ctx, customerId: string): Promise<CurrencyStats[]> {
  const byCurrency = new Map<string, CurrencyStats>();
  let after: string | undefined;
  for (;;) {
    const page = await ctx.call('orders.list_orders', { customer_id: customerId, limit: 100, ...(after ? { starting_after: after } : {}) });
    for (const o of page.data) {
      if (o.status === 'cancelled') continue;
      const at = new Date(o.created_at);
      const s = byCurrency.get(o.currency) ?? { currency: o.currency, orders: 0, totalMinor: 0n, firstAt: at, lastAt: at };
      s.orders++;
      // What the customer kept paying for: a refund (never more than the total) lowers the spend, not the count.
      s.totalMinor += BigInt(toMinor(o.total, o.currency, 'total')) - BigInt(toMinor(o.amount_refunded, o.currency, 'amount_refunded'));
      if (at < s.firstAt) s.firstAt = at;
      if (at > s.lastAt) s.lastAt = at;
      byCurrency.set(o.currency, s);
    }
    if (!page.has_more) break;
    after = page.data[page.data.length - 1].id;
  }
  return [...byCurrency.values()];
}

/** The currency most orders use; ties go to the larger spend, then alphabetical, so the choice is stable. */
function mainCurrency(stats: CurrencyStats[]): CurrencyStats | undefined {
  return [...stats].sort(
    (a, b) => b.orders - a.orders || (b.totalMinor > a.totalMinor ? 1 : b.totalMinor < a.totalMinor ? -1 : 0) || a.currency.localeCompare(b.currency),
  )[0];
}

/** The VIP spend threshold in minor units of `currency` (1000.00 is 1000 yen, 1000.000 dinars). */
const vipThreshold = (currency: string) => (SEGMENT_RULES.vipMinSpentMinor * 10n ** BigInt(decimalsOf(currency))) / 100n;

export function segmentsFor(
  s: { orders: number; mainSpentMinor: bigint; currency?: string; firstAt: Date | null; lastAt: Date | null },
  now: Date,
): string[] {
  if (s.orders === 0) return ['prospect'];
  const out: string[] = [];
  const R = SEGMENT_RULES;
  if (s.firstAt && now.getTime() - s.firstAt.getTime() <= R.newWithinDays * DAY_MS) out.push('new');
  if (s.orders >= R.repeatMinOrders) out.push('repeat');
  if (s.mainSpentMinor >= vipThreshold(s.currency ?? 'USD') || s.orders >= R.vipMinOrders) out.push('vip');
  if (s.lastAt && now.getTime() - s.lastAt.getTime() > R.lapsedAfterDays * DAY_MS) out.push('lapsed');
  return out;
}

export function computeEnrichment(stats: CurrencyStats[], now: Date): Static<typeof Enrichment> {
  const main = mainCurrency(stats);
  const orders = stats.reduce((n, s) => n + s.orders, 0);
  const firstAt = stats.length ? new Date(Math.min(...stats.map((s) => s.firstAt.getTime()))) : null;
  const lastAt = stats.length ? new Date(Math.max(...stats.map((s) => s.lastAt.getTime()))) : null;
  return {
    orders_count: orders,
    total_spent: main ? toDecimal(main.totalMinor, main.currency) : 0,
    average_order_value: main ? toDecimal(meanMinor(main.totalMinor, main.orders), main.currency) : 0,
    currency: main?.currency ?? null,
    by_currency: [...stats]
      .sort((a, b) => a.currency.localeCompare(b.currency))
      .map((s) => ({
        currency: s.currency,
        orders_count: s.orders,
        total_spent: toDecimal(s.totalMinor, s.currency),
        average_order_value: toDecimal(meanMinor(s.totalMinor, s.orders), s.currency),
      })),
    first_order_at: firstAt?.toISOString() ?? null,
    last_order_at: lastAt?.toISOString() ?? null,
    segments: segmentsFor({ orders, mainSpentMinor: main?.totalMinor ?? 0n, currency: main?.currency, firstAt, lastAt }, now),
    enriched_at: now.toISOString(),
  };
}

/** Computes the enrichment, stores it on the customer (a snapshot as of enriched_at) and returns the customer. */
export async function enrichCustomer(ctx: Ctx, id: string) {
  // Locking the customer serializes concurrent enrichments, so the stored snapshot is the later one.
  const cur = await customerRow(ctx, id, true);
  const now = ctx.clock.now();
  const enrichment = computeEnrichment(await orderStats(ctx, cur.id), now);
  const [row] = await ctx.db.query('UPDATE customers SET enrichment = $3::text::jsonb, updated_at = $4 WHERE store_id = $1 AND id = $2 RETURNING *', [
    ctx.store.id,
    cur.id,
    JSON.stringify(enrichment),
    now,
  ]);
  const customer = toCustomer(row);
  ctx.emit('customer.updated', customer);
  return customer;
}
