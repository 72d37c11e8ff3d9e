import type { Static } from '@sinclair/typebox';
import { errors, jsonParam, listPage, lockKey, rowOr404, setClause, setEventSubscriptions, stamps, type Ctx, type Row } from '../../core/sdk';
import { principalOf } from '../../core/platform';
import { MAX_WORKFLOWS, type Step, type Trigger, type WorkflowCreate, type WorkflowQuery, type WorkflowUpdate } from './schemas';
import { checkCron } from './cron';

export const toWorkflow = (r: Row) => ({
  object: 'workflow' as const,
  id: r.id,
  name: r.name,
  enabled: r.enabled,
  trigger: r.trigger,
  steps: r.steps,
  dropped_runs: r.dropped_runs,
  ...stamps(r),
});

export const workflowRow = (ctx: Ctx, id: string, param = 'id', lock?: 'FOR UPDATE') =>
  rowOr404(ctx.db, { table: 'workflows', storeId: ctx.store.id, id, noun: 'workflow', param, lock });

/** What the declaration cannot say: unique step ids, a tool step names a tool (and an action of a built-in), a delay its seconds. */
function checkDefinition(ctx: Ctx, trigger: Static<typeof Trigger> | undefined, steps: Static<typeof Step>[] | undefined) {
  if (trigger?.type === 'event' && !ctx.registry.events.has(trigger.event))
    throw errors.validation(`trigger.event: '${trigger.event}' is not an event type of svc.`, 'trigger.event');
  if (trigger?.type === 'cron') checkCron(trigger.cron);
  const seen = new Set<string>();
  for (const [i, s] of (steps ?? []).entries()) {
    const at = `steps[${i}]`;
    if (seen.has(s.id)) throw errors.validation(`${at}.id: '${s.id}' is used by an earlier step; step ids are unique.`, `${at}.id`);
    seen.add(s.id);
    if (s.type === 'delay') {
      if (!s.seconds) throw errors.validation(`${at}.seconds: a delay step says how many seconds it waits.`, `${at}.seconds`);
      continue;
    }
    if (!s.tool) throw errors.validation(`${at}.tool: a tool step names the tool it calls.`, `${at}.tool`);
    const plugin = ctx.registry.byName.get(s.tool);
    // Not a built-in: a custom tool, found (and its input checked) when the step runs.
    if (!plugin) continue;
    if (!s.action || !plugin.actions[s.action])
      throw errors.validation(
        `${at}.action: '${s.action ?? ''}' is not an action of ${s.tool}. Valid actions: ${Object.keys(plugin.actions).join(', ')}.`,
        `${at}.action`,
      );
  }
}

/** The event types this store's enabled workflows listen to: svc stores those events for it and hands them to `onSubscribed`. */
async function resubscribe(ctx: Ctx) {
  const rows = await ctx.db.query<{ type: string }>(
    `SELECT DISTINCT trigger->>'event' AS type FROM workflows WHERE store_id = $1 AND enabled AND trigger->>'type' = 'event'`,
    [ctx.store.id],
  );
  await setEventSubscriptions(
    ctx.db,
    ctx.store.id,
    'workflows',
    rows.map((r) => r.type),
  );
}

export async function createWorkflow(ctx: Ctx, input: Static<typeof WorkflowCreate>) {
  checkDefinition(ctx, input.trigger, input.steps);
  await lockKey(ctx.db, ctx.store.id, 'workflows:count');
  const [{ n }] = await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM workflows WHERE store_id = $1', [ctx.store.id]);
  if (n >= MAX_WORKFLOWS) throw errors.validation(`A store has at most ${MAX_WORKFLOWS} workflows; delete one first.`, 'name');
  const now = ctx.clock.now();
  const [r] = await ctx.db.query(
    `INSERT INTO workflows (id, store_id, name, enabled, trigger, steps, principal, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4::text::jsonb, $5::text::jsonb, $6::text::jsonb, $7, $7) RETURNING *`,
    [ctx.store.id, input.name, input.enabled ?? true, jsonParam(input.trigger), jsonParam(input.steps), jsonParam(principalOf(ctx.principal)), now],
  );
  await resubscribe(ctx);
  return toWorkflow(r);
}

export async function updateWorkflow(ctx: Ctx, input: Static<typeof WorkflowUpdate>) {
  await workflowRow(ctx, input.id, 'id', 'FOR UPDATE');
  checkDefinition(ctx, input.trigger, input.steps);
  // Who saves it lends it their rights: the steps run with this credential's scopes from now on.
  const set = setClause(
    { name: input.name, enabled: input.enabled, trigger: input.trigger, steps: input.steps, principal: principalOf(ctx.principal) },
    { json: ['trigger', 'steps', 'principal'], after: 3 },
  );
  const [r] = await ctx.db.query(`UPDATE workflows SET ${set.sql}, updated_at = $3 WHERE store_id = $1 AND id = $2 RETURNING *`, [
    ctx.store.id,
    input.id,
    ctx.clock.now(),
    ...set.params,
  ]);
  await resubscribe(ctx);
  return toWorkflow(r);
}

export async function deleteWorkflow(ctx: Ctx, id: string) {
  await workflowRow(ctx, id);
  await ctx.db.query('DELETE FROM workflows WHERE store_id = $1 AND id = $2', [ctx.store.id, id]);
  // Runs under way stop at their next step (their workflow is gone); finished ones stay readable.
  await ctx.db.query(
    `UPDATE workflow_runs SET status = 'cancelled', finished_at = $3, updated_at = $3
     WHERE store_id = $1 AND workflow_id = $2 AND status IN ('queued', 'running', 'waiting')`,
    [ctx.store.id, id, ctx.clock.now()],
  );
  await resubscribe(ctx);
  return { id, object: 'workflow' as const, deleted: true as const };
}

export const listWorkflows = (ctx: Ctx, input: Static<typeof WorkflowQuery>) =>
  listPage(ctx, { table: 'workflows', path: '/workflows', input }, (rows) => rows.map(toWorkflow));
