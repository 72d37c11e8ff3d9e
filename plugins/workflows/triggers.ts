import type { Static } from '@sinclair/typebox';
import { fail, type Ctx, type ReactionEvent, type Row, type Store } from '../../core/sdk';
import { storeSettings } from '../store/public';
import type { WorkflowsConfig } from './config';
import { firesAt } from './cron';
import { startRun, toRun } from './runs';
import { workflowRow } from './store';

type WCtx = Ctx<Static<typeof WorkflowsConfig>>;

/** trigger_workflow: a run now, with the caller's input as its trigger data. */
export async function triggerWorkflow(ctx: Ctx, workflowId: string, input: Record<string, unknown> | undefined) {
  const workflow = await workflowRow(ctx, workflowId, 'workflow_id');
  if (!workflow.enabled) throw fail('workflow_disabled', `Workflow '${workflowId}' is disabled; enable it to run it.`, 'workflow_id');
  const run = await startRun(ctx, ctx.db, {
    storeId: ctx.store.id,
    plan: ctx.store.plan,
    workflow,
    type: 'manual',
    data: input ?? {},
    chainDepth: 0,
  });
  return toRun(run!);
}

/**
 * An event of a type this store's workflows listen to (event_subscriptions): a run of each enabled
 * one, unless the event was caused by runs already chained past SVC_WORKFLOWS_MAX_CHAIN_DEPTH.
 */
export async function onEvent(ctx: WCtx, event: ReactionEvent) {
  const depth = Number(event.cause?.chain_depth ?? 0);
  if (depth > ctx.config.max_chain_depth) {
    ctx.log.warn('workflow chain too deep: no run started', { event_id: event.id, type: event.type, depth, max: ctx.config.max_chain_depth });
    return;
  }
  const workflows = await ctx.db.query(
    `SELECT * FROM workflows WHERE store_id = $1 AND enabled AND trigger->>'type' = 'event' AND trigger->>'event' = $2 ORDER BY seq`,
    [ctx.store.id, event.type],
  );
  for (const workflow of workflows)
    await startRun(ctx, ctx.db, { storeId: ctx.store.id, plan: ctx.store.plan, workflow, type: 'event', data: event.data, chainDepth: depth });
}

/** Every minute: the cron workflows of every store whose schedule, read in the store's timezone, fires this minute. */
export async function cronTick(ctx: Ctx) {
  const now = ctx.clock.now();
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const rows = await ctx.db.query<Row & { plan: Store['plan'] }>(
    `SELECT w.*, s.plan FROM workflows w JOIN stores s ON s.id = w.store_id WHERE w.enabled AND w.trigger->>'type' = 'cron'`,
  );
  let started = 0;
  for (const workflow of rows) {
    const { timezone } = await storeSettings(ctx.db, workflow.store_id);
    if (!firesAt(workflow.trigger.cron, minute, timezone)) continue;
    const run = await ctx.db.transaction((tx) =>
      startRun(ctx, tx, {
        storeId: workflow.store_id,
        plan: workflow.plan,
        workflow,
        type: 'cron',
        data: { scheduled_at: minute.toISOString() },
        chainDepth: 0,
        scheduledAt: minute,
      }),
    );
    if (run) started++;
  }
  return { started };
}
