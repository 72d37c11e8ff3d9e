import type { Static } from '@sinclair/typebox';
import { errors, fromMinor, type Ctx } from '../../core/sdk';
import { storeSettings } from '../store/public';
import type { ReportInput } from './schemas';

/** A real calendar date (2026-02-30 is not), or a 400 naming it. */
function checkDate(d: string, param: string) {
  const t = new Date(`${d}T00:00:00Z`);
  if (Number.isNaN(t.getTime()) || t.toISOString().slice(0, 10) !== d)
    throw errors.validation(`Invalid ${param}: '${d}' is not a date (YYYY-MM-DD).`, param);
}

/**
 * Tax collected per rate between two dates, inclusive, in the store's timezone (ARCHITECTURE,
 * Time): orders that are paid, fulfilled or completed, counted on the day they were placed; a
 * refund subtracts its share on the day it was made. One row per rate and currency.
 */
export async function taxReport(ctx: Ctx, i: Static<typeof ReportInput>) {
  checkDate(i.from, 'from');
  checkDate(i.to, 'to');
  if (i.to < i.from) throw errors.validation('to must not be before from.', 'to');
  const { timezone } = await storeSettings(ctx.db, ctx.store.id);
  const rows = await ctx.db.query(
    `SELECT rate_id, currency, (array_agg(name ORDER BY at DESC))[1] AS name, sum(taxable_minor) AS taxable, sum(tax_minor) AS tax,
       count(DISTINCT order_id) FILTER (WHERE refund_id IS NULL) AS orders
     FROM tax_entries
     WHERE store_id = $1 AND order_status IN ('paid', 'fulfilled', 'completed')
       AND at >= ($2::date::timestamp AT TIME ZONE $4) AND at < (($3::date + 1)::timestamp AT TIME ZONE $4)
     GROUP BY rate_id, currency ORDER BY name, currency`,
    [ctx.store.id, i.from, i.to, timezone],
  );
  return {
    object: 'tax_report' as const,
    from: i.from,
    to: i.to,
    timezone,
    rates: rows.map((r) => ({
      rate_id: r.rate_id,
      name: r.name,
      currency: r.currency,
      taxable_amount: fromMinor(r.taxable, r.currency),
      tax_amount: fromMinor(r.tax, r.currency),
      orders: Number(r.orders),
    })),
  };
}
