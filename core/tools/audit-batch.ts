import type { Db } from '../db/types';

/**
 * Group commit for audit records of finished tool calls. Every call waits for its record to be
 * written before its result is returned, but records arriving while a write is in flight go out
 * together in the next one: one multi-row INSERT (and one commit) instead of one per call, which
 * at a few thousand calls/s is most of the database's work. Nothing waits on a timer: an idle
 * system writes each record at once.
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

const MAX_BATCH = 500;

/**
 * A value as JSON text jsonb accepts. jsonb refuses U+0000 and lone UTF-16 surrogates, which
 * JSON.stringify writes as \u0000 and \udXXX escapes (paired surrogates stay raw): those become
 * U+FFFD. An audit record keeps what was sent and returned; a call whose input holds such text is
 * refused (400) but must still be recorded, and a tool's odd output must not fail the call. Each
 * escape is matched whole, so an escaped backslash before "u0000" is left alone.
 */
export function storableJson(value: unknown): string {
  return storable(JSON.stringify(value));
}

function storable(text: string): string {
  if (!/\\u(0000|d[89a-f])/i.test(text)) return text;
  return text.replace(/\\(u0000|ud[89a-f][0-9a-f]{2}|[^u]|u[0-9a-f]{4})/gi, (m, g: string) => (/^u(0000|d[89a-f])/i.test(g) ? '\\ufffd' : m));
}

/**
 * Rows as one JSON array: each row's output is already JSON text, so it travels as a string and
 * is stored as that text (migration core/013), and the array is one stringify.
 */
const rowsJson = (rows: AuditRow[]) => storable(JSON.stringify(rows));

const INSERT = `INSERT INTO tool_executions
  (id, store_id, tool, action, custom_tool_id, agent_id, agent_name, source, status, duration_ms, input, output, created_at, completed_at)
  SELECT id, store_id, tool, action, custom_tool_id, agent_id, agent_name, source, status, duration_ms, input, output, created_at, created_at
  FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, store_id uuid, tool text, action text, custom_tool_id uuid, agent_id uuid,
    agent_name text, source text, status text, duration_ms integer, input jsonb, output text, created_at timestamptz)`;

interface Waiting {
  row: AuditRow;
  done: (err?: unknown) => void;
}

/** Batchers with records still to write, and what each resolves once it has written them all. */
const busy = new Map<Batcher, Promise<void>>();

class Batcher {
  private waiting: Waiting[] = [];
  private writing = false;
  constructor(private db: Db) {}

  write(row: AuditRow): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ row, done: (err) => (err ? reject(err) : resolve()) });
      if (!this.writing) {
        const flushed = this.flush().finally(() => busy.delete(this));
        busy.set(this, flushed);
      }
    });
  }

  /** Inserts the rows in one statement and settles their writers; a failure settles none. */
  private async insert(batch: Waiting[]): Promise<unknown> {
    try {
      await this.db.query(INSERT, [rowsJson(batch.map((w) => w.row))]);
    } catch (err) {
      return err ?? new Error('audit insert failed');
    }
    for (const w of batch) w.done();
    return undefined;
  }

  private async flush() {
    this.writing = true;
    while (this.waiting.length) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      if (!(await this.insert(batch))) continue;
      // One bad row must not lose the others' records: write them one by one, each with its own outcome.
      for (const w of batch) {
        const err = await this.insert([w]);
        if (err) w.done(err);
      }
    }
    this.writing = false;
  }
}

const batchers = new WeakMap<Db, Batcher>();

/** Writes one record through `tx`, inside the caller's transaction (a change and its record commit together). */
export async function insertAudit(tx: Db, row: AuditRow): Promise<void> {
  await tx.query(INSERT, [rowsJson([row])]);
}

/** Writes one finished call's record, batched with the others written at the same moment through `db`. */
export function writeAudit(db: Db, row: AuditRow): Promise<void> {
  let b = batchers.get(db);
  if (!b) batchers.set(db, (b = new Batcher(db)));
  return b.write(row);
}

/**
 * Resolves once every record handed to writeAudit so far is written (or has failed): the shutdown
 * waits for it before the database closes, so a read's record, answered before it was stored,
 * is not lost to a clean stop.
 */
export async function flushAudits(): Promise<void> {
  while (busy.size) await Promise.all(busy.values());
}
