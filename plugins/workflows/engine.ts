import { createHash } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { jsonParam, SvcError, withEventCause, type Ctx, type Db, type Row, type Store } from '../../core/sdk';
import { callTool, principalFrom, recordedOutcome, resolveTarget, runInSandbox, type ToolOutcome } from '../../core/platform';
import type { Step } from './schemas';
import { FINAL_RUN, stepJob, type StepState } from './runs';
import { render, TemplateError, type Scope } from './template';

export interface StepJob {
  store_id: string;
  run_id: string;
  index: number;
  attempt: number;
  resume: boolean;
}

/** How often a step held for approval looks at its call again (any process may decide it). */
export const APPROVAL_POLL_S = 2;
const CONDITION_LIMITS = { timeoutMs: 250, memoryBytes: 8 * 1024 * 1024 };
// Approval decisions are final for the run: a retry would only ask the approver again.
const NOT_RETRIED = new Set(['approval_rejected', 'approval_timeout', 'insufficient_scope', 'invalid_api_key']);

/** The id of a step's tool call: the same for a resumed attempt, so the call's record tells it the call was made. */
export function executionId(runId: string, index: number, attempt: number) {
  const h = createHash('sha256').update(`workflow:${runId}:${index}:${attempt}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const scopeOf = (run: Row): Scope => {
  const steps: Scope['steps'] = {};
  (run.definition.steps as Static<typeof Step>[]).forEach((s, i) => {
    const st = run.step_states[i] as StepState;
    if (st.status === 'succeeded' || st.status === 'skipped') steps[s.id] = { output: st.output, status: st.status };
  });
  return { trigger: run.trigger_data, steps };
};

async function setStep(db: Db, run: Row, index: number, state: Partial<StepState>, runStatus: string | undefined, at: Date) {
  await db.query(
    `UPDATE workflow_runs SET step_states = jsonb_set(step_states, $3::text[], step_states->($4::int) || $5::text::jsonb),
       status = coalesce($6, status), updated_at = $7
     WHERE store_id = $1 AND id = $2`,
    [run.store_id, run.id, [String(index)], index, jsonParam(state), runStatus ?? null, at],
  );
}

/**
 * A step ended (succeeded or skipped): its state and the next step's job (or the run's end)
 * commit together, so a worker killed after this never runs the step again, and one killed
 * before it finds the step's call recorded and takes its outcome.
 */
async function advance(ctx: Ctx, run: Row, index: number, state: Partial<StepState>) {
  await ctx.db.transaction(async (tx) => {
    const [fresh] = await tx.query('SELECT status, step_states FROM workflow_runs WHERE store_id = $1 AND id = $2 FOR UPDATE', [
      run.store_id,
      run.id,
    ]);
    if (!fresh || FINAL_RUN.has(fresh.status) || ['succeeded', 'skipped'].includes(fresh.step_states[index].status)) return;
    const last = index + 1 >= run.definition.steps.length;
    await setStep(tx, run, index, state, last ? 'succeeded' : 'running', ctx.clock.now());
    if (last) await tx.query('UPDATE workflow_runs SET finished_at = $3 WHERE store_id = $1 AND id = $2', [run.store_id, run.id, ctx.clock.now()]);
    else await ctx.enqueue('step', stepJob(run.store_id, run.id, index + 1, 1), { db: tx });
  });
}

async function failRun(ctx: Ctx, run: Row, index: number, stepId: string, error: { code: string; message: string }, attempts: number) {
  await ctx.db.transaction(async (tx) => {
    await setStep(tx, run, index, { status: 'failed', error, attempts }, 'failed', ctx.clock.now());
    await tx.query(`UPDATE workflow_runs SET failed_step = $3, error = $4::text::jsonb, finished_at = $5 WHERE store_id = $1 AND id = $2`, [
      run.store_id,
      run.id,
      stepId,
      jsonParam(error),
      ctx.clock.now(),
    ]);
  });
}

const errorOf = (e: SvcError) => ({ code: e.code, message: e.message });

/** The step's condition: a boolean, or an expression over trigger and steps run in the sandbox (never the host's eval). */
async function conditionHolds(condition: boolean | string | undefined, scope: Scope): Promise<boolean> {
  if (condition === undefined || typeof condition === 'boolean') return condition ?? true;
  const out = await runInSandbox(`return (${condition}\n);`, { trigger: scope.trigger, steps: scope.steps }, CONDITION_LIMITS);
  if (!out.ok) throw new SvcError('validation_error', `The condition could not be evaluated: ${out.message}.`);
  return Boolean(out.result);
}

/** One step of a run: its job is keyed by run, step and attempt, and a second delivery of it does nothing twice. */
export async function runStep(ctx: Ctx, job: StepJob): Promise<void> {
  const [run] = await ctx.db.query('SELECT * FROM workflow_runs WHERE store_id = $1 AND id = $2', [job.store_id, job.run_id]);
  if (!run || FINAL_RUN.has(run.status)) return;
  const step = run.definition.steps[job.index] as Static<typeof Step>;
  const state = run.step_states[job.index] as StepState;
  // Done already, or a later attempt exists: this delivery is a repeat.
  if (['succeeded', 'skipped', 'failed'].includes(state.status) || state.attempts > job.attempt) return;
  // Waiting (a delay, or a held call): only the job that resumes it may go on.
  if (state.status === 'waiting' && !job.resume) return;

  const scope = scopeOf(run);
  if (!job.resume) {
    let holds: boolean;
    try {
      holds = await conditionHolds(step.condition, scope);
    } catch (e) {
      return failRun(ctx, run, job.index, step.id, errorOf(e as SvcError), job.attempt);
    }
    if (!holds) return advance(ctx, run, job.index, { status: 'skipped', attempts: job.attempt });
  }

  if (step.type === 'delay') {
    if (job.resume) return advance(ctx, run, job.index, { status: 'succeeded', output: { waited_seconds: step.seconds }, attempts: job.attempt });
    // The wait is a job that starts later: no worker holds anything meanwhile.
    return ctx.db.transaction(async (tx) => {
      await setStep(tx, run, job.index, { status: 'waiting', attempts: job.attempt }, 'waiting', ctx.clock.now());
      await ctx.enqueue('step', { ...job, resume: true }, { db: tx, startAfter: step.seconds! });
    });
  }
  return toolStep(ctx, run, step, job, scope);
}

/** The workflow acts with the rights of the key that saved it: a key revoked or expired since acts no more (a user's rights are kept as they were). */
async function keyStillValid(ctx: Ctx, run: Row) {
  const keyId = run.definition.principal?.key_id;
  if (!keyId) return true;
  const [key] = await ctx.db.query('SELECT revoked_at, expires_at FROM api_keys WHERE id = $1 AND store_id = $2', [keyId, run.store_id]);
  return !!key && key.revoked_at == null && (key.expires_at == null || new Date(key.expires_at) > ctx.clock.now());
}

async function toolStep(ctx: Ctx, run: Row, step: Static<typeof Step>, job: StepJob, scope: Scope) {
  const id = executionId(run.id, job.index, job.attempt);
  let outcome: ToolOutcome | { kind: 'waiting' } | undefined = await recordedOutcome(ctx.db, run.store_id, id);
  if (!outcome) {
    let input: Record<string, unknown>;
    try {
      input = render(step.input ?? {}, scope) as Record<string, unknown>;
    } catch (e) {
      if (!(e instanceof TemplateError)) throw e;
      return failRun(ctx, run, job.index, step.id, { code: 'template_error', message: `Step '${step.id}': ${e.message}.` }, job.attempt);
    }
    if (!(await keyStillValid(ctx, run)))
      return failRun(
        ctx,
        run,
        job.index,
        step.id,
        { code: 'invalid_api_key', message: 'The API key that saved this workflow was revoked or expired; save it again with a valid key.' },
        job.attempt,
      );
    await setStep(ctx.db, run, job.index, { status: 'running', attempts: job.attempt, execution_id: id }, 'running', ctx.clock.now());
    const [store] = await ctx.db.query<Store>('SELECT id, name, plan FROM stores WHERE id = $1', [run.store_id]);
    const args = step.action ? { action: step.action, ...input } : input;
    const target = await resolveTarget(ctx.db, ctx.registry, run.store_id, step.tool!, args);
    if (!target) return failRun(ctx, run, job.index, step.id, { code: 'resource_missing', message: `No such tool: '${step.tool}'.` }, job.attempt);
    const caller = {
      db: ctx.db,
      clock: ctx.clock,
      registry: ctx.registry,
      log: ctx.log,
      principal: principalFrom(run.store_id, run.definition.principal),
      store: store!,
      source: 'workflow' as const,
      // The step's own gate rides the agent override path: one rule for every held call.
      agent: {
        id: run.workflow_id,
        name: `workflow: ${run.definition.name}`,
        toolOverrides: step.requires_approval ? { [step.tool!]: { requires_approval: true } } : {},
      },
    };
    // Events this call causes carry the run's depth, so the runs they start are one deeper.
    outcome = await withEventCause({ workflow_run: run.id, chain_depth: run.chain_depth + 1 }, () => callTool(caller, target, { executionId: id }));
  }
  if (outcome.kind === 'waiting' || outcome.kind === 'pending') {
    return ctx.db.transaction(async (tx) => {
      await setStep(tx, run, job.index, { status: 'waiting', attempts: job.attempt, execution_id: id }, 'waiting', ctx.clock.now());
      await ctx.enqueue('step', { ...job, resume: true }, { db: tx, startAfter: APPROVAL_POLL_S });
    });
  }
  if (outcome.kind === 'result')
    return advance(ctx, run, job.index, {
      status: 'succeeded',
      output: outcome.result ?? null,
      error: null,
      attempts: job.attempt,
      execution_id: id,
    });
  const error = errorOf(outcome.error);
  if (job.attempt <= (step.retries ?? 0) && !NOT_RETRIED.has(error.code)) {
    // A new attempt is a new call (its own id); the error stays shown until it runs.
    return ctx.db.transaction(async (tx) => {
      await setStep(tx, run, job.index, { status: 'pending', error, attempts: job.attempt, execution_id: id }, 'running', ctx.clock.now());
      await ctx.enqueue('step', stepJob(run.store_id, run.id, job.index, job.attempt + 1), {
        db: tx,
        startAfter: step.retry_delay_seconds ?? 30,
      });
    });
  }
  return failRun(ctx, run, job.index, step.id, error, job.attempt);
}
