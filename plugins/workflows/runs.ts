import type { Static } from '@sinclair/typebox';
import { errors, iso, isoOrNull, jsonParam, listPage, lockKey, PLAN_LIMITS, rowOr404, type Ctx, type Db, type Plan, type Row } from '../../core/sdk';
import type { RunsQuery, Step } from './schemas';
import { workflowRow } from './store';

export const FINAL_RUN = new Set(['succeeded', 'failed', 'cancelled']);

export interface StepState {
  status: 'pending' | 'running' | 'waiting' | 'succeeded' | 'failed' | 'skipped';
  output: unknown;
  error: { code: string; message: string } | null;
  attempts: number;
  execution_id: string | null;
}

export const toRun = (r: Row) => ({
  object: 'workflow_run' as const,
  id: r.id,
  workflow_id: r.workflow_id,
  status: r.status,
  trigger: { type: r.trigger_type, data: r.trigger_data },
  chain_depth: r.chain_depth,
  failed_step: r.failed_step,
  error: r.error,
  steps: (r.definition.steps as Static<typeof Step>[]).map((s, i) => ({ id: s.id, ...(r.step_states[i] as StepState) })),
  created_at: iso(r.created_at),
  finished_at: isoOrNull(r.finished_at),
});

export const runRow = (db: Db, storeId: string, id: string) =>
  rowOr404(db, { table: 'workflow_runs', storeId, id, noun: 'workflow run', param: 'run_id' });

export const getStatus = async (ctx: Ctx, runId: string) => toRun(await runRow(ctx.db, ctx.store.id, runId));

export async function listRuns(ctx: Ctx, input: Static<typeof RunsQuery>) {
  await workflowRow(ctx, input.id);
  const { id, ...page } = input;
  return listPage(ctx, { table: 'workflow_runs', path: `/workflows/${id}/runs`, input: page, filters: { 'workflow_id = $': id } }, (rows) =>
    rows.map(toRun),
  );
}

export interface RunStart {
  storeId: string;
  plan: Plan;
  workflow: Row;
  type: 'manual' | 'event' | 'cron';
  data: unknown;
  chainDepth: number;
  scheduledAt?: Date;
}

/**
 * Starts a run in `db` (a transaction) with its first step's job, unless the store's plan has no
 * runs left this hour: then a manual trigger is 429, and an event or cron run is dropped and
 * counted on the workflow (`dropped_runs`). The hour's count is taken under the store's lock, so
 * concurrent triggers never pass the cap together.
 */
export async function startRun(ctx: Ctx, db: Db, s: RunStart): Promise<Row | undefined> {
  const now = ctx.clock.now();
  const limit = (PLAN_LIMITS[s.plan] ?? PLAN_LIMITS.free).workflow_runs_per_hour;
  if (limit !== null) {
    await lockKey(db, s.storeId, 'workflow_runs:hour');
    const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM workflow_runs WHERE store_id = $1 AND created_at > $2', [
      s.storeId,
      new Date(now.getTime() - 3_600_000),
    ]);
    if (n >= limit) {
      if (s.type === 'manual') throw errors.rateLimited(60);
      await db.query('UPDATE workflows SET dropped_runs = dropped_runs + 1 WHERE store_id = $1 AND id = $2', [s.storeId, s.workflow.id]);
      ctx.log.warn('workflow run dropped: runs per hour spent', { workflow_id: s.workflow.id, limit });
      return undefined;
    }
  }
  const steps = s.workflow.steps as unknown[];
  const states: StepState[] = steps.map(() => ({ status: 'pending', output: null, error: null, attempts: 0, execution_id: null }));
  const [run] = await db.query(
    `INSERT INTO workflow_runs (id, store_id, workflow_id, status, trigger_type, trigger_data, chain_depth, definition, step_states, scheduled_at, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, 'queued', $3, $4::text::jsonb, $5, $6::text::jsonb, $7::text::jsonb, $8, $9, $9)
     ON CONFLICT (workflow_id, scheduled_at) DO NOTHING RETURNING *`,
    [
      s.storeId,
      s.workflow.id,
      s.type,
      jsonParam(s.data ?? {}),
      s.chainDepth,
      jsonParam({ name: s.workflow.name, steps: s.workflow.steps, principal: s.workflow.principal }),
      jsonParam(states),
      s.scheduledAt ?? null,
      now,
    ],
  );
  // A cron minute another worker already started.
  if (!run) return undefined;
  await ctx.enqueue('step', stepJob(s.storeId, run.id, 0, 1), { db });
  return run;
}

export const stepJob = (store_id: string, run_id: string, index: number, attempt: number, resume = false) => ({
  store_id,
  run_id,
  index,
  attempt,
  resume,
});
