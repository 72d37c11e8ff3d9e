import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const MAX_STEPS = 50;
export const MAX_WORKFLOWS = 100;

const StepId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', errorMessage: 'must be letters, digits, _ or -' });

export const Trigger = Type.Union(
  [
    Type.Object({ type: Type.Literal('manual') }, { additionalProperties: false }),
    Type.Object({ type: Type.Literal('event'), event: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
    Type.Object(
      { type: Type.Literal('cron'), cron: Type.String({ minLength: 9, maxLength: 100, description: 'Five fields, in the store timezone.' }) },
      { additionalProperties: false },
    ),
  ],
  { description: 'manual (trigger_workflow), event (any webhook event type of this store) or cron (five fields, store timezone).' },
);

export const Step = Type.Object(
  {
    id: StepId,
    type: Type.Union([Type.Literal('tool'), Type.Literal('delay')]),
    tool: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'A tool (products) or a custom tool (then no action).' })),
    action: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    input: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Templates: {{trigger.<path>}}, {{steps.<id>.output.<path>}}.' })),
    seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * 86_400, description: 'A delay step: how long to wait.' })),
    condition: Type.Optional(
      Type.Union([Type.Boolean(), Type.String({ minLength: 1, maxLength: 2000 })], {
        description: 'A JavaScript expression over trigger and steps (sandboxed); false skips the step.',
      }),
    ),
    retries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10 })),
    retry_delay_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
    requires_approval: Type.Optional(Type.Boolean({ description: 'Hold this step’s call for approval, as a gated tool is.' })),
  },
  { additionalProperties: false },
);

export const WorkflowCreate = Input({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  enabled: Type.Optional(Type.Boolean()),
  trigger: Trigger,
  steps: Type.Array(Step, { minItems: 1, maxItems: MAX_STEPS }),
});
export const WorkflowUpdate = Input({
  id: Uuid(),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  enabled: Type.Optional(Type.Boolean()),
  trigger: Type.Optional(Trigger),
  steps: Type.Optional(Type.Array(Step, { minItems: 1, maxItems: MAX_STEPS })),
});
export const WorkflowId = Input({ id: Uuid() });
export const WorkflowQuery = Input({ ...ListParams });
export const RunsQuery = Input({ id: Uuid('The workflow.'), ...ListParams });

export const Workflow = Type.Object({
  object: Type.Literal('workflow'),
  id: Type.String(),
  name: Type.String(),
  enabled: Type.Boolean(),
  trigger: Trigger,
  steps: Type.Array(Step),
  dropped_runs: Type.Integer({ description: 'Event and cron runs dropped: the plan’s runs per hour were spent.' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const WorkflowList = ListOf(Workflow);

const Status = Type.Union(['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'].map((s) => Type.Literal(s)));
const StepStatus = Type.Union(['pending', 'running', 'waiting', 'succeeded', 'failed', 'skipped'].map((s) => Type.Literal(s)));
const ErrorBody = Type.Object({ code: Type.String(), message: Type.String() });

export const Run = Type.Object({
  object: Type.Literal('workflow_run'),
  id: Type.String(),
  workflow_id: Type.String(),
  status: Status,
  trigger: Type.Object({ type: Type.String(), data: Type.Unknown() }),
  chain_depth: Type.Integer(),
  failed_step: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([ErrorBody, Type.Null()]),
  steps: Type.Array(
    Type.Object({
      id: Type.String(),
      status: StepStatus,
      output: Type.Unknown(),
      error: Type.Union([ErrorBody, Type.Null()]),
      attempts: Type.Integer(),
      execution_id: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  created_at: Timestamp(),
  finished_at: Type.Union([Timestamp(), Type.Null()]),
});
export const RunList = ListOf(Run);
export const TriggerInput = Input({
  workflow_id: Uuid('The workflow to run.'),
  input: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The run’s trigger data ({{trigger.<path>}}).' })),
});
export const RunId = Input({ run_id: Uuid('The run.') });
