import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const StageName = Type.String({
  pattern: '^[a-z0-9_]{1,40}$',
  errorMessage: 'must be 1 to 40 lower-case letters, digits or _',
  description: 'A stage name.',
});
const DateText = (d: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', errorMessage: 'must be a date (YYYY-MM-DD)', description: d });

export const Stage = Type.Object({
  name: StageName,
  probability: Type.Number({ minimum: 0, maximum: 100, description: 'Chance to win, in percent (0 to 100).' }),
});
export const Stages = Type.Object({ object: Type.Literal('pipeline_stages'), stages: Type.Array(Stage) });
export const StagesSet = Input({
  stages: Type.Array(Stage, { minItems: 1, maxItems: 30, description: 'Every stage, in pipeline order; names unique.' }),
});
export const NoInput = Input({});

const Actor = Type.Object({ type: Type.String(), id: Type.Union([Type.String(), Type.Null()]) });
export const Deal = Type.Object({
  object: Type.Literal('deal'),
  id: Uuid(),
  title: Type.String(),
  customer_id: Type.Union([Uuid(), Type.Null()]),
  value: Type.Number({ description: "In the store's currency." }),
  currency: Type.String(),
  stage: Type.String(),
  probability: Type.Number({ description: "The stage's probability, in percent." }),
  close_date: Type.Union([Type.String(), Type.Null()]),
  stage_history: Type.Array(Type.Object({ from: Type.Union([Type.String(), Type.Null()]), to: Type.String(), at: Timestamp(), actor: Actor })),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const DealCreate = Input({
  title: Type.String({ minLength: 1, maxLength: 300 }),
  customer_id: Type.Optional(Uuid("One of this store's customers.")),
  value: Type.Number({ minimum: 0, description: "Expected value, in the store's currency." }),
  stage: Type.Optional(Type.String({ maxLength: 40, description: 'One of the stages (default: the first).' })),
  close_date: Type.Optional(DateText('Expected close date.')),
});
export const DealId = Input({ id: Uuid('Deal id') });
export const MoveStage = Input({ id: Uuid('Deal id'), stage: Type.String({ maxLength: 40, description: 'The stage to move to.' }) });
export const DealQuery = Input({
  ...ListParams,
  stage: Type.Optional(Type.String({ maxLength: 40 })),
  customer_id: Type.Optional(Uuid()),
});
export const DealList = ListOf(Deal);
export const ForecastQuery = Input({
  from: Type.Optional(DateText('First close date counted, inclusive.')),
  to: Type.Optional(DateText('Last close date counted, inclusive.')),
});
export const Forecast = Type.Object({
  object: Type.Literal('forecast'),
  currency: Type.String(),
  months: Type.Array(
    Type.Object({
      month: Type.String({ description: 'YYYY-MM of close_date.' }),
      deals: Type.Integer(),
      value: Type.Number(),
      weighted_value: Type.Number({ description: 'Sum of value x probability.' }),
    }),
  ),
  value: Type.Number(),
  weighted_value: Type.Number(),
});
