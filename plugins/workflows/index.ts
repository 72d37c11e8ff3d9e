import { Type } from '@sinclair/typebox';
import { action, conflict, definePlugin, Deleted, job, type ExampleKit, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_workflows.sql' with { type: 'text' };
import { WorkflowsConfig } from './config';
import {
  Run,
  RunId,
  RunList,
  RunsQuery,
  TriggerInput,
  Workflow,
  WorkflowCreate,
  WorkflowId,
  WorkflowList,
  WorkflowQuery,
  WorkflowUpdate,
} from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { runStep } = onFirstCall(() => import('./engine'));
const { getStatus, listRuns } = onFirstCall(() => import('./runs'));
const { createWorkflow, deleteWorkflow, listWorkflows, toWorkflow, updateWorkflow, workflowRow } = onFirstCall(() => import('./store'));
const { cronTick, onEvent, triggerWorkflow } = onFirstCall(() => import('./triggers'));

const example = {
  name: 'Restock check',
  trigger: { type: 'manual' as const },
  steps: [{ id: 'list', type: 'tool' as const, tool: 'products', action: 'list_products', input: { limit: 1 } }],
};
const made = async ({ make }: ExampleKit) => ({ workflow_id: (await make('workflows.create_workflow')).id });

const StepJobInput = Type.Object({
  store_id: Type.String(),
  run_id: Type.String(),
  index: Type.Integer({ minimum: 0 }),
  attempt: Type.Integer({ minimum: 1 }),
  resume: Type.Boolean(),
});

const workflows = definePlugin({
  name: 'workflows',
  category: 'operations',
  description:
    'Automations: a trigger (manual, an event, a cron schedule) and steps that call tools, wait, or are skipped by a condition; runs and their status.',
  catalog: true,
  scopes: { read: ['workflows', 'workflows:read'], write: ['workflows', 'workflows:write'] },
  tables: ['workflows', 'workflow_runs'],
  requires: ['store'],
  config: WorkflowsConfig,
  errors: { workflow_disabled: conflict('The workflow is disabled; enable it to run it.') },
  migrations: [{ id: 'workflows/001_workflows', sql: migration001 }],
  jobs: {
    // One step of a run. A killed worker's step is handed back once its heartbeat stops.
    step: job({ input: StepJobInput, retries: 10, heartbeatSeconds: 10, handler: (ctx, input) => runStep(ctx, input) }),
    cron_tick: job({ description: 'Starts the cron workflows due this minute.', input: Type.Object({}), cron: '* * * * *', handler: cronTick }),
  },
  // The event types of this store's event triggers (event_subscriptions), set at run time.
  onSubscribed: (ctx, event) => onEvent(ctx, event),
  actions: {
    list_workflows: action({
      kind: 'read',
      description: 'The store’s workflows, newest last (cursor pages).',
      input: WorkflowQuery,
      output: WorkflowList,
      rest: { method: 'GET', path: '/workflows' },
      handler: listWorkflows,
    }),
    create_workflow: action({
      kind: 'write',
      description:
        'Creates a workflow: a trigger and up to 50 steps (tool calls with templates {{trigger.x}} and {{steps.<id>.output.x}}, delays, conditions). Its steps call tools with this credential’s scopes.',
      input: WorkflowCreate,
      output: Workflow,
      rest: { method: 'POST', path: '/workflows', status: 201 },
      example,
      handler: createWorkflow,
    }),
    get_workflow: action({
      kind: 'read',
      description: 'One workflow, with its definition and dropped_runs.',
      input: WorkflowId,
      output: Workflow,
      rest: { method: 'GET', path: '/workflows/:id' },
      handler: async (ctx, { id }) => toWorkflow(await workflowRow(ctx, id)),
    }),
    update_workflow: action({
      kind: 'write',
      description: 'Changes a workflow (runs under way keep the definition they started with).',
      input: WorkflowUpdate,
      output: Workflow,
      rest: { method: 'PATCH', path: '/workflows/:id' },
      example: { enabled: true },
      handler: updateWorkflow,
    }),
    delete_workflow: action({
      kind: 'destructive',
      description: 'Deletes a workflow; its runs under way are cancelled.',
      input: WorkflowId,
      output: Deleted,
      rest: { method: 'DELETE', path: '/workflows/:id' },
      handler: (ctx, { id }) => deleteWorkflow(ctx, id),
    }),
    trigger_workflow: action({
      kind: 'write',
      description: 'Runs a workflow now with `input` as its trigger data; answers the run (follow it with get_status).',
      input: TriggerInput,
      output: Run,
      rest: { method: 'POST', path: '/workflow-runs', status: 201 },
      errors: ['workflow_disabled', 'rate_limit_exceeded'],
      example: made,
      handler: (ctx, { workflow_id, input }) => triggerWorkflow(ctx, workflow_id, input),
    }),
    get_status: action({
      kind: 'read',
      description: 'A run: its status, each step’s status, output, error and attempts, and failed_step.',
      input: RunId,
      output: Run,
      rest: { method: 'GET', path: '/workflow-runs/:run_id' },
      example: async (kit) => ({ run_id: (await kit.make('workflows.trigger_workflow')).id }),
      handler: (ctx, { run_id }) => getStatus(ctx, run_id),
    }),
    list_runs: action({
      kind: 'read',
      description: 'A workflow’s runs, oldest first (cursor pages).',
      input: RunsQuery,
      output: RunList,
      rest: { method: 'GET', path: '/workflows/:id/runs' },
      handler: listRuns,
    }),
  },
});
export default workflows;
