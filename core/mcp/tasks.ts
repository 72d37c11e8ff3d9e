import { ErrorCode, RELATED_TASK_META_KEY, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { Db } from '../db/types';
import type { Clock } from '../clock';
import { iso } from '../clock';
import { callTool } from '../tools/call';
import { cancelExecution, outcomeOf } from '../tools/approvals';
import { FINAL, executionRow } from '../tools/executions';
import { cancelJob, getJob } from '../jobs/tracked';
import type { ToolCaller, ToolOutcome, ToolTarget } from '../tools/types';
import { credentialId, type JobObject } from '../plugins/contract';
import type { Registry } from '../plugins/registry';
import { errorResult, textResult } from './results';

/**
 * MCP tasks (2025-11-25, issue 51). A tools/call carrying `params.task` is answered at once with
 * the task, and the call goes on: held for an approver, run in the background, or followed as a
 * job. The task is the tool execution (`taskId` is its id). Its state lives in the database
 * (migration core/023), so any api process answers tasks/get, and a restart loses nothing but a
 * background run in flight (reported as failed once its lease lapses). A held call's state is the
 * execution's, a job's the job's: each read brings the row up to date, and the change that moved it
 * is announced (LISTEN/NOTIFY) to the process holding the session's stream, which sends
 * notifications/tasks/status.
 */

export const TASKS_CHANNEL = 'svc_mcp_task_changed';
const HOUR = 3600_000;
export const DEFAULT_TTL_MS = 24 * HOUR;
export const MAX_TTL_MS = 7 * 24 * HOUR;
/** What a client is told to wait between polls. */
export const POLL_INTERVAL_MS = 1000;
/** A background run still working after this long was lost with its process (a restart). */
const RUN_LEASE_MS = 15 * 60_000;
const PAGE = 50;
/** Background runs of this process, by task: a cancel waits for a run that is about to start a job. */
const inFlight = new Map<string, Promise<unknown>>();
/** How long a running call may take and still have its task answered with the outcome. */
const QUICK_MS = 25;

type Status = Task['status'];
const TERMINAL = new Set<Status>(['completed', 'failed', 'cancelled']);

interface TaskRow {
  id: string;
  store_id: string;
  owner: string;
  session_id: string | null;
  tool: string;
  action: string;
  kind: 'run' | 'held' | 'job';
  job_id: string | null;
  status: Status;
  status_message: string | null;
  result: CallToolResult | null;
  ttl_ms: string | number;
  created_at: Date | string;
  updated_at: Date | string;
  expires_at: Date | string;
}

export interface TaskDeps {
  db: Db;
  clock: Clock;
}

/** The task as the protocol shows it. */
export const toTask = (r: TaskRow): Task => ({
  taskId: r.id,
  status: r.status,
  ...(r.status_message ? { statusMessage: r.status_message } : {}),
  createdAt: iso(r.created_at),
  lastUpdatedAt: iso(r.updated_at),
  ttl: Number(r.ttl_ms),
  pollInterval: POLL_INTERVAL_MS,
});

const unknownTask = (id: string) => Object.assign(new Error(`Unknown task: ${id}`), { code: ErrorCode.InvalidParams, data: undefined as unknown });

/** A state a task moves to: status, message, and the tool result once terminal. */
interface Move {
  status: Status;
  message: string | null;
  result?: CallToolResult | null;
  kind?: TaskRow['kind'];
  jobId?: string | null;
}

const isJob = (v: unknown): v is JobObject =>
  typeof v === 'object' && v !== null && (v as JobObject).object === 'job' && typeof (v as JobObject).id === 'string' && 'url' in (v as object);

/** Where a call's outcome leaves its task: done, failed, held, or following the job it started. */
function moveOf(outcome: ToolOutcome, what: string): Move {
  if (outcome.kind === 'pending')
    return { status: 'working', message: `Waiting for an approver: ${outcome.message} (tool execution ${outcome.executionId}).`, kind: 'held' };
  if (outcome.kind === 'error') return { status: 'failed', message: outcome.error.message, result: errorResult(outcome.error) };
  if (isJob(outcome.result) && !['succeeded', 'failed', 'cancelled'].includes(outcome.result.status))
    return { status: 'working', message: jobMessage(outcome.result), kind: 'job', jobId: outcome.result.id };
  if (isJob(outcome.result)) return jobMove(outcome.result);
  return { status: 'completed', message: `${what} completed.`, result: textResult(outcome.result) };
}

const jobMessage = (j: JobObject) =>
  `Job ${j.type} ${j.status}${j.progress.done || j.progress.total ? ` (${j.progress.done}${j.progress.total === null ? '' : `/${j.progress.total}`} done)` : ''}.`;

function jobMove(j: JobObject): Move {
  if (j.status === 'succeeded') return { status: 'completed', message: `Job ${j.type} succeeded.`, result: textResult(j.result) };
  if (j.status === 'cancelled')
    return {
      status: 'cancelled',
      message: `Job ${j.type} was cancelled.`,
      result: errorResult(jobError('job_cancelled', `Job ${j.id} was cancelled.`)),
    };
  if (j.status === 'failed') {
    const message = j.error?.message ?? 'The job failed.';
    return { status: 'failed', message, result: errorResult(jobError(j.error?.code ?? 'job_failed', message)) };
  }
  return { status: 'working', message: jobMessage(j) };
}

const jobError = (code: string, message: string) => ({ type: 'api_error' as const, code, message, param: null });

/**
 * tools/call with `params.task`: the call starts, and its task is answered as soon as the call is
 * held, has ended its checks with an error, finished, or is running (background). ttl: the
 * client's, at least the approval window plus an hour, at most 7 days (default 24 h).
 */
export async function startTask(
  caller: ToolCaller,
  target: ToolTarget,
  names: { tool: string; action: string },
  opts: { ttl?: number; sessionId?: string },
): Promise<{ task: Task }> {
  const id = Bun.randomUUIDv7();
  let running!: () => void;
  const started = new Promise<'running'>((resolve) => (running = () => resolve('running')));
  const call = callTool(caller, target, { executionId: id, onRun: running });
  let first = await Promise.race([call, started]);
  // Most calls end within moments: their task is answered done rather than polled for.
  if (first === 'running') first = await Promise.race([call, Bun.sleep(QUICK_MS).then(() => 'running' as const)]);
  const what = `${names.tool}${names.action ? `.${names.action}` : ''}`;
  const move: Move = first === 'running' ? { status: 'working', message: `Running ${what}.`, kind: 'run' } : moveOf(first, what);
  const now = caller.clock.now();
  let windowMs = 0;
  if (move.kind === 'held') {
    const [held] = await caller.db.query('SELECT expires_at, approval FROM tool_executions WHERE store_id = $1 AND id = $2', [caller.store.id, id]);
    // An escalated call waits a second window.
    if (held) windowMs = (new Date(held.expires_at).getTime() - now.getTime()) * (held.approval?.timeout_action === 'escalate' ? 2 : 1);
  }
  const min = windowMs + HOUR;
  const asked = typeof opts.ttl === 'number' && Number.isFinite(opts.ttl) ? opts.ttl : DEFAULT_TTL_MS;
  const ttl = Math.round(Math.min(MAX_TTL_MS, Math.max(min, asked)));
  const [row] = await caller.db.query<TaskRow>(
    `INSERT INTO mcp_tasks (id, store_id, owner, session_id, tool, action, kind, job_id, status, status_message, result, ttl_ms, created_at, updated_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::text::jsonb, $12, $13, $13, $14) RETURNING *`,
    [
      id,
      caller.store.id,
      credentialId(caller.principal),
      opts.sessionId ?? null,
      names.tool,
      names.action,
      move.kind ?? 'run',
      move.jobId ?? null,
      move.status,
      move.message,
      move.result ? JSON.stringify(move.result) : null,
      ttl,
      now,
      new Date(now.getTime() + ttl),
    ],
  );
  if (first === 'running') {
    const done = call
      .then((outcome) => apply(caller, row, moveOf(outcome, what)))
      .catch((err) => caller.log?.error('mcp task run failed', { task: id, error: String(err) }))
      .finally(() => inFlight.delete(id));
    inFlight.set(id, done);
  }
  return { task: toTask(row) };
}

/** Moves a working task (compare-and-set: a cancelled one stays cancelled). Answers the row as it now is. */
async function apply(deps: TaskDeps, row: TaskRow, move: Move): Promise<TaskRow> {
  const same = move.status === row.status && move.message === row.status_message && (move.kind ?? row.kind) === row.kind;
  if (same) return row;
  const [moved] = await deps.db.query<TaskRow>(
    `UPDATE mcp_tasks SET status = $3, status_message = $4, result = coalesce($5::text::jsonb, result), kind = coalesce($6, kind), job_id = coalesce($7, job_id), updated_at = $8
     WHERE store_id = $1 AND id = $2 AND status IN ('working', 'input_required') RETURNING *`,
    [
      row.store_id,
      row.id,
      move.status,
      move.message,
      move.result ? JSON.stringify(move.result) : null,
      move.kind ?? null,
      move.jobId ?? null,
      deps.clock.now(),
    ],
  );
  return moved ?? (await readRow(deps.db, row.store_id, row.id)) ?? row;
}

const readRow = async (db: Db, storeId: string, id: string) =>
  (await db.query<TaskRow>('SELECT * FROM mcp_tasks WHERE store_id = $1 AND id = $2', [storeId, id]))[0];

/** Where a working task stands now: from its held execution, its job, or (a lost run) its record. */
async function current(deps: TaskDeps, row: TaskRow): Promise<TaskRow> {
  if (TERMINAL.has(row.status)) return row;
  if (row.kind === 'held') {
    const [e] = await deps.db.query('SELECT id, status, output, approval, expires_at FROM tool_executions WHERE store_id = $1 AND id = $2', [
      row.store_id,
      row.id,
    ]);
    if (!e) return row;
    if (e.status === 'pending_approval') {
      const a = e.approval ?? {};
      const who = a.escalated ? `the escalation group (${a.group})` : 'an approver';
      return apply(deps, row, {
        status: 'working',
        message: `Waiting for ${who} until ${iso(e.expires_at)}: ${a.message ?? 'approval required.'} (tool execution ${row.id}).`,
      });
    }
    if (e.status === 'approved') return apply(deps, row, { status: 'working', message: `Approved; running ${row.tool}.${row.action}.` });
    if (e.status === 'rejected') {
      const outcome = outcomeOf(e);
      const error = outcome.kind === 'error' ? outcome.error : undefined;
      const cancelled = e.approval?.decision === 'cancelled';
      return apply(deps, row, {
        status: cancelled ? 'cancelled' : 'failed',
        message: error?.message ?? 'Rejected.',
        result: error ? errorResult(error) : null,
      });
    }
    if (FINAL.has(e.status)) return apply(deps, row, moveOf(outcomeOf(e), `${row.tool}.${row.action}`));
    return row;
  }
  if (row.kind === 'job' && row.job_id) {
    const job = await getJob(deps.db, row.store_id, row.job_id);
    return job ? apply(deps, row, jobMove(job)) : row;
  }
  // A background run: its process finishes it; one still working long after was lost with its process.
  if (deps.clock.now().getTime() - new Date(row.updated_at).getTime() < RUN_LEASE_MS) return row;
  const record = await executionRow(deps.db, row.store_id, row.id).catch(() => undefined);
  if (record && FINAL.has(record.status)) return apply(deps, row, moveOf(outcomeOf(record), `${row.tool}.${row.action}`));
  return apply(deps, row, {
    status: 'failed',
    message: 'The server running this call stopped before it finished; whether it took effect is unknown: check before calling again.',
    result: errorResult(jobError('tool_error', 'The server running this call stopped before it finished; check before calling it again.')),
  });
}

/** The caller's own task, current, or -32602 (another credential's or store's, expired, unknown). */
async function ownTask(deps: TaskDeps, caller: Pick<ToolCaller, 'principal' | 'store'>, id: string): Promise<TaskRow> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw unknownTask(id);
  const [row] = await deps.db.query<TaskRow>('SELECT * FROM mcp_tasks WHERE store_id = $1 AND id = $2 AND owner = $3 AND expires_at > $4', [
    caller.store.id,
    id,
    credentialId(caller.principal),
    deps.clock.now(),
  ]);
  if (!row) throw unknownTask(id);
  return current(deps, row);
}

type Caller = Pick<ToolCaller, 'principal' | 'store'>;

export const getTask = async (deps: TaskDeps, caller: Caller, id: string) => toTask(await ownTask(deps, caller, id));

/** tasks/result: waits for the task to end, then answers the tool's result (a tool error for failed and cancelled). */
export async function taskResult(deps: TaskDeps, caller: Caller, id: string, signal: AbortSignal, pollMs = 250) {
  for (;;) {
    const row = await ownTask(deps, caller, id);
    if (TERMINAL.has(row.status)) {
      const result = row.result ?? errorResult(jobError('tool_error', row.status_message ?? `The task ${row.status}.`));
      return { ...result, _meta: { ...(result._meta ?? {}), [RELATED_TASK_META_KEY]: { taskId: id } } };
    }
    if (signal.aborted) throw Object.assign(new Error('Request cancelled'), { code: ErrorCode.RequestTimeout });
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, pollMs);
      signal.addEventListener('abort', () => (clearTimeout(timer), resolve(undefined)), { once: true });
    });
  }
}

/** tasks/list: the caller's live tasks, newest first, PAGE at a time. */
export async function listTasks(deps: TaskDeps, caller: Caller, cursor?: string) {
  let offset = 0;
  if (cursor !== undefined) {
    offset = Number(Buffer.from(cursor, 'base64url').toString());
    if (!Number.isSafeInteger(offset) || offset < 0)
      throw Object.assign(new Error('Invalid params: unknown cursor.'), { code: ErrorCode.InvalidParams, data: undefined });
  }
  const rows = await deps.db.query<TaskRow>(
    `SELECT * FROM mcp_tasks WHERE store_id = $1 AND owner = $2 AND expires_at > $3 ORDER BY created_at DESC, id DESC LIMIT ${PAGE + 1} OFFSET ${offset}`,
    [caller.store.id, credentialId(caller.principal), deps.clock.now()],
  );
  const page = await Promise.all(rows.slice(0, PAGE).map((r) => current(deps, r)));
  return {
    tasks: page.map(toTask),
    ...(rows.length > PAGE ? { nextCursor: Buffer.from(String(offset + PAGE)).toString('base64url') } : {}),
  };
}

/**
 * tasks/cancel: a held call is withdrawn (rejected, decision `cancelled`: a later approve is 409), a
 * job cancelled; a background run goes on but its task ends cancelled. A terminal task is -32602.
 */
export async function cancelTask(deps: TaskDeps & { registry: Registry }, caller: Caller, id: string) {
  let row = await ownTask(deps, caller, id);
  // A run that may be about to answer a job: its job is what a cancel must reach.
  if (row.kind === 'run') {
    if (inFlight.has(id)) await Promise.race([inFlight.get(id), Bun.sleep(2000)]);
    // Read again: the run may have answered a job (or ended) since.
    row = await ownTask(deps, caller, id);
  }
  const refuse = (why: string) => {
    throw Object.assign(new Error(`Invalid params: task ${id} ${why}; it cannot be cancelled.`), { code: ErrorCode.InvalidParams, data: undefined });
  };
  if (TERMINAL.has(row.status)) refuse(`is already ${row.status}`);
  if (row.kind === 'held') {
    const done = await cancelExecution(deps, row.store_id, id, { keyId: credentialId(caller.principal) });
    if (!done) {
      const now = await current(deps, row);
      if (TERMINAL.has(now.status)) refuse(`is already ${now.status}`);
      refuse('was approved and is running');
    }
    return toTask(await current(deps, row));
  }
  if (row.kind === 'job' && row.job_id) {
    await cancelJob(deps.db, row.store_id, row.job_id, deps.clock.now());
    return toTask(await current(deps, row));
  }
  const message = 'Cancelled by the client; the call was already running and may still take effect.';
  return toTask(await apply(deps, row, { status: 'cancelled', message, result: errorResult(jobError('tool_error', message)) }));
}

/**
 * A change to a task announced by the database: the task, current, when it belongs to a session
 * this process streams to (`wanted`), for notifications/tasks/status. Each status and message is
 * sent once per process.
 */
const sent = new Map<string, string>();
export async function changedTask(deps: TaskDeps, storeId: string, id: string, wanted: (sessionId: string) => boolean) {
  const row = await readRow(deps.db, storeId, id);
  if (!row?.session_id || !wanted(row.session_id)) return undefined;
  const now = await current(deps, row);
  const key = `${now.status}\n${now.status_message}`;
  if (sent.get(id) === key) return undefined;
  if (sent.size > 10_000) sent.clear();
  sent.set(id, key);
  return { sessionId: row.session_id, task: toTask(now) };
}

/** Calls `onChange` for each announced task change, once listening (one listener per process and database). */
const listening = new WeakMap<Db, Promise<unknown>>();
export function watchTasks(db: Db, onChange: (storeId: string, id: string) => void) {
  let l = listening.get(db);
  if (!l) {
    l = db
      .listen(TASKS_CHANNEL, (payload) => {
        try {
          const { store_id, id } = JSON.parse(payload);
          onChange(String(store_id), String(id));
        } catch {}
      })
      .catch(() => listening.delete(db));
    listening.set(db, l);
  }
  return l;
}
