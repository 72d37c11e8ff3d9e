import { Type } from '@sinclair/typebox';
import { action, definePlugin, errors, Input, thisMonth, usageReport } from '../../core/sdk';

const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', errorMessage: 'must be a date as YYYY-MM-DD', description });

const Counts = {
  requests: Type.Integer({ minimum: 0 }),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
  images: Type.Integer({ minimum: 0 }),
  video_seconds: Type.Number({ minimum: 0 }),
  pages: Type.Integer({ minimum: 0 }),
  cost: Type.Number({
    minimum: 0,
    description: 'USD, from the price table (SVC_PROVIDER_PRICES adds or overrides models; an unlisted one costs 0).',
  }),
};

const Usage = Type.Object({
  object: Type.Literal('usage'),
  from: Type.String(),
  to: Type.String(),
  currency: Type.Literal('USD'),
  total_cost: Type.Number({ minimum: 0 }),
  monthly_spend_cap: Type.Union([Type.Number(), Type.Null()], { description: 'Set by the operator (PATCH /v1/stores/{id}); null: none.' }),
  month_to_date_cost: Type.Number({ minimum: 0 }),
  days: Type.Array(Type.Object({ date: Type.String(), provider: Type.String(), model: Type.String(), ...Counts }), {
    description: 'Per day (UTC), provider and model, in that order.',
  }),
});

/** A calendar day that exists (2026-02-30 does not, though Date.parse rolls it over). */
const realDay = (day: string) => {
  const t = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === day;
};

/** Longest range one report covers. */
const MAX_DAYS = 366;

/**
 * What the store's provider calls (models, embeddings, search; agents' included) used and cost,
 * per day. A REST-only platform route like admin's: a report for people, not a tool.
 */
export default definePlugin({
  name: 'usage',
  category: 'platform',
  description: "The store's outside provider usage and cost per day, with its monthly spend cap.",
  tool: false,
  scopes: { read: ['ai', 'ai:read', 'platform', 'platform:read'], write: ['platform'] },
  actions: {
    get_usage: action({
      kind: 'read',
      description: 'Provider usage and cost per day, provider and model from `from` to `to` (inclusive dates; default this month).',
      input: Input({
        from: Type.Optional(Day('First day (default: the first of this month).')),
        to: Type.Optional(Day('Last day (default: today).')),
      }),
      output: Usage,
      rest: { method: 'GET', path: '/usage' },
      handler: async (ctx, input) => {
        const month = await thisMonth(ctx.db, ctx.clock, ctx.store.id);
        const from = input.from ?? month.from;
        const to = input.to ?? (input.from && input.from > month.to ? input.from : month.to);
        for (const [param, day] of [
          ['from', from],
          ['to', to],
        ])
          if (!realDay(day)) throw errors.validation(`${param} must be a real date (YYYY-MM-DD): '${day}' is not.`, param);
        const days = (Date.parse(to) - Date.parse(from)) / 86_400_000;
        if (days < 0) throw errors.validation('from must not be after to.', 'from');
        if (days >= MAX_DAYS) throw errors.validation(`A report covers at most ${MAX_DAYS} days.`, 'to');
        return usageReport({ db: ctx.db, clock: ctx.clock, storeId: ctx.store.id }, from, to);
      },
    }),
  },
});
