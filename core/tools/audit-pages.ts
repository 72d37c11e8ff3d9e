import type { Db } from '../db/types';
import { isDatabaseUnavailable } from '../db/pg-errors';
import { createLogger, errorFields, type Logger } from '../log';
import { writeBehind } from '../write-behind';
import { holdsUnstorable, storableText } from './audit-batch';

/**
 * The audit records of successful built-in reads (SPEC 2.6), kept as pages (migration
 * core/017): each record is encoded, as it comes, onto its store's open page, a JSON array in a
 * byte buffer; every READ_DELAY_MS (10 ms) the open pages are written, one row each, in one statement.
 *
 * Why: reads are most tool calls. As a row each, a read's record cost the database 8-12 µs and the
 * server one object kept alive until its batch was written (promoted by the collector); as part
 * of a page it costs the database 2-3.5 µs and the server a few bytes (measured: MCP tools/call
 * went from 62% to 68% of the REST GET before the record was built straight into the page).
 *
 * What a crash loses is what the row batches lose: the records of reads answered in the last
 * moments. Readers (the list, the look-up by id, erasure) first write the store's open pages.
 * Every other record (changes, failed calls, custom tools, held calls) is a row of
 * tool_executions; core/tools/executions.ts reads both as one log.
 */

/** A successful built-in read's record, as it goes onto a page. */
export interface ReadRecord {
  id: string;
  store_id: string;
  tool: string;
  action: string;
  agent_id: string | null;
  agent_name: string | null;
  source: string;
  duration_ms: number;
  input: unknown;
  /** The JSON text of what the call answered. */
  output: string;
  created_at: string;
}

/**
 * A page takes records while it is younger than this and whose ids (UUIDv7) are younger than
 * MAX_RECORD_AGE_MS (older ones, from slow calls, are written as rows): so the page holding an id
 * starts at most LOOKUP_WINDOW_MS before the id's time, and a look-up by id opens only the pages
 * of that window.
 */
const MAX_OPEN_MS = 1000;
export const MAX_RECORD_AGE_MS = 5000;
const LOOKUP_WINDOW_MS = 10_000;
/** A page closes at this size (or record count); one larger record has a page to itself. */
const MAX_BYTES = 512 * 1024;
const MAX_RECORDS = 512;
const FIRST_BYTES = 8 * 1024;
/**
 * How long a page takes records before it is written. A page costs PostgreSQL about 110 µs and the
 * server about 55 µs whatever it holds, plus about 2 µs a record (measured): at 10 ms a busy store's
 * pages hold a hundred records or more, where at 2 ms (the rows' delay) they held about 25 and MCP
 * tools/call ran about 5% slower. A page is bytes, not objects, so waiting longer costs the
 * collector nothing.
 */
const READ_DELAY_MS = 10;
/** Past this many bytes of records not yet written, a read waits for its page's write: memory, and what a crash loses, stay bounded. */
const MAX_UNWRITTEN_BYTES = 32 * 1024 * 1024;
let unwrittenBytes = 0;

/**
 * The record as JSON, in pieces written one after the other (joining them would copy the output):
 * the head, then the output. The body is read with json_to_recordset, which refuses \u0000 and
 * lone surrogates anywhere: the head is made storable, and an output holding one is kept as text.
 */
function recordHead(r: ReadRecord): string {
  return storableText(
    `{"id":"${r.id}","tool":${JSON.stringify(r.tool)},"action":${JSON.stringify(r.action)},"agent_id":${r.agent_id === null ? 'null' : JSON.stringify(r.agent_id)},"agent_name":${JSON.stringify(r.agent_name)},"source":${JSON.stringify(r.source)},"status":"success","duration_ms":${r.duration_ms},"created_at":"${r.created_at}","input":${JSON.stringify(r.input ?? {})}`,
  );
}

class Page {
  readonly id = Bun.randomUUIDv7();
  readonly opened = performance.now();
  private bytes = Buffer.allocUnsafe(FIRST_BYTES);
  /** Bytes used: the records, the opening bracket and their commas. */
  length = 1;
  count = 0;
  firstAt = '';
  lastAt = '';
  firstId = '';
  lastId = '';
  /** Records per tool, and per agent id ('' for none). */
  readonly tools = new Map<string, number>();
  readonly agents = new Map<string, number>();
  /** Set when its write starts (or it is full): no record is added after. */
  sealed = false;

  constructor(readonly store_id: string) {
    this.bytes[0] = 0x5b; // [
  }

  /** Whether a record of about `size` UTF-16 units may be added. */
  takes(size: number): boolean {
    return !this.sealed && performance.now() - this.opened < MAX_OPEN_MS && this.count < MAX_RECORDS && this.length + size * 3 <= MAX_BYTES;
  }

  append(head: string, output: string, r: ReadRecord) {
    const asText = holdsUnstorable(output);
    const value = asText ? JSON.stringify(output) : output;
    // At most 3 UTF-8 bytes per UTF-16 unit, the key, a comma, the closing brace and bracket.
    const need = this.length + (head.length + value.length) * 3 + 32;
    if (need > this.bytes.length) {
      const bigger = Buffer.allocUnsafe(Math.max(need, this.bytes.length * 2));
      this.bytes.copy(bigger, 0, 0, this.length);
      this.bytes = bigger;
    }
    const start = this.length;
    // Buffer.write at an offset: no view made per piece.
    if (this.count++) this.bytes[this.length++] = 0x2c; // ,
    this.length += this.bytes.write(head, this.length);
    this.length += this.bytes.write(asText ? ',"output_text":' : ',"output":', this.length);
    this.length += this.bytes.write(value, this.length);
    this.bytes[this.length++] = 0x7d; // }
    unwrittenBytes += this.length - start;
    if (!this.firstAt || r.created_at < this.firstAt) this.firstAt = r.created_at;
    if (r.created_at > this.lastAt) this.lastAt = r.created_at;
    if (!this.firstId || r.id < this.firstId) this.firstId = r.id;
    if (r.id > this.lastId) this.lastId = r.id;
    this.tools.set(r.tool, (this.tools.get(r.tool) ?? 0) + 1);
    this.agents.set(r.agent_id ?? '', (this.agents.get(r.agent_id ?? '') ?? 0) + 1);
  }

  /** The finished JSON array. */
  body(): Uint8Array {
    this.bytes[this.length] = 0x5d; // ]
    return this.bytes.subarray(0, this.length + 1);
  }
}

const defaultLog = createLogger();

/** The page each store's reads are added to now, per database. */
const openPages = new Map<Db, Map<string, Page>>();

const PAGE_COLUMNS = 10;
const SIZES = [1, 2, 4, 8, 16, 32, 64];
const statements = new Map<number, string>();

/** Padded to a power of two like the row batches, so a connection prepares a few statements, not one per count. */
function insertStatement(size: number): string {
  let text = statements.get(size);
  if (text) return text;
  const row = (n: number) => {
    const p = (i: number) => `$${n * PAGE_COLUMNS + i}`;
    return `(${p(1)}::uuid, ${p(2)}::uuid, ${p(3)}::timestamptz, ${p(4)}::timestamptz, ${p(5)}::uuid, ${p(6)}::uuid, ${p(7)}::integer, ${p(8)}::text::jsonb, ${p(9)}::text::jsonb, convert_from(${p(10)}::bytea, 'UTF8'))`;
  };
  text = `INSERT INTO tool_execution_pages (id, store_id, first_at, last_at, first_id, last_id, count, tools, agents, body)
  SELECT * FROM (VALUES ${Array.from({ length: size }, (_, n) => row(n)).join(', ')}) AS x(id, store_id, first_at, last_at, first_id, last_id, count, tools, agents, body)
  WHERE id IS NOT NULL
  ON CONFLICT (id) DO NOTHING`;
  statements.set(size, text);
  return text;
}

const counts = (m: Map<string, number>) => JSON.stringify(Object.fromEntries(m));

function insertArgs(batch: Page[]): [string, unknown[]] {
  const size = SIZES.find((s) => s >= batch.length)!;
  const params: unknown[] = [];
  for (const p of batch)
    params.push(p.id, p.store_id, p.firstAt, p.lastAt, p.firstId, p.lastId, p.count, counts(p.tools), counts(p.agents), p.body());
  for (let n = params.length; n < size * PAGE_COLUMNS; n++) params.push(null);
  return [insertStatement(size), params];
}

/**
 * One statement for the batch (ON CONFLICT: a retry of a batch whose commit's answer was lost
 * writes nothing twice). If the database refuses it, each page alone, so a page it cannot take (a
 * clock's time past year 9999) is logged and dropped rather than retried forever with the others.
 */
async function writePages(db: Db, batch: Page[]): Promise<void> {
  const open = openPages.get(db);
  for (const page of batch) {
    page.sealed = true;
    if (open?.get(page.store_id) === page) open.delete(page.store_id);
  }
  try {
    await db.query(...insertArgs(batch));
  } catch (err) {
    if (isDatabaseUnavailable(err)) throw err; // the write-behind keeps the batch and retries it
    for (const page of batch)
      await db.query(...insertArgs([page])).catch((err) => {
        if (isDatabaseUnavailable(err)) throw err;
        defaultLog.error('audit page refused by the database', { page_id: page.id, records: page.count, ...errorFields(err) });
      });
  }
  for (const p of batch) unwrittenBytes -= p.length - 1;
}

const pages = writeBehind<Page>({
  name: 'tool call audit pages',
  write: writePages,
  delayMs: READ_DELAY_MS,
  maxBatch: SIZES[SIZES.length - 1],
  // Pages of many stores may wait at once; MAX_UNWRITTEN_BYTES bounds what they hold.
  maxPending: 4096,
});

/**
 * Adds a read's record to its store's open page. Undefined when the caller need not wait; a
 * promise when too much is unwritten (or after the shutdown's drain), settled once its page is
 * written or its write failed (it is kept and retried).
 */
export function addReadRecord(db: Db, r: ReadRecord, log: Logger = defaultLog): Promise<unknown> | undefined {
  let open = openPages.get(db);
  if (!open) openPages.set(db, (open = new Map()));
  const head = recordHead(r);
  const page = open.get(r.store_id);
  if (page?.takes(head.length + r.output.length)) {
    page.append(head, r.output, r);
    return unwrittenBytes > MAX_UNWRITTEN_BYTES ? pages.flush(db, (p) => p === page) : undefined;
  }
  if (page) page.sealed = true; // full or old: it waits for its write as it is
  const fresh = new Page(r.store_id);
  fresh.append(head, r.output, r);
  open.set(r.store_id, fresh);
  return pages.add(db, fresh, log) ?? (unwrittenBytes > MAX_UNWRITTEN_BYTES ? pages.flush(db, (p) => p === fresh) : undefined);
}

/** Before a read of a store's log: its pages still pending are written. */
export const pagesOfStoreWritten = (storeId: string) => pages.flush(undefined, (p) => p.store_id === storeId);

export const flushPages = () => pages.flush();

// --- Reading ------------------------------------------------------------------------------------

/** A page record as a tool_executions row (what toExecution takes). */
const RECORD_ROW = `r.id, p.store_id, r.tool, r.action, NULL::uuid AS custom_tool_id, r.agent_id, r.agent_name, r.source, r.status,
  r.duration_ms, r.input, coalesce(r.output_text, r.output::text) AS output, NULL::jsonb AS approval, NULL::timestamptz AS expires_at,
  NULL::jsonb AS principal, r.created_at, r.created_at AS completed_at`;
const RECORDS = `json_to_recordset(p.body::json) AS r(id uuid, tool text, action text, agent_id uuid, agent_name text, source text,
  status text, duration_ms integer, input jsonb, output json, output_text text, created_at timestamptz)`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The smallest UUIDv7 of the millisecond `ms`. */
function uuidAt(ms: number): string {
  const hex = Math.max(0, ms).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** The record `id` of the store if a page holds it: only pages whose ids span it, in the window before its time, are opened. */
export async function pageRecord(db: Db, storeId: string, id: string): Promise<Record<string, any> | undefined> {
  if (!UUID.test(id)) return undefined;
  const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  const [row] = await db.query(
    `SELECT ${RECORD_ROW} FROM tool_execution_pages p CROSS JOIN LATERAL ${RECORDS}
     WHERE p.store_id = $1 AND p.first_id BETWEEN $3 AND $2 AND p.last_id >= $2 AND r.id = $2`,
    [storeId, id.toLowerCase(), uuidAt(ms - LOOKUP_WINDOW_MS)],
  );
  return row;
}

/** The list's filters, as they apply to page records (all of which are successes). */
export interface PageFilter {
  tool?: string;
  agent_id?: string;
  from?: Date;
  to?: Date;
}

/**
 * SQL for a filter: which pages may hold a match, how many of a page's records match (`matches`:
 * from its counts when they tell, else by opening it) and about how many (`expected`, an upper
 * bound), and which records match.
 */
function filterSql(storeId: string, f: PageFilter) {
  const values: unknown[] = [storeId];
  const param = (v: unknown) => `$${values.push(v)}`;
  const page = ['p.store_id = $1'];
  const record: string[] = [];
  const timeWhole: string[] = [];
  // Per page: how many records have the tool, and how many the agent (all of them when not filtered).
  let byTool = 'p.count';
  let byAgent = 'p.count';
  if (f.tool !== undefined) {
    const t = param(f.tool);
    byTool = `(p.tools->>${t}::text)::integer`;
    page.push(`${byTool} > 0`);
    record.push(`r.tool = ${t}`);
  }
  if (f.agent_id !== undefined) {
    const a = param(f.agent_id);
    byAgent = `(p.agents->>${a}::text)::integer`;
    page.push(`${byAgent} > 0`);
    record.push(`r.agent_id = ${a}::uuid`);
  }
  if (f.from) {
    const from = param(f.from);
    page.push(`p.last_at >= ${from}`);
    timeWhole.push(`p.first_at >= ${from}`);
    record.push(`r.created_at >= ${from}`);
  }
  if (f.to) {
    const to = param(f.to);
    page.push(`p.first_at <= ${to}`);
    timeWhole.push(`p.last_at <= ${to}`);
    record.push(`r.created_at <= ${to}`);
  }
  const whole = timeWhole.join(' AND ') || 'true';
  const recordWhere = record.join(' AND ') || 'true';
  // When every record of the page has the tool, the agent's count is the answer, and the other way round.
  const matches = `CASE WHEN ${whole} AND ${byTool} = p.count THEN ${byAgent} WHEN ${whole} AND ${byAgent} = p.count THEN ${byTool}
    ELSE (SELECT count(*) FROM ${RECORDS} WHERE ${recordWhere}) END`;
  return { values, param, page: page.join(' AND '), record: recordWhere, matches, expected: `least(${byTool}, ${byAgent})` };
}

/** How many page records match: most pages are counted without being opened. */
export async function countPageRecords(db: Db, storeId: string, f: PageFilter): Promise<number> {
  const s = filterSql(storeId, f);
  const [{ n }] = await db.query<{ n: string | null }>(`SELECT sum(${s.matches}) AS n FROM tool_execution_pages p WHERE ${s.page}`, s.values);
  return Number(n ?? 0);
}

/** Pages opened per round of newestPageRecords, at most. */
const PAGES_PER_ROUND = 256;

/**
 * The `need` newest matching page records (newest first; fewer if there are fewer). Pages are
 * opened newest first, a round at a time, holding about `need` records: a page's records are no
 * newer than its last_at, so once `need` records are newer than the last page opened, no page
 * left can hold one of them.
 */
export async function newestPageRecords(db: Db, storeId: string, f: PageFilter, need: number): Promise<Record<string, any>[]> {
  const found: Record<string, any>[] = [];
  let after: { at: Date; id: string } | undefined;
  for (;;) {
    const s = filterSql(storeId, f);
    const wanted = s.param(need);
    const key = after ? `AND (p.last_at, p.id) < (${s.param(after.at)}, ${s.param(after.id)}::uuid)` : '';
    // The round: pages newest first until the records they may match reach `need` (at least one page).
    const rows = await db.query(
      `WITH newest AS (
         SELECT p.id, p.last_at, ${s.expected} AS expected FROM tool_execution_pages p WHERE ${s.page} ${key}
         ORDER BY p.last_at DESC, p.id DESC LIMIT ${PAGES_PER_ROUND}),
       round AS (
         SELECT id, last_at, sum(expected) OVER (ORDER BY last_at DESC, id DESC) - expected AS before FROM newest)
       SELECT round.id AS page_id, round.last_at AS page_last_at, m.* FROM round
       LEFT JOIN LATERAL (SELECT ${RECORD_ROW} FROM tool_execution_pages p CROSS JOIN LATERAL ${RECORDS}
                          WHERE p.id = round.id AND ${s.record}) m ON true
       WHERE round.before < ${wanted}
       ORDER BY round.last_at DESC, round.id DESC`,
      s.values,
    );
    if (!rows.length) return sorted(found);
    for (const row of rows) if (row.id) found.push(row);
    const last = rows[rows.length - 1];
    after = { at: last.page_last_at, id: last.page_id };
    const bound = new Date(last.page_last_at).getTime();
    if (found.filter((r) => new Date(r.created_at).getTime() > bound).length >= need) return sorted(found).slice(0, need);
  }
}

/** Newest first, ties by id (descending): the order of the list. */
export const newestFirst = (a: Record<string, any>, b: Record<string, any>) =>
  new Date(b.created_at).getTime() - new Date(a.created_at).getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

const sorted = (records: Record<string, any>[]) => records.sort(newestFirst);
