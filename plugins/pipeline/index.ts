import { action, conflict, definePlugin, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_pipeline.sql' with { type: 'text' };
import { Deal, DealCreate, DealId, DealList, DealQuery, Forecast, ForecastQuery, MoveStage, NoInput, Stages, StagesSet } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createDeal, forecast, getDeal, getStages, listDeals, moveStage, putStages } = onFirstCall(() => import('./store'));

let deals = 0;

const pipeline = definePlugin({
  name: 'pipeline',
  category: 'operations',
  description: 'A sales pipeline: deals moving through stages with probabilities, their history, and a monthly forecast.',
  resource: 'deal',
  catalog: true,
  // SPEC 5.4: crm, crm:read, crm:write.
  scopes: { read: ['crm', 'crm:read', 'crm:write'], write: ['crm', 'crm:write'] },
  tables: ['deals', 'pipeline_stages'],
  requires: ['store', 'customers'],
  events: { 'deal.created': Deal, 'deal.stage_changed': Deal },
  errors: { stage_in_use: conflict('A stage left out of set_stages still holds deals.') },
  migrations: [{ id: 'pipeline/001_pipeline', sql: migration001 }],
  actions: {
    list_deals: action({
      kind: 'read',
      description: 'List deals, newest first; filter by stage or customer_id.',
      input: DealQuery,
      output: DealList,
      rest: { method: 'GET', path: '/deals' },
      handler: listDeals,
    }),
    get_deal: action({
      kind: 'read',
      description: 'Fetch one deal with its probability and stage_history.',
      input: DealId,
      output: Deal,
      rest: { method: 'GET', path: '/deals/:id' },
      handler: (ctx, { id }) => getDeal(ctx, id),
    }),
    create_deal: action({
      kind: 'write',
      description:
        'Create a deal: title, value (store currency), optional customer_id, stage (default the first) and close_date. An unknown stage is 400.',
      input: DealCreate,
      output: Deal,
      rest: { method: 'POST', path: '/deals', status: 201 },
      emits: ['deal.created'],
      example: async () => ({ title: `Deal ${++deals}`, value: 1200, close_date: '2026-06-30' }),
      handler: createDeal,
    }),
    move_stage: action({
      kind: 'write',
      description: 'Move a deal to another stage; its stage_history gains {from, to, at, actor}. An unknown stage is 400.',
      input: MoveStage,
      output: Deal,
      rest: { method: 'POST', path: '/deals/:id/move' },
      emits: ['deal.stage_changed'],
      example: { stage: 'qualified' },
      handler: moveStage,
    }),
    get_forecast: action({
      kind: 'read',
      description: 'Per month of close_date (optionally from/to, inclusive dates): deals, value and weighted_value (sum of value x probability).',
      input: ForecastQuery,
      output: Forecast,
      rest: { method: 'GET', path: '/deals/forecast' },
      handler: forecast,
    }),
    list_stages: action({
      kind: 'read',
      description: 'The stages in order, with probabilities (default lead 10, qualified 25, proposal 50, negotiation 75, won 100, lost 0).',
      input: NoInput,
      output: Stages,
      rest: { method: 'GET', path: '/pipeline/stages' },
      handler: (ctx) => getStages(ctx),
    }),
    set_stages: action({
      kind: 'write',
      description: 'Replace the stages (names unique, probability 0-100, in order). A stage left out that still holds deals: 409 stage_in_use.',
      input: StagesSet,
      output: Stages,
      rest: { method: 'PUT', path: '/pipeline/stages' },
      errors: ['stage_in_use'],
      example: {
        stages: [
          { name: 'lead', probability: 10 },
          { name: 'qualified', probability: 25 },
          { name: 'proposal', probability: 50 },
          { name: 'negotiation', probability: 75 },
          { name: 'won', probability: 100 },
          { name: 'lost', probability: 0 },
        ],
      },
      handler: putStages,
    }),
  },
});
export default pipeline;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'pipeline', typeof pipeline> {}
}
