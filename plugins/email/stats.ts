import { errors, type Ctx } from '../../core/sdk';

// Declared in stats-schemas.ts (index.ts takes them at start); kept here for this module's users.
export { Stats, StatsQuery } from './stats-schemas';

const day = (d: Date) => d.toISOString().slice(0, 10);
function parseDay(text: string, param: string): Date {
  const d = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || day(d) !== text) throw errors.validation(`${param} is not a valid date.`, param);
  return d;
}
const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 10000) / 100 : 0);

/**
 * SPEC 2.10's stats over [date_from, date_to] (UTC days, inclusive), from the daily counts
 * (messages.ts countFirst): `sent` counts messages accepted in the range (suppressed ones never
 * leave); each event counts the messages whose first such event fell in the range.
 */
export async function emailStats(ctx: Ctx, input: { date_from?: string; date_to?: string }) {
  const to = input.date_to ? parseDay(input.date_to, 'date_to') : parseDay(day(ctx.clock.now()), 'date_to');
  const from = input.date_from ? parseDay(input.date_from, 'date_from') : new Date(to.getTime() - 29 * 86400_000);
  if (from > to) throw errors.validation('date_from is after date_to.', 'date_from');
  const rows = await ctx.db.query<{ event: string; n: number }>(
    `SELECT event, sum(messages)::int AS n FROM email_daily_stats WHERE store_id = $1 AND day >= $2::date AND day <= $3::date GROUP BY event`,
    [ctx.store.id, day(from), day(to)],
  );
  const n = Object.fromEntries(rows.map((r) => [r.event, r.n])) as Record<string, number>;
  const c = (e: string) => n[e] ?? 0;
  return {
    object: 'email_stats' as const,
    date_range: { from: day(from), to: day(to) },
    sent: c('sent'),
    delivered: c('delivered'),
    opened: c('opened'),
    clicked: c('clicked'),
    bounced: c('bounced'),
    complained: c('complained'),
    unsubscribed: c('unsubscribed'),
    open_rate: percent(c('opened'), c('delivered')),
    click_rate: percent(c('clicked'), c('delivered')),
    bounce_rate: percent(c('bounced'), c('sent')),
  };
}
