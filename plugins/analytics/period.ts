import { errors } from '../../core/sdk';

/**
 * A report's period: `from` and `to` are inclusive dates in the store's time zone (default the
 * last 30 days up to today there), read as the half-open instants [from 00:00, the day after to
 * 00:00) of that zone. The previous period is as many days just before.
 */
export interface Period {
  from: string;
  to: string;
  days: number;
}

const DAY = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const asUtcDate = (text: string, param: string) => {
  const d = new Date(`${text}T00:00:00Z`);
  if (!DATE.test(text) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text)
    throw errors.validation(`Invalid ${param}: must be a date (YYYY-MM-DD) in the store's time zone.`, param);
  return d;
};
const text = (d: Date) => d.toISOString().slice(0, 10);

/** Today's date in `tz` (en-CA formats as YYYY-MM-DD). */
export const todayIn = (now: Date, tz: string) => new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(now);

export function periodOf(input: { from?: string; to?: string }, now: Date, tz: string): Period {
  const to = asUtcDate(input.to ?? todayIn(now, tz), 'to');
  const from = input.from !== undefined ? asUtcDate(input.from, 'from') : new Date(to.getTime() - 29 * DAY);
  if (to < from) throw errors.validation(`Invalid to: ${text(to)} is before from (${text(from)}).`, 'to');
  const days = Math.round((to.getTime() - from.getTime()) / DAY) + 1;
  if (days > 3660) throw errors.validation('Invalid from: a report covers at most 10 years.', 'from');
  return { from: text(from), to: text(to), days };
}

export function previousOf(p: Period): Period {
  const to = new Date(asUtcDate(p.from, 'from').getTime() - DAY);
  return { from: text(new Date(to.getTime() - (p.days - 1) * DAY)), to: text(to), days: p.days };
}

/** The day after `date` (the exclusive end of a period). */
export const dayAfter = (date: string) => text(new Date(asUtcDate(date, 'to').getTime() + DAY));
