import type { JobInsert } from 'pg-boss';
import type { Db } from '../db/types';
import { iso, isoOrNull } from '../clock';
import { errors, type SvcError } from '../errors';
import { enqueue } from '../jobs/send';
import { recordEvents } from '../events/outbox';
import { flushRows, rowsOfStoreWritten, storableJson, writeAudit, type AuditRow } from './audit-batch';
import {
  addReadRecord,
  countPageRecords,
  flushPages,
  MAX_RECORD_AGE_MS,
  newestFirst,
  newestPageRecords,
  pageRecord,
  pagesOfStoreWritten,
} from './audit-pages';
import { jsonText } from '../json-text';
import { credentialId, type Principal } from '../plugins/contract';
import type { RunResult, ToolCaller, ToolTarget } from './types';
import type { Gate } from './gate';

/** The pg-boss queue of approval work (worker: workers/approvals.ts): timeouts, and runs of approved calls. */
export const APPROVAL_QUEUE = 'core.tool_approvals';
export interface ApprovalJob {
  execution_id: string;
  store_id: string;
  /** timeout: the approval window closes; run: an approved call is due to run. */
  kind: 'timeout' | 'run';
}

/**
 * Status values (SPEC 2.6 and 3.1; the ones the SPEC leaves open are ours):
 * - success, error, timeout: the tool ran (or failed its checks) and this is how it ended;
 * - pending_approval: gated, waiting for a decision;
 * - approved: decided, the tool is running now (moments, then success/error/timeout);
 * - rejected: an approver rejected it, or the approval timed out with timeout_action reject
 *   (approval.decision says which); the tool never ran.
 */
export const EXECUTION_STATUSES = ['success', 'error', 'timeout', 'pending_approval', 'approved', 'rejected'] as const;
export const FINAL = new Set(['success', 'error', 'timeout', 'rejected']);

export interface ExecutionRecord {
  tool: string;
  action: string;
  target: ToolTarget;
  caller: ToolCaller;
}

/**
 * SPEC 2.6 `output`: the result exactly as the tool returned it (so a waiting agent gets what an
 * ungated call would have), or `{error}` when it failed; `status` tells the two apart.
 */
export const outputOf = (run: RunResult) => (run.status === 'success' ? withoutSecrets(run.result ?? null) : { error: errorBody(run.error) });

/**
 * Credentials a tool hands out once (a new API key, a user's tokens) are the caller's to keep,
 * never the audit trail's: anyone who may read tool executions could use them.
 */
const SECRET_FIELDS = new Set(['access_token', 'refresh_token', 'device_code', 'client_secret']);
function withoutSecrets(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const o = value as Record<string, unknown>;
  const apiKey = o.object === 'api_key';
  // A loop with no closure, not Object.keys().some: this runs on every call's input and output.
  let any = false;
  for (const k in o) if ((any = SECRET_FIELDS.has(k) || (apiKey && k === 'key'))) break;
  if (!any) return value;
  const secret = (k: string) => SECRET_FIELDS.has(k) || (apiKey && k === 'key');
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, secret(k) && typeof v === 'string' ? '[redacted]' : v]));
}

export const errorBody = (e: SvcError) => ({ type: e.type, code: e.code, message: e.message, param: e.param });

// The caller's rights, kept with a held call so the approved run acts as that caller did.
export const principalOf = (p: Principal) =>
  p.kind === 'user'
    ? { user_id: p.userId, role: p.role, scopes: p.scopes, livemode: p.livemode }
    : { key_id: credentialId(p), scopes: p.scopes, livemode: p.livemode };
export const principalFrom = (
  storeId: string,
  p: { key_id?: string; user_id?: string; role?: string; scopes: string[]; livemode: boolean },
): Principal =>
  p.user_id
    ? { kind: 'user', userId: p.user_id, role: p.role ?? '', storeId, scopes: p.scopes, livemode: p.livemode }
    : { kind: 'api_key', keyId: p.key_id!, storeId, scopes: p.scopes, livemode: p.livemode };

/** A held call's record: pending, with its approval terms and the caller's rights for the run. */
const INSERT_HELD = `INSERT INTO tool_executions
  (id, store_id, tool, action, custom_tool_id, agent_id, agent_name, source, status, input, approval, expires_at, principal, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending_approval', $9::text::jsonb, $10::text::jsonb, $11, $12::text::jsonb, $13)
  RETURNING *`;

/** The audit record of a call that ran (or failed its checks), written before its result is returned. */
/** The audit row of a finished call. */
export function auditRowOf(r: ExecutionRecord, id: string, run: RunResult, durationMs: number): AuditRow {
  const { caller, target } = r;
  return {
    id,
    store_id: caller.store.id,
    tool: r.tool,
    action: r.action,
    custom_tool_id: target.kind === 'custom' ? target.tool.id : null,
    agent_id: caller.agent?.id ?? null,
    agent_name: caller.agent?.name ?? null,
    source: caller.source,
    status: run.status,
    duration_ms: durationMs,
    input: withoutSecrets(target.input ?? {}),
    output: jsonText(outputOf(run)),
    created_at: isoOf(caller.clock.now()),
  };
}

/** A time as ISO 8601, made once per millisecond: at thousands of reads a second most share one. */
let lastMs = NaN;
let lastIso = '';
function isoOf(at: Date): string {
  const ms = at.getTime();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = at.toISOString();
  }
  return lastIso;
}

/**
 * Writes a finished call's record. `wait: false` (a successful built-in read) returns at once: the
 * record goes onto its store's page (core/tools/audit-pages.ts; see callTool for what a crash may
 * lose), or, for a call that started long ago, into a row batch. Otherwise it is a row, written in
 * a batch (core/tools/audit-batch.ts), and the caller waits until it is stored.
 */
export async function insertExecution(
  r: ExecutionRecord,
  run: RunResult,
  durationMs: number,
  opts: { wait?: boolean; id?: string } = {},
): Promise<string> {
  const id = opts.id ?? Bun.randomUUIDv7();
  const wait = opts.wait !== false;
  const row = auditRowOf(r, id, run, durationMs);
  // The id was made when the call started, so its age is the call's duration.
  if (!wait && run.status === 'success' && r.target.kind === 'builtin' && durationMs < MAX_RECORD_AGE_MS) {
    const backpressure = addReadRecord(r.caller.db, row, r.caller.log);
    if (backpressure) await backpressure;
  } else await writeAudit(r.caller.db, row, { wait, log: r.caller.log });
  return id;
}

/** Before a read of a store's audit log: its records still pending (rows and pages) are written. */
export const auditsOfStoreWritten = async (storeId: string) => void (await Promise.all([rowsOfStoreWritten(storeId), pagesOfStoreWritten(storeId)]));

/** Resolves once every record handed over so far is written (benchmarks and tests; the shutdown drains every write-behind). */
export const flushAudits = async () => void (await Promise.all([flushRows(), flushPages()]));

/**
 * A gated call: the pending record, its timeout job (due when the approval window closes) and the
 * `tool_execution.pending_approval` event for approvers, all in one transaction.
 */
export async function holdForApproval(r: ExecutionRecord, gate: Gate, givenId?: string): Promise<string> {
  // UUIDv7 like every record's: the log's ties (same created_at) are ordered by id.
  const id = givenId ?? Bun.randomUUIDv7();
  const at = r.caller.clock.now();
  const expiresAt = new Date(at.getTime() + gate.timeout_minutes * 60_000);
  const approval = { ...gate, group: 'default', escalated: false, decision: null, decided_at: null, decided_by: null, comment: null, reason: null };
  const { caller, target } = r;
  await caller.db.transaction(async (tx) => {
    const [row] = await tx.query(INSERT_HELD, [
      id,
      caller.store.id,
      r.tool,
      r.action,
      target.kind === 'custom' ? target.tool.id : null,
      caller.agent?.id ?? null,
      caller.agent?.name ?? null,
      caller.source,
      storableJson(target.input ?? {}),
      JSON.stringify(approval),
      expiresAt,
      JSON.stringify(principalOf(caller.principal)),
      at,
    ]);
    await scheduleTimeout(tx, row.store_id, id, gate.timeout_minutes * 60);
    await recordEvents(tx, row.store_id, [{ type: 'tool_execution.pending_approval', data: toExecution(row), at }]);
  });
  return id;
}

export const scheduleTimeout = (tx: Db, storeId: string, id: string, seconds: number) =>
  enqueue(tx, APPROVAL_QUEUE, [
    { data: { execution_id: id, store_id: storeId, kind: 'timeout' }, startAfter: seconds } satisfies JobInsert<ApprovalJob>,
  ]);

export const enqueueRun = (tx: Db, storeId: string, id: string) =>
  enqueue(tx, APPROVAL_QUEUE, [{ data: { execution_id: id, store_id: storeId, kind: 'run' } } satisfies JobInsert<ApprovalJob>]);

/** A record's output as the value the call answered: it is kept as JSON text (migration core/013). */
export const outputValue = (stored: unknown) => (typeof stored === 'string' ? JSON.parse(stored) : (stored ?? null));

/** The API form of an execution (SPEC 2.6 plus source, approval and completed_at). Never holds secrets: runners redact. */
export function toExecution(r: Record<string, any>) {
  // run_claimed_at is the worker's lease on running an approved call: bookkeeping, not API.
  const { run_claimed_at: _, ...shown } = r.approval ?? {};
  const approval = r.approval ? { ...shown, expires_at: isoOrNull(r.expires_at) } : null;
  return {
    object: 'tool_execution' as const,
    id: r.id,
    tool: r.tool,
    action: r.action,
    agent_id: r.agent_id,
    agent_name: r.agent_name,
    source: r.source,
    status: r.status,
    duration_ms: r.duration_ms,
    input: r.input,
    output: outputValue(r.output),
    approval,
    caller: callerOf(r.principal),
    created_at: iso(r.created_at),
    completed_at: isoOrNull(r.completed_at),
  };
}

/** Who made a held call (its API key, or the user), for approvers; never their scopes. Audit rows of ungated calls keep none. */
function callerOf(p: unknown): { type: 'api_key' | 'user'; id: string } | null {
  const principal = (typeof p === 'string' ? JSON.parse(p) : p) as { key_id?: string; user_id?: string } | null;
  if (principal?.user_id) return { type: 'user', id: principal.user_id };
  if (principal?.key_id) return { type: 'api_key', id: principal.key_id };
  return null;
}

/** One record of the store's log, a row or a page's, or 404. */
export async function executionRow(db: Db, storeId: string, id: string): Promise<Record<string, any>> {
  const row = () => db.query('SELECT * FROM tool_executions WHERE store_id = $1 AND id = $2', [storeId, id]).then(([r]) => r);
  // Most look-ups find a row; a read's record may still be waiting for its write.
  let found = await row();
  if (!found) {
    await auditsOfStoreWritten(storeId);
    found = (await pageRecord(db, storeId, id)) ?? (await row());
  }
  if (!found) throw errors.notFound(`tool execution: '${id}'`, 'id');
  return found;
}

export interface ExecutionQuery {
  tool?: string;
  agent_id?: string;
  status?: string;
  from?: string;
  to?: string;
  limit?: number;
  offset?: number;
}

/**
 * GET /tool-executions: newest first (ties by id), filtered, with limit/offset and the total (SPEC
 * 4.5), over both rows and pages. Page records are all successes of built-in reads.
 */
export async function queryExecutions(db: Db, storeId: string, q: ExecutionQuery) {
  const where = ['store_id = $1'];
  const values: unknown[] = [storeId];
  const add = (sql: string, v: unknown) => {
    values.push(v);
    where.push(sql.replace('?', `$${values.length}`));
  };
  const from = q.from ? new Date(q.from) : undefined;
  const to = q.to ? new Date(q.to) : undefined;
  if (q.tool) add('tool = ?', q.tool);
  if (q.agent_id) add('agent_id = ?', q.agent_id);
  if (q.status) add('status = ?', q.status);
  if (from) add('created_at >= ?', from);
  if (to) add('created_at <= ?', to);
  const limit = q.limit ?? 20;
  const offset = q.offset ?? 0;
  const filter = where.join(' AND ');
  await auditsOfStoreWritten(storeId);
  const pagesToo = !q.status || q.status === 'success';
  const pageFilter = { tool: q.tool, agent_id: q.agent_id, from, to };
  // The first offset + limit of each: the page of the whole log is among them.
  const need = offset + limit;
  const [[{ total }], rows, pageTotal, pageRows] = await Promise.all([
    db.query<{ total: string }>(`SELECT count(*) AS total FROM tool_executions WHERE ${filter}`, values),
    need ? db.query(`SELECT * FROM tool_executions WHERE ${filter} ORDER BY created_at DESC, id DESC LIMIT ${need}`, values) : [],
    pagesToo ? countPageRecords(db, storeId, pageFilter) : 0,
    pagesToo && need ? newestPageRecords(db, storeId, pageFilter, need) : [],
  ]);
  const executions = [...rows, ...pageRows].sort(newestFirst).slice(offset, need).map(toExecution);
  return { executions, total: Number(total) + pageTotal, limit, offset };
}
