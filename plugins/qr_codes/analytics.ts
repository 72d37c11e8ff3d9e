import type { Static } from '@sinclair/typebox';
import { errors, type Ctx } from '../../core/sdk';
import { attributedScanIds } from '../orders/public';
import type { Analytics } from './schemas';
import { settleStore } from './scan-buffer';
import { codeRow } from './store';

/** Scan analytics (SPEC 2.9) over UTC days, for one code or a campaign's codes. */

const DAY = 86_400_000;
const MAX_DAYS = 366;

function parseDay(text: string, param: string): Date {
  const d = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text)
    throw errors.validation(`${param} must be a real date such as 2026-04-01.`, param);
  return d;
}

/** from and to as inclusive UTC days: to defaults to today, from to 29 days before to. */
export function dayRange(now: Date, from?: string, to?: string) {
  const last = to ? parseDay(to, 'to') : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const first = from ? parseDay(from, 'from') : new Date(last.getTime() - 29 * DAY);
  if (first > last) throw errors.validation('from must not be after to.', 'from');
  const days = Math.round((last.getTime() - first.getTime()) / DAY) + 1;
  if (days > MAX_DAYS) throw errors.validation(`The range is ${days} days; at most ${MAX_DAYS} are allowed.`, 'to');
  return { first, end: new Date(last.getTime() + DAY), days };
}

// The day counters (qr_scan_days) in one pass: the grand total, then per day, device and city.
const ROLLUP = `
SELECT day::text AS day, device, city, GROUPING(day, device, city) AS g,
       sum(scans)::int AS scans, sum(unique_scans)::int AS uniq, sum(conversions)::int AS converted
FROM qr_scan_days WHERE store_id = $1 AND code_id = ANY($2::uuid[]) AND day >= $3::date AND day < $4::date
GROUP BY GROUPING SETS ((), (day), (device), (city))`;

// Scans of the range that orders named and no call-to-action converted already.
const ORDERED = `
SELECT count(*)::int AS n FROM qr_scans
WHERE store_id = $1 AND id = ANY($5::uuid[]) AND code_id = ANY($2::uuid[]) AND scanned_at >= $3 AND scanned_at < $4 AND converted_at IS NULL`;

async function analyticsOf(ctx: Ctx, codeIds: string[], range: ReturnType<typeof dayRange>) {
  // Scans this process answered but has not written yet are counted too (read-your-writes).
  await settleStore(ctx.db, ctx.store.id);
  const args = [ctx.store.id, codeIds, range.first, range.end];
  const attributed = await attributedScanIds(ctx.db, ctx.store.id, range.first);
  const [rows, ordered] = await Promise.all([
    ctx.db.query(ROLLUP, args),
    attributed.length ? ctx.db.query<{ n: number }>(ORDERED, [...args, attributed]) : Promise.resolve([{ n: 0 }]),
  ]);
  const by_device: Record<string, number> = {};
  const by_city: Record<string, number> = {};
  const perDay = new Map<string, number>();
  let totals = { scans: 0, uniq: 0, converted: 0 };
  for (const r of rows) {
    if (r.g === 7) totals = { scans: r.scans ?? 0, uniq: r.uniq ?? 0, converted: r.converted ?? 0 };
    else if (r.day !== null) perDay.set(r.day, r.scans);
    else if (r.device !== null) by_device[r.device] = r.scans;
    else if (r.city !== null) by_city[r.city] = r.scans;
  }
  const by_day = Array.from({ length: range.days }, (_, i) => {
    const date = new Date(range.first.getTime() + i * DAY).toISOString().slice(0, 10);
    return { date, scans: perDay.get(date) ?? 0 };
  });
  const conversions = totals.converted + ordered[0].n;
  return {
    from: range.first.toISOString().slice(0, 10),
    to: by_day[by_day.length - 1].date,
    total_scans: totals.scans,
    unique_scans: totals.uniq,
    by_city,
    by_device,
    by_day,
    conversions,
    conversion_rate: totals.scans ? conversions / totals.scans : 0,
  };
}

export async function codeAnalytics(ctx: Ctx, input: { code: string; from?: string; to?: string }): Promise<Static<typeof Analytics>> {
  const range = dayRange(ctx.clock.now(), input.from, input.to);
  const row = await codeRow(ctx, input.code);
  return { object: 'qr_analytics', code: row.code, campaign_name: row.campaign_name, ...(await analyticsOf(ctx, [row.id], range)) };
}

export async function campaignAnalytics(ctx: Ctx, input: { campaign_name: string; from?: string; to?: string }): Promise<Static<typeof Analytics>> {
  const range = dayRange(ctx.clock.now(), input.from, input.to);
  const rows = await ctx.db.query<{ id: string }>('SELECT id FROM qr_codes WHERE store_id = $1 AND campaign_name = $2 AND archived_at IS NULL', [
    ctx.store.id,
    input.campaign_name,
  ]);
  // A campaign exists through its codes: none in this store is 404, as for an unknown code.
  if (!rows.length) throw errors.notFound(`qr campaign: '${input.campaign_name}'`, 'campaign_name');
  return {
    object: 'qr_analytics',
    code: null,
    campaign_name: input.campaign_name,
    ...(await analyticsOf(
      ctx,
      rows.map((r) => r.id),
      range,
    )),
  };
}
