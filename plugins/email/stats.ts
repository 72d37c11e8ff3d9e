import { Type } from '@sinclair/typebox';
import { errors, Input, type Ctx } from '../../core/sdk';

const DATE = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', errorMessage: 'must be a date such as 2026-04-01' });
export const StatsQuery = Input({
  date_from: Type.Optional({ ...DATE, description: 'First day (UTC), inclusive; default 30 days before date_to.' }),
  date_to: Type.Optional({ ...DATE, description: 'Last day (UTC), inclusive; default today.' }),
});
export const Stats = Type.Object({
  object: Type.Literal('email_stats'),
  date_range: Type.Object({ from: Type.String(), to: Type.String() }),
  sent: Type.Integer(),
  delivered: Type.Integer(),
  opened: Type.Integer(),
  clicked: Type.Integer(),
  bounced: Type.Integer(),
  complained: Type.Integer(),
  unsubscribed: Type.Integer(),
  open_rate: Type.Number({ description: 'Percent of delivered messages opened by a person (machine opens left out).' }),
  click_rate: Type.Number({ description: 'Percent of delivered messages clicked.' }),
  bounce_rate: Type.Number({ description: 'Percent of sent messages bounced.' }),
});

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
