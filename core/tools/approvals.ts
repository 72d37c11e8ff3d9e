import type { Db } from '../db/types';
import type { Row } from '../db/rows';
import { iso, type Clock } from '../clock';
import { errorDef, errors, fail, toSvcError } from '../errors';
import type { Store } from '../plugins/contract';
import type { Registry } from '../plugins/registry';
import { recordEvents } from '../events/outbox';
import { authorize, runTarget } from './call';
import type { RunResult, ToolOutcome, ToolTarget } from './types';
import { storableJson } from './audit-batch';
import { toCustomTool } from './custom';
import { FINAL, enqueueRun, executionRow, outputOf, outputValue, principalFrom, scheduleTimeout, toExecution } from './executions';

export interface ApprovalDeps {
  db: Db;
  clock: Clock;
  registry: Registry;
}

/**
 * Moves a pending execution to a decision, compare-and-set: only a row still pending (and, for a
 * human decision, still inside its window; for the timeout, past it) changes. So an approve racing
 * the timeout job, or a second approve, ends in exactly one decision.
 */
async function decide(
  deps: ApprovalDeps,
  storeId: string,
  id: string,
  set: { status: string; approval: object; output?: object },
  window: 'open' | 'closed',
) {
  const now = deps.clock.now();
  const [row] = await deps.db.query(
    `UPDATE tool_executions SET status = $3, approval = approval || $4::text::jsonb, output = coalesce($5, output),
       completed_at = CASE WHEN $3 = 'rejected' THEN $6 ELSE completed_at END
     WHERE store_id = $1 AND id = $2 AND status = 'pending_approval' AND expires_at ${window === 'open' ? '>' : '<='} $6
     RETURNING *`,
    [
      storeId,
      id,
      set.status,
      JSON.stringify({ ...set.approval, decided_at: now.toISOString() }),
      set.output ? JSON.stringify(set.output) : null,
      now,
    ],
  );
  return row as Row | undefined;
}

/** Why a human decision found nothing to decide: 404, or 409 naming the state it is in. */
async function notDecidable(deps: ApprovalDeps, storeId: string, id: string): Promise<never> {
  const row = await executionRow(deps.db, storeId, id);
  if (row.status === 'pending_approval')
    throw errors.conflict(`The approval window of execution '${id}' closed at ${iso(row.expires_at)}; it is being timed out.`, 'approval_expired');
  throw errors.conflict(
    `Execution '${id}' is not waiting for approval (status ${row.status}${row.approval?.decision ? `, ${row.approval.decision}` : ''}).`,
    'already_decided',
  );
}

/**
 * POST /tool-executions/:id/approve: the decision and the job that runs the tool commit together
 * (deps.db is the request's transaction), so an approved call runs exactly when the approval
 * stands, even if this process dies right after. The worker runs it with the caller's original
 * rights, in moments; the waiting agent then gets the result.
 */
export async function approveExecution(deps: ApprovalDeps, storeId: string, id: string, by: { keyId: string; comment?: string }) {
  const row = await decide(
    deps,
    storeId,
    id,
    { status: 'approved', approval: { decision: 'approved', decided_by: by.keyId, comment: by.comment ?? null } },
    'open',
  );
  if (!row) return notDecidable(deps, storeId, id);
  await enqueueRun(deps.db, storeId, id);
  return toExecution(row);
}

/** POST /tool-executions/:id/reject: never runs; the waiting agent gets the reason. */
export async function rejectExecution(deps: ApprovalDeps, storeId: string, id: string, by: { keyId: string; reason?: string }) {
  const reason = by.reason?.trim() || 'no reason given';
  const output = {
    error: { type: 'permission_error', code: 'approval_rejected', message: `An approver rejected this call: ${reason}`, param: null },
  };
  const row = await decide(
    deps,
    storeId,
    id,
    { status: 'rejected', approval: { decision: 'rejected', decided_by: by.keyId, reason }, output },
    'open',
  );
  if (!row) return notDecidable(deps, storeId, id);
  return toExecution(row);
}

/**
 * The caller withdrew a held call (MCP tasks/cancel): it leaves pending_approval as rejected with
 * decision `cancelled`, so a later approve is 409. Undefined when it was no longer pending.
 */
export async function cancelExecution(deps: ApprovalDeps, storeId: string, id: string, by: { keyId: string }) {
  const output = {
    error: {
      type: 'permission_error',
      code: 'approval_rejected',
      message: 'The caller cancelled this call before an approver decided.',
      param: null,
    },
  };
  const row = await decide(deps, storeId, id, { status: 'rejected', approval: { decision: 'cancelled', decided_by: by.keyId }, output }, 'open');
  return row ? toExecution(row) : undefined;
}

/**
 * The approval timeout job (SPEC 3.1): reject (default) tells the agent it timed out; approve runs
 * it; escalate hands it to the escalation group for a second window, then rejects. A job for an
 * execution decided meanwhile, or not yet due, does nothing.
 */
export async function expireExecution(deps: ApprovalDeps, storeId: string, id: string): Promise<string> {
  const [row] = await deps.db.query('SELECT * FROM tool_executions WHERE store_id = $1 AND id = $2', [storeId, id]);
  // A retry of a job that approved on timeout and died before the run finished: finish it (the run's lease keeps it single).
  if (row?.status === 'approved' && row.approval?.decision === 'approved_on_timeout')
    return (await runApproved(deps, storeId, id)) ? 'approved' : 'decided';
  if (!row || row.status !== 'pending_approval') return 'decided';
  const left = new Date(row.expires_at).getTime() - deps.clock.now().getTime();
  if (left > 0) {
    // Early (pg-boss schedules in the database's time, expires_at is ours): this job completes, so
    // leave another for the rest of the window, or the execution would wait forever.
    await scheduleTimeout(deps.db, storeId, id, Math.ceil(left / 1000));
    return 'not_due';
  }
  const a = row.approval;
  if (a.timeout_action === 'approve') {
    // Already in a worker: run it here, right after the decision.
    const approved = await decide(
      deps,
      storeId,
      id,
      { status: 'approved', approval: { decision: 'approved_on_timeout', decided_by: 'timeout' } },
      'closed',
    );
    if (approved) await runApproved(deps, storeId, id);
    return approved ? 'approved' : 'decided';
  }
  if (a.timeout_action === 'escalate' && !a.escalated) {
    const escalated = await deps.db.transaction(async (tx) => {
      const now = deps.clock.now();
      const [r] = await tx.query(
        `UPDATE tool_executions SET approval = approval || $3::text::jsonb, expires_at = $4
         WHERE store_id = $1 AND id = $2 AND status = 'pending_approval' AND expires_at <= $5 RETURNING *`,
        [
          storeId,
          id,
          JSON.stringify({ escalated: true, group: a.escalation_group ?? 'escalation' }),
          new Date(now.getTime() + a.timeout_minutes * 60_000),
          now,
        ],
      );
      if (!r) return false;
      await scheduleTimeout(tx, storeId, id, a.timeout_minutes * 60);
      await recordEvents(tx, storeId, [{ type: 'tool_execution.pending_approval', data: toExecution(r), at: now }]);
      return true;
    });
    return escalated ? 'escalated' : 'decided';
  }
  const minutes = a.escalated ? a.timeout_minutes * 2 : a.timeout_minutes;
  const output = {
    error: {
      type: 'api_error',
      code: 'approval_timeout',
      message: `No approver decided within ${minutes} minute${minutes === 1 ? '' : 's'}; the call was not run.`,
      param: null,
    },
  };
  const rejected = await decide(
    deps,
    storeId,
    id,
    { status: 'rejected', approval: { decision: 'expired', decided_by: 'timeout' }, output },
    'closed',
  );
  return rejected ? 'rejected' : 'decided';
}

/**
 * How long a run's claim holds: the approval job's expiry (workers/approvals.ts). A job that died
 * mid-run is retried by pg-boss after that, and its retry may claim the run again.
 */
export const RUN_LEASE_MS = 120_000;

/**
 * Runs an approved execution and records how it ended (the run job, or an approve-on-timeout).
 * The run is claimed first (compare-and-set with a lease), so duplicate or concurrent jobs for one
 * execution run the tool once; only a run whose claim lapsed (a crashed worker) runs again.
 */
export async function runApproved(deps: ApprovalDeps, storeId: string, id: string) {
  const now = deps.clock.now();
  const [row] = await deps.db.query(
    `UPDATE tool_executions SET approval = approval || $3::text::jsonb
     WHERE store_id = $1 AND id = $2 AND status = 'approved'
       AND (approval->>'run_claimed_at' IS NULL OR (approval->>'run_claimed_at')::timestamptz <= $4)
     RETURNING *`,
    [storeId, id, JSON.stringify({ run_claimed_at: now.toISOString() }), new Date(now.getTime() - RUN_LEASE_MS)],
  );
  if (!row) return undefined;
  const started = performance.now();
  const run = await runStored(deps, row);
  const [done] = await deps.db.query(
    `UPDATE tool_executions SET status = $3, output = $4, duration_ms = $5, completed_at = $6
     WHERE store_id = $1 AND id = $2 AND status = 'approved' RETURNING *`,
    [row.store_id, row.id, run.status, storableJson(outputOf(run)), Math.round(performance.now() - started), deps.clock.now()],
  );
  return done ? toExecution(done) : undefined;
}

/**
 * Rebuilds the call from the record (the tool, the input, the caller's key rights) and runs it.
 * The checks of the original call are made again, as of now: the key that asked must still be
 * valid (a key revoked while its call waited acts no more), and the tool, its input schema and the
 * store's plan must still allow the call.
 */
async function runStored(deps: ApprovalDeps, row: Row): Promise<RunResult> {
  const gone = (what: string): RunResult => ({ status: 'error', error: errors.notFound(what) });
  // A key that asked must still be valid. A user's call (the console's agent playground) carries the
  // user's scopes as they were when it was held; the approver decided with them in view.
  const [key] = row.principal?.user_id
    ? [{ revoked_at: null, expires_at: null }]
    : await deps.db.query('SELECT revoked_at, expires_at FROM api_keys WHERE id = $1 AND store_id = $2', [row.principal?.key_id, row.store_id]);
  if (!key || key.revoked_at != null || (key.expires_at != null && new Date(key.expires_at) <= deps.clock.now()))
    return {
      status: 'error',
      error: fail('invalid_api_key', 'The API key that made this call was revoked or expired while it waited for approval; it was not run.'),
    };
  const [store] = await deps.db.query<Store>('SELECT id, name, plan FROM stores WHERE id = $1', [row.store_id]);
  let target: ToolTarget;
  if (row.custom_tool_id) {
    const [tool] = await deps.db.query('SELECT * FROM custom_tools WHERE id = $1', [row.custom_tool_id]);
    if (!tool) return gone(`custom tool '${row.tool}' (it was deleted while the call waited)`);
    if (tool.store_id !== row.store_id && tool.visibility !== 'public')
      return gone(`custom tool '${row.tool}' (it was withdrawn from public use while the call waited)`);
    target = { kind: 'custom', tool: toCustomTool(tool), input: row.input };
  } else {
    const plugin = deps.registry.byName.get(row.tool);
    if (!plugin) return gone(`tool '${row.tool}'`);
    target = { kind: 'builtin', plugin, actionName: row.action, input: row.input };
  }
  const caller = { db: deps.db, clock: deps.clock, registry: deps.registry, store, principal: principalFrom(row.store_id, row.principal) };
  try {
    authorize(caller, target);
  } catch (err) {
    return { status: 'error', error: toSvcError(err) };
  }
  return runTarget(caller, target);
}

/** A finished execution as the outcome the caller would have had (for a waiting agent, or an MCP client fetching it). */
export function outcomeOf(row: Row): ToolOutcome {
  const output = outputValue(row.output);
  if (row.status === 'success') return { kind: 'result', result: output, executionId: row.id };
  const e = output?.error ?? { type: 'api_error', code: 'tool_error', message: 'The call failed.', param: null };
  // A stored code from an older build may no longer be in the table: keep the message, not the code.
  const error = errorDef(e.code) ? fail(e.code, e.message, e.param) : fail('tool_error', e.message, e.param);
  return { kind: 'error', error, executionId: row.id };
}

/**
 * Waits for a gated execution to end (a decision, then the run), polling the database so the
 * decision may come from any process. `tick` runs every poll (keep-alives); an abort stops waiting.
 */
export async function waitForOutcome(
  db: Db,
  storeId: string,
  id: string,
  opts: { signal: AbortSignal; pollMs?: number; tick?: () => void },
): Promise<ToolOutcome | undefined> {
  for (;;) {
    const [row] = await db.query('SELECT id, status, output FROM tool_executions WHERE store_id = $1 AND id = $2', [storeId, id]);
    if (!row) return undefined;
    if (FINAL.has(row.status)) return outcomeOf(row);
    if (opts.signal.aborted) return undefined;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, opts.pollMs ?? 500);
      opts.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
    });
    opts.tick?.();
  }
}

/**
 * How a call recorded under `id` stands, for a caller running it again after a crash (a workflow
 * step names its calls): undefined when no record exists (a read, or a call never made: run it),
 * `pending` while held or running after approval, else the outcome the call had.
 */
export async function recordedOutcome(db: Db, storeId: string, id: string): Promise<ToolOutcome | { kind: 'waiting' } | undefined> {
  const [row] = await db.query('SELECT id, status, output FROM tool_executions WHERE store_id = $1 AND id = $2', [storeId, id]);
  if (!row) return undefined;
  return FINAL.has(row.status) ? outcomeOf(row) : { kind: 'waiting' };
}
