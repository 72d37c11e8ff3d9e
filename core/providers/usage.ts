import type { Clock } from '../clock';
import type { Db } from '../db/types';
import { errors, fail } from '../errors';
import { costOf, priceTable } from './prices';

/** What one provider call used; any count left out is 0. */
export interface UsageCounts {
  requests?: number;
  input_tokens?: number;
  output_tokens?: number;
  images?: number;
  video_seconds?: number;
  pages?: number;
}

/** Where a call is counted: the store, its database handle and the clock. */
export interface Meter {
  db: Db;
  clock: Clock;
  storeId: string;
  /** SVC_PROVIDER_PRICES, as the plugin's config holds it. */
  prices?: string;
}

/**
 * The store's calendar: a call counts on the day it was made in the store's time zone
 * (`stores.timezone`, kept by the store plugin's settings), and "this month" is that calendar's.
 * Both are worked out in SQL, where the time zone database is.
 */
const LOCAL_NOW = `($2::timestamptz AT TIME ZONE coalesce((SELECT timezone FROM stores WHERE id = $1), 'UTC'))`;
const LOCAL_DAY = `(${LOCAL_NOW})::date`;
const LOCAL_MONTH = `date_trunc('month', ${LOCAL_NOW})::date`;

const usd = (n: number) => n.toFixed(2);

/**
 * Refuses a call before it reaches the provider when the store's cost this month is at or over
 * its cap (403 spend_cap_reached; a cap of 0 stops every call). The check is not a lock: calls
 * already in flight when the cap is reached still finish, so a month may end a little over it.
 */
export async function checkSpendCap(m: Meter): Promise<void> {
  const [row] = await m.db.query(
    `SELECT s.monthly_spend_cap AS cap,
            (SELECT coalesce(sum(cost), 0) FROM provider_usage u WHERE u.store_id = s.id AND u.day >= ${LOCAL_MONTH}) AS spent
       FROM stores s WHERE s.id = $1`,
    [m.storeId, m.clock.now()],
  );
  if (!row || row.cap === null || row.cap === undefined) return;
  const cap = Number(row.cap);
  const spent = Number(row.spent);
  if (spent >= cap)
    throw fail(
      'spend_cap_reached',
      `This store's provider spend this month (${usd(spent)} USD) has reached its monthly spend cap of ${usd(cap)} USD; the operator can raise it.`,
    );
}

/** Adds one call's counts and cost to the store's row of the day (one statement: concurrent calls add up). */
export async function recordUsage(m: Meter, provider: string, model: string, counts: UsageCounts): Promise<void> {
  const u = {
    requests: counts.requests ?? 1,
    input_tokens: counts.input_tokens ?? 0,
    output_tokens: counts.output_tokens ?? 0,
    images: counts.images ?? 0,
    video_seconds: counts.video_seconds ?? 0,
    pages: counts.pages ?? 0,
  };
  const cost = costOf(priceTable(m.prices)[`${provider}/${model}`], u);
  await m.db.query(
    `INSERT INTO provider_usage AS p (store_id, day, provider, model, requests, input_tokens, output_tokens, images, video_seconds, pages, cost)
     VALUES ($1, ${LOCAL_DAY}, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ON CONFLICT (store_id, day, provider, model) DO UPDATE SET
       requests = p.requests + EXCLUDED.requests, input_tokens = p.input_tokens + EXCLUDED.input_tokens,
       output_tokens = p.output_tokens + EXCLUDED.output_tokens, images = p.images + EXCLUDED.images,
       video_seconds = p.video_seconds + EXCLUDED.video_seconds, pages = p.pages + EXCLUDED.pages, cost = p.cost + EXCLUDED.cost`,
    [m.storeId, m.clock.now(), provider, model, u.requests, u.input_tokens, u.output_tokens, u.images, u.video_seconds, u.pages, cost],
  );
}

/**
 * One metered provider call: the cap is checked first, the call runs, what it used is recorded.
 * A call that fails records nothing (providers bill what they answered).
 */
export async function metered<T>(m: Meter, provider: string, model: string, run: () => Promise<{ value: T; usage: UsageCounts }>): Promise<T> {
  await checkSpendCap(m);
  const { value, usage } = await run();
  await recordUsage(m, provider, model, usage);
  return value;
}

/** Sets (or with null lifts) a store's monthly spend cap; 404 for an unknown store. */
export async function setSpendCap(db: Db, storeId: string, cap: number | null) {
  const [row] = await db.query('UPDATE stores SET monthly_spend_cap = $2 WHERE id = $1 RETURNING id, name, plan, monthly_spend_cap, created_at', [
    storeId,
    cap,
  ]);
  if (!row) throw errors.notFound(`store: '${storeId}'`, 'store_id');
  // numeric: a string from the PostgreSQL driver, a number from PGlite.
  return {
    id: row.id as string,
    name: row.name as string,
    plan: row.plan as string,
    monthly_spend_cap: row.monthly_spend_cap === null ? null : Number(row.monthly_spend_cap),
    created_at: row.created_at as Date,
  };
}

/** Costs are kept to 8 decimals (numeric(20, 8)): a cheap model's call costs millionths of a dollar. */
const round = (n: number) => Math.round(n * 1e8) / 1e8;

/** `GET STORE/usage`: the days of [from, to] (inclusive dates), the totals, the cap and this month's cost. */
export async function usageReport(m: Meter, from: string, to: string) {
  const rows = await m.db.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS date, provider, model, requests, input_tokens, output_tokens, images, video_seconds, pages, cost
       FROM provider_usage WHERE store_id = $1 AND day >= $2::date AND day <= $3::date ORDER BY day, provider, model`,
    [m.storeId, from, to],
  );
  const [store] = await m.db.query(
    `SELECT s.monthly_spend_cap AS cap,
            (SELECT coalesce(sum(cost), 0) FROM provider_usage u WHERE u.store_id = s.id AND u.day >= ${LOCAL_MONTH}) AS spent
       FROM stores s WHERE s.id = $1`,
    [m.storeId, m.clock.now()],
  );
  // bigint and numeric: strings from the PostgreSQL driver, numbers from PGlite.
  const days = rows.map((r) => ({
    date: r.date as string,
    provider: r.provider as string,
    model: r.model as string,
    requests: Number(r.requests),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
    images: Number(r.images),
    video_seconds: Number(r.video_seconds),
    pages: Number(r.pages),
    cost: round(Number(r.cost)),
  }));
  return {
    object: 'usage' as const,
    from,
    to,
    currency: 'USD' as const,
    total_cost: round(days.reduce((n, d) => n + d.cost, 0)),
    monthly_spend_cap: store?.cap === null || store?.cap === undefined ? null : Number(store.cap),
    month_to_date_cost: round(Number(store?.spent ?? 0)),
    days,
  };
}

/** The default range of a usage report: this month to today, on the store's calendar. */
export async function thisMonth(db: Db, clock: Clock, storeId: string): Promise<{ from: string; to: string }> {
  const [row] = await db.query<{ from: string; to: string }>(
    `SELECT to_char(${LOCAL_MONTH}, 'YYYY-MM-DD') AS "from", to_char(${LOCAL_DAY}, 'YYYY-MM-DD') AS "to"`,
    [storeId, clock.now()],
  );
  return row;
}
