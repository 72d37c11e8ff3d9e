import { Type } from '@sinclair/typebox';
import { Input } from '../../core/sdk';

/** SPEC 2.10's stats (stats.ts computes them): declared apart so the plugin's start does not load stats.ts. */
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
