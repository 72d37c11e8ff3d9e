import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { DateRange, dateRangeFilters, Input, Uuid, type Ctx } from '../../core/sdk';

export const UsageQuery = Input({
  created: Type.Optional(DateRange('Only model calls made in this range: created[gte]=2026-04-01, created[lt]=... (any of gt, gte, lt, lte).')),
  agent_id: Type.Optional(Uuid('Only this agent’s model calls (a deleted agent’s still count).')),
});

const Tokens = {
  calls: Type.Integer({ minimum: 0, description: 'Model calls (a chat message takes one per step).' }),
  input_tokens: Type.Integer({ minimum: 0 }),
  output_tokens: Type.Integer({ minimum: 0 }),
};

export const ModelUsage = Type.Object({
  object: Type.Literal('model_usage'),
  ...Tokens,
  by_model: Type.Array(Type.Object({ agent_id: Uuid(), provider: Type.String(), model: Type.String(), ...Tokens }), {
    description: 'Per agent, provider and model, ordered by agent then provider and model.',
  }),
});

/** The store's model usage, as the providers reported it: totals and per agent, provider and model. */
export async function modelUsage(ctx: Ctx, input: Static<typeof UsageQuery>) {
  const where = ['store_id = $1'];
  const params: unknown[] = [ctx.store.id];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replace('$', `$${params.length}`));
  };
  for (const [clause, value] of Object.entries(dateRangeFilters('created_at', input.created))) add(clause, value);
  if (input.agent_id) add('agent_id = $', input.agent_id);
  const rows = await ctx.db.query(
    `SELECT agent_id, provider, model, count(*) AS calls, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
       FROM agent_model_calls WHERE ${where.join(' AND ')}
      GROUP BY agent_id, provider, model ORDER BY agent_id, provider, model`,
    params,
  );
  // count and sum are bigint: a string from the PostgreSQL driver, a number or bigint from PGlite.
  const by_model = rows.map((r) => ({
    agent_id: r.agent_id,
    provider: r.provider,
    model: r.model,
    calls: Number(r.calls),
    input_tokens: Number(r.input_tokens),
    output_tokens: Number(r.output_tokens),
  }));
  const total = (k: 'calls' | 'input_tokens' | 'output_tokens') => by_model.reduce((n, r) => n + r[k], 0);
  return {
    object: 'model_usage' as const,
    calls: total('calls'),
    input_tokens: total('input_tokens'),
    output_tokens: total('output_tokens'),
    by_model,
  };
}
