import type { Db } from '../db/types';
import { jsonText } from '../json-text';

/**
 * Group commit for audit records of finished tool calls. Records arriving while a write is in
 * flight go out together in the next one: one multi-row INSERT (and one commit) instead of one
 * per call, which at a few thousand calls/s is most of the database's work. A record its caller
 * waits for is written at once; one nobody waits for (a read's) may linger LINGER_MS for company.
 * That is PostgreSQL; the embedded database writes each record as it comes (see Batcher.lingers).
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
  output: unknown;
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

/** Rows as one JSON array, each row's output as the text its caller may already have made (core/json-text.ts). */
const rowsJson = (rows: AuditRow[]) =>
  storable(`[${rows.map((r) => `${JSON.stringify({ ...r, output: undefined }).slice(0, -1)},"output":${jsonText(r.output)}}`).join(',')}]`);

/*
 * One statement for many rows. (Measured against unnest with an array parameter per column: the
 * database parses less, but the driver quotes every array element in JavaScript; it came out even.)
 */
const INSERT = `INSERT INTO tool_executions
  (id, store_id, tool, action, custom_tool_id, agent_id, agent_name, source, status, duration_ms, input, output, created_at, completed_at)
  SELECT id, store_id, tool, action, custom_tool_id, agent_id, agent_name, source, status, duration_ms, input, output, created_at, created_at
  FROM jsonb_to_recordset($1::text::jsonb) AS x(id uuid, store_id uuid, tool text, action text, custom_tool_id uuid, agent_id uuid,
    agent_name text, source text, status text, duration_ms integer, input jsonb, output jsonb, created_at timestamptz)`;

interface Waiting {
  row: AuditRow;
  /** Whether its caller waits for it (a durable record); a read's record is only written. */
  waited: boolean;
  done: (err?: unknown) => void;
}

/**
 * How long records nobody waits for (reads: see core/tools/call.ts) may gather before they are
 * written. Each INSERT is a commit, and a commit is a WAL flush: at thousands of reads a second,
 * one flush per few milliseconds' worth instead of one per in-flight round was most of what a
 * tools/call cost the database (measured with `BENCH_ONLY=mcp npm run bench`).
 */
export const LINGER_MS = 20;

class Batcher {
  private waiting: Waiting[] = [];
  private writing: Promise<void> | undefined;
  /** Ends the current linger early (a record someone waits for, or a drain). */
  private wake: (() => void) | undefined;
  private draining = 0;
  /**
   * PostgreSQL only. The embedded database is one in-process connection that runs statements in
   * the order they are queued: there each record's INSERT is queued the moment it is written, so
   * it lands before any later statement (an erasure's scrub included), and batching saves little.
   */
  private lingers: boolean;
  constructor(private db: Db) {
    this.lingers = db.kind === 'postgres';
    all.add(this);
  }

  write(row: AuditRow, waited: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      const w: Waiting = { row, waited, done: (err) => (err ? reject(err) : resolve()) };
      // The embedded database: the statement is queued now, so it runs before any later one.
      if (!this.lingers) return void this.insert([w]).then((err) => err && w.done(err));
      this.waiting.push(w);
      if (waited) this.wake?.();
      this.writing ??= this.flush().finally(() => (this.writing = undefined));
    });
  }

  lingering() {
    return this.lingers;
  }

  /** Writes everything held now, without lingering; resolves once it is stored (or failed). */
  async drain(): Promise<void> {
    this.draining++;
    try {
      while (this.writing || this.waiting.length) {
        this.wake?.();
        this.writing ??= this.flush().finally(() => (this.writing = undefined));
        await this.writing;
      }
    } finally {
      this.draining--;
    }
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
    while (this.waiting.length) {
      // Only records nobody waits for, and room for more: let others join them for a moment.
      if (this.lingers && !this.draining && this.waiting.length < MAX_BATCH && !this.waiting.some((w) => w.waited))
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, LINGER_MS);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      this.wake = undefined;
      const batch = this.waiting.splice(0, MAX_BATCH);
      if (!(await this.insert(batch))) continue;
      // One bad row must not lose the others' records: write them one by one, each with its own outcome.
      for (const w of batch) {
        const err = await this.insert([w]);
        if (err) w.done(err);
      }
    }
  }
}

const batchers = new WeakMap<Db, Batcher>();
/** Every batcher of this process (a test process may open several databases). */
const all = new Set<Batcher>();

/** Writes one record through `tx`, inside the caller's transaction (a change and its record commit together). */
export async function insertAudit(tx: Db, row: AuditRow): Promise<void> {
  await tx.query(INSERT, [rowsJson([row])]);
}

function batcherOf(db: Db): Batcher {
  let b = batchers.get(db);
  if (!b) batchers.set(db, (b = new Batcher(db)));
  return b;
}

/**
 * Writes one finished call's record, batched with the others written at the same moment through
 * `db`. `waited`: the caller waits for it to be stored (written at once); else it may linger
 * LINGER_MS for company.
 */
export function writeAudit(db: Db, row: AuditRow, waited = true): Promise<void> {
  return batcherOf(db).write(row, waited);
}

/**
 * Stores every record this process still holds for `db`: before the audit log is read here (a
 * client reads its own calls), and at shutdown (nothing is lost to a clean stop).
 */
export async function flushAudits(db: Db): Promise<void> {
  await batchers.get(db)?.drain();
}

/**
 * Stores every record any batcher of this process holds: called by an erasure before it scrubs
 * (core/personal-data.ts), which runs inside a transaction and so holds no root Db to name. On
 * PostgreSQL the writes go through other pooled connections; on the embedded database nothing
 * lingers, so there is nothing to wait for (and waiting would block on the open transaction).
 */
export async function flushAllAudits(): Promise<void> {
  await Promise.all([...all].filter((b) => b.lingering()).map((b) => b.drain()));
}
