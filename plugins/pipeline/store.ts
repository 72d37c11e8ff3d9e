import type { Static } from '@sinclair/typebox';
import { actorOf, errors, fromMinor, iso, listPage, rowOr404, stamps, toMinor, type Ctx, type Row } from '../../core/sdk';
import { customersIn } from '../customers/public';
import { storeSettings } from '../store/public';
import type { DealCreate, DealQuery, ForecastQuery, MoveStage, StagesSet } from './schemas';
import { setStages, stageNamed, stagesOf, type StageDef } from './stages';

const toDeal = (r: Row, stages: StageDef[]) => ({
  object: 'deal' as const,
  id: r.id,
  title: r.title,
  customer_id: r.customer_id ?? null,
  value: fromMinor(Number(r.value_minor), r.currency),
  currency: r.currency,
  stage: r.stage,
  probability: stages.find((s) => s.name === r.stage)?.probability ?? 0,
  close_date: r.close_date == null ? null : dateText(r.close_date),
  stage_history: r.stage_history,
  ...stamps(r),
});
// A date column comes back as a Date at UTC midnight (pg) or as text, depending on the driver.
const dateText = (d: unknown) => (d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10));
const checkDate = (text: string, param: string) => {
  const d = new Date(`${text}T00:00:00Z`);
  if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text) throw errors.validation(`Invalid ${param}: not a calendar date.`, param);
  return text;
};
const actor = (ctx: Ctx) => actorOf(ctx.principal);

export const getStages = async (ctx: Ctx) => ({ object: 'pipeline_stages' as const, stages: await stagesOf(ctx.db, ctx.store.id) });

export async function putStages(ctx: Ctx, input: Static<typeof StagesSet>) {
  const stages = await setStages(ctx.db, ctx.store.id, input.stages, ctx.clock.now());
  return { object: 'pipeline_stages' as const, stages };
}

export async function listDeals(ctx: Ctx, input: Static<typeof DealQuery>) {
  const stages = await stagesOf(ctx.db, ctx.store.id);
  return listPage(
    ctx,
    { table: 'deals', path: '/deals', input, filters: { 'stage = $': input.stage, 'customer_id = $': input.customer_id?.toLowerCase() } },
    (rows) => rows.map((r) => toDeal(r, stages)),
  );
}

export async function getDeal(ctx: Ctx, id: string) {
  const stages = await stagesOf(ctx.db, ctx.store.id);
  return toDeal(await rowOr404(ctx.db, { table: 'deals', storeId: ctx.store.id, id, noun: 'deal' }), stages);
}

export async function createDeal(ctx: Ctx, input: Static<typeof DealCreate>) {
  const stages = await stagesOf(ctx.db, ctx.store.id);
  const stage = input.stage === undefined ? stages[0] : stageNamed(stages, input.stage, 'stage');
  if (input.customer_id && !(await customersIn(ctx.db, ctx.store.id, [input.customer_id])).size)
    throw errors.notFound(`customer: '${input.customer_id}'`, 'customer_id');
  const { currency } = await storeSettings(ctx.db, ctx.store.id);
  const now = ctx.clock.now();
  const history = [{ from: null, to: stage.name, at: iso(now), actor: actor(ctx) }];
  const [r] = await ctx.db.query(
    `INSERT INTO deals (id, store_id, title, customer_id, value_minor, currency, stage, close_date, stage_history, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9, $9) RETURNING *`,
    [
      ctx.store.id,
      input.title,
      input.customer_id?.toLowerCase() ?? null,
      toMinor(input.value, currency, 'value'),
      currency,
      stage.name,
      input.close_date ? checkDate(input.close_date, 'close_date') : null,
      JSON.stringify(history),
      now,
    ],
  );
  const deal = toDeal(r, stages);
  ctx.emit('deal.created', deal);
  return deal;
}

/** Moves a deal, appending {from, to, at, actor} under the row's lock (concurrent moves queue). */
export async function moveStage(ctx: Ctx, input: Static<typeof MoveStage>) {
  const stages = await stagesOf(ctx.db, ctx.store.id);
  const to = stageNamed(stages, input.stage, 'stage');
  const current = await rowOr404(ctx.db, { table: 'deals', storeId: ctx.store.id, id: input.id, noun: 'deal', lock: 'FOR UPDATE' });
  if (current.stage === to.name) return toDeal(current, stages);
  const now = ctx.clock.now();
  const entry = { from: current.stage, to: to.name, at: iso(now), actor: actor(ctx) };
  const [r] = await ctx.db.query(
    'UPDATE deals SET stage = $3, stage_history = stage_history || $4::text::jsonb, updated_at = $5 WHERE store_id = $1 AND id = $2 RETURNING *',
    [ctx.store.id, current.id, to.name, JSON.stringify([entry]), now],
  );
  const deal = toDeal(r, stages);
  ctx.emit('deal.stage_changed', deal);
  return deal;
}

/** Per month of close_date: value and weighted_value (sum of value x the stage's probability). */
export async function forecast(ctx: Ctx, input: Static<typeof ForecastQuery>) {
  const stages = await stagesOf(ctx.db, ctx.store.id);
  const { currency } = await storeSettings(ctx.db, ctx.store.id);
  const from = input.from ? checkDate(input.from, 'from') : null;
  const to = input.to ? checkDate(input.to, 'to') : null;
  if (from && to && to < from) throw errors.validation(`Invalid to: ${to} is before from (${from}).`, 'to');
  const rows = await ctx.db.query(
    `SELECT to_char(close_date, 'YYYY-MM') AS month, stage, count(*)::bigint AS deals, sum(value_minor)::bigint AS value
     FROM deals WHERE store_id = $1 AND currency = $2 AND close_date IS NOT NULL
       AND ($3::date IS NULL OR close_date >= $3::date) AND ($4::date IS NULL OR close_date <= $4::date)
     GROUP BY 1, 2 ORDER BY 1`,
    [ctx.store.id, currency, from, to],
  );
  const months = new Map<string, { month: string; deals: number; value: number; weighted: number }>();
  for (const r of rows) {
    const m = months.get(r.month) ?? { month: r.month, deals: 0, value: 0, weighted: 0 };
    const p = stages.find((s) => s.name === r.stage)?.probability ?? 0;
    m.deals += Number(r.deals);
    m.value += Number(r.value);
    m.weighted += (Number(r.value) * p) / 100;
    months.set(r.month, m);
  }
  const out = [...months.values()].map((m) => ({
    month: m.month,
    deals: m.deals,
    value: fromMinor(m.value, currency),
    weighted_value: fromMinor(Math.round(m.weighted), currency),
  }));
  const sum = (k: 'value' | 'weighted') => [...months.values()].reduce((a, m) => a + m[k], 0);
  return {
    object: 'forecast' as const,
    currency,
    months: out,
    value: fromMinor(sum('value'), currency),
    weighted_value: fromMinor(Math.round(sum('weighted')), currency),
  };
}
