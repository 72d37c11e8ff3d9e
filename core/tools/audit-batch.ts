import type { Db } from '../db/types';
import { isDatabaseUnavailable, isUniqueViolation } from '../db/pg-errors';
import { createLogger, errorFields, type Logger } from '../log';
import { writeBehind } from '../write-behind';

/**
 * Audit records of finished tool calls (SPEC 2.6), written in batches on the core's write-behind
 * (core/write-behind.ts): one multi-row INSERT and one commit for many calls, which at a few
 * thousand calls/s is most of what a call costs the database.
 * - A read's record leaves the critical path: the answer goes out and the record waits up to
 *   READ_DELAY_MS for company. A crash (kill -9) may lose the records of reads answered in that
 *   moment, never a change's: those are written in the change's transaction (insertAudit).
 * - A failed call's or a custom tool's record is written at once, and the call waits for it.
 * - Readers of the log (the list, erasure) first write the store's pending records, and a clean
 *   shutdown writes them all before the database closes.
 */
export interface AuditRow {
  id: string;
  store_id: string;
  tool: string;
  action: string;
  custom_tool_id: string | null;
  agent_id: string | null;
  agent_name: string | null;
  source: string;
  status: string;
  duration_ms: number;
  input: unknown;
  /** The JSON text of what the call answered (core/json-text.ts: usually already made for the answer). */
  output: string;
  created_at: string;
}

/**
 * A value as JSON text jsonb accepts. jsonb refuses U+0000 and lone UTF-16 surrogates, which
 * JSON.stringify writes as \u0000 and \udXXX escapes (paired surrogates stay raw): those become
 * U+FFFD. An audit record keeps what was sent and returned; a call whose input holds such text is
 * refused (400) but must still be recorded, and a tool's odd output must not fail the call. Each
 * escape is matched whole, so an escaped backslash before "u0000" is left alone.
 */
export function storableJson(value: unknown): string {
  return storableText(JSON.stringify(value));
}

/** Whether JSON text holds an escape PostgreSQL text cannot (\u0000, a lone surrogate). includes() first: it is much cheaper than the regex. */
export const holdsUnstorable = (text: string) => text.includes('\\u') && /\\u(0000|d[89a-f])/i.test(text);

/** JSON text made storable as above. */
export function storableText(text: string): string {
  if (!holdsUnstorable(text)) return text;
  return text.replace(/\\(u0000|ud[89a-f][0-9a-f]{2}|[^u]|u[0-9a-f]{4})/gi, (m, g: string) => (/^u(0000|d[89a-f])/i.test(g) ? '\\ufffd' : m));
}

const COLUMNS = [
  'id',
  'store_id',
  'tool',
  'action',
  'custom_tool_id',
  'agent_id',
  'agent_name',
  'source',
  'status',
  'duration_ms',
  'input',
  'output',
  'created_at',
] as const;
const CASTS: Partial<Record<(typeof COLUMNS)[number], string>> = {
  id: 'uuid',
  store_id: 'uuid',
  custom_tool_id: 'uuid',
  agent_id: 'uuid',
  duration_ms: 'integer',
  // Through text: Bun.SQL would send a string given for a jsonb parameter as a JSON string.
  input: 'text::jsonb',
  created_at: 'timestamptz',
};

/**
 * Rows go as plain parameters of a multi-row VALUES: PostgreSQL takes text parameters as they are,
 * where one JSON array of the rows had to be parsed whole first, the outputs' text included
 * (measured at 17 and 50 records a batch: 11-17 µs of database CPU per record instead of 15-23).
 * Batches are padded with NULL rows to a power of two up to 256, which the WHERE drops: a
 * connection then prepares nine statements, not one per batch size (each is kept per connection).
 */
const SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const MAX_BATCH = SIZES[SIZES.length - 1];
const statements = new Map<number, string>();

function insertStatement(size: number): string {
  let text = statements.get(size);
  if (text) return text;
  const row = (n: number) => `(${COLUMNS.map((c, i) => `$${n * COLUMNS.length + i + 1}${CASTS[c] ? `::${CASTS[c]}` : ''}`).join(', ')})`;
  text = `INSERT INTO tool_executions (${COLUMNS.join(', ')}, completed_at)
  SELECT ${COLUMNS.join(', ')}, created_at FROM (VALUES ${Array.from({ length: size }, (_, n) => row(n)).join(', ')}) AS x(${COLUMNS.join(', ')})
  WHERE id IS NOT NULL`;
  statements.set(size, text);
  return text;
}

/** PostgreSQL text cannot hold U+0000: a name or label carrying one is stored with U+FFFD. */
const text = (v: string | null) => (v !== null && v.includes('\0') ? v.replaceAll('\0', '\ufffd') : v);

function insertArgs(rows: AuditRow[]): [string, unknown[]] {
  const size = SIZES.find((s) => s >= rows.length)!;
  const params: unknown[] = [];
  for (const r of rows)
    params.push(
      r.id,
      r.store_id,
      text(r.tool),
      text(r.action),
      r.custom_tool_id,
      r.agent_id,
      text(r.agent_name),
      r.source,
      r.status,
      r.duration_ms,
      storableJson(r.input),
      r.output,
      r.created_at,
    );
  for (let n = params.length; n < size * COLUMNS.length; n++) params.push(null);
  return [insertStatement(size), params];
}

/** Records the database refused (a bad value): dropped from the batch, and their writers told. */
const refused = new WeakMap<AuditRow, unknown>();
const log = createLogger();

/** One batch in one statement; if the database refuses it, each record alone, so one bad record loses no other. */
async function writeRecords(db: Db, rows: AuditRow[]): Promise<void> {
  try {
    await db.query(...insertArgs(rows));
    return;
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err; // the write-behind keeps the batch and retries it
    if (rows.length === 1) return void refuse(rows[0], err);
  }
  for (const row of rows) {
    try {
      await db.query(...insertArgs([row]));
    } catch (err) {
      if (isDatabaseUnavailable(err)) throw err;
      // Stored by an earlier try of this batch whose answer was lost.
      if (!isUniqueViolation(err)) refuse(row, err);
    }
  }
}

function refuse(row: AuditRow, err: unknown) {
  refused.set(row, err);
  log.error('audit record refused by the database', { execution_id: row.id, tool: row.tool, action: row.action, ...errorFields(err) });
}

/**
 * How long a read's record may wait for others. Batches also fill while a write is in flight, so
 * this need not be long: at 10 ms (batches of ~60) the server spent 2-3 µs more per call keeping
 * results alive across collections than the bigger batches saved the database (measured).
 */
const READ_DELAY_MS = 2;

const records = writeBehind<AuditRow>({
  name: 'tool call audit records',
  write: writeRecords,
  delayMs: READ_DELAY_MS,
  maxBatch: MAX_BATCH,
  maxPending: 4096,
});

/** Writes one record through `tx`, inside the caller's transaction (a change and its record commit together). */
export async function insertAudit(tx: Db, row: AuditRow): Promise<void> {
  await tx.query(...insertArgs([row]));
}

/**
 * Hands a finished call's record to the batches of `db`. With `wait`, resolves once it is stored
 * and throws if it could not be; otherwise at once (or, with too many records pending, once
 * written).
 */
export async function writeAudit(db: Db, row: AuditRow, opts: { wait: boolean; log?: Logger }): Promise<void> {
  const backpressure = records.add(db, row, opts.log ?? log);
  if (!opts.wait) return void (await backpressure);
  await records.flush(db, (r) => r === row);
  if (refused.has(row)) throw refused.get(row);
  if (records.unwritten((r) => r === row).length) throw new Error('The audit record could not be stored yet; it is kept and retried.');
}

/** Before a read of a store's audit log: its records still pending are written. */
export const rowsOfStoreWritten = (storeId: string) => records.flush(undefined, (r) => r.store_id === storeId);

export const flushRows = () => records.flush();
