import { CronExpressionParser } from 'cron-parser';
import { errors } from '../../core/sdk';

/** Five fields (minute hour day month weekday); a seconds field or a nickname is refused. */
export function checkCron(expr: string) {
  const fields = expr.trim().split(/\s+/);
  const bad = (why: string) => errors.validation(`trigger.cron: '${expr}' ${why}.`, 'trigger.cron');
  if (fields.length !== 5) throw bad('must have five fields (minute hour day month weekday)');
  try {
    CronExpressionParser.parse(expr, { tz: 'UTC' });
  } catch (e) {
    throw bad(`is not a cron schedule (${(e as Error).message})`);
  }
}

/** Whether the schedule fires at `minute` (the start of a minute), read in the store's timezone. */
export function firesAt(expr: string, minute: Date, timezone: string): boolean {
  const it = CronExpressionParser.parse(expr, { currentDate: new Date(minute.getTime() - 1), tz: timezone });
  return it.next().getTime() === minute.getTime();
}
