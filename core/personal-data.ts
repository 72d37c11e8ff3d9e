import type { Db } from './db/types';
import type { Registry } from './plugins/contract';
import { auditsOfStoreWritten } from './tools/executions';

/**
 * Erasure of a person's data from the copies the core keeps (GDPR art. 17, CCPA): stored webhook
 * events (the bodies every delivery attempt signs and sends), the receivers' recorded answers,
 * the tool-call audit log, the 24 h idempotent replays, and the columns plugins declare in
 * `personalData` (an agent's conversation turns). The resource's own row is its plugin's to scrub.
 *
 * It runs in the caller's transaction, next to the scrub of the row: the personal values exist
 * only in memory here. A background job would have to carry them in its payload (pg-boss keeps
 * payloads after completion: one more copy) or read them from a row already scrubbed.
 */

export const ERASED = '[erased]';

export interface PersonalData {
  /**
   * Strings that identify the person (an id, an email): only JSON or text containing one of them
   * (ignoring case) is touched. Everything else, however similar, stays.
   */
  mentions: string[];
  /**
   * The person's data (email, names, phone, address lines...). Within those copies, a string equal
   * to one (ignoring case and surrounding space), containing one of 3 or more characters as a
   * whole word (free text), or holding a value's phone number in any formatting, becomes ERASED.
   */
  values: string[];
  /**
   * The person's own resource as the API shows it (`{object: 'customer', id}`). In any copy of it,
   * every string but `keep` (object, id, timestamps) becomes ERASED, older values the row no longer
   * has included; the strings under `identifying` keys join `values` (emails join `mentions`), so
   * copies that hold an old email without the id are found too.
   */
  record?: { object: string; id: string; identifying: string[]; keep?: string[] };
}

type Kind = 'jsonb' | 'text';
interface Target {
  table: string;
  column: string;
  kind: Kind;
  key: string[];
  /** SQL limiting rows to the store ($1) ; `mentionsId` is the SQL of "mentions the record's id". */
  scope: (alias: string, mentionsId: string) => string;
}

const byStore = (a: string) => `${a}.store_id = $1`;

/** The core's copies. idempotency_keys rows belong to a credential, not a store: a store's API keys, or any namespace when the row names the record's (globally unique) id. */
const CORE_TARGETS: Target[] = [
  { table: 'events', column: 'body', kind: 'text', key: ['id'], scope: byStore },
  { table: 'webhook_deliveries', column: 'last_response', kind: 'text', key: ['id'], scope: byStore },
  {
    table: 'webhook_delivery_attempts',
    column: 'response',
    kind: 'text',
    key: ['delivery_id', 'attempt'],
    scope: (a) => `${a}.delivery_id IN (SELECT id FROM webhook_deliveries WHERE store_id = $1)`,
  },
  ...['input', 'approval'].map((column) => ({ table: 'tool_executions', column, kind: 'jsonb' as const, key: ['id'], scope: byStore })),
  // The output is kept as JSON text (migration core/013).
  { table: 'tool_executions', column: 'output', kind: 'text', key: ['id'], scope: byStore },
  // Successful reads' records, a page of them per row (core/tools/audit-pages.ts): one JSON text.
  { table: 'tool_execution_pages', column: 'body', kind: 'text', key: ['id'], scope: byStore },
  ...(['response_text', 'response_body'] as const).map((column) => ({
    table: 'idempotency_keys',
    column,
    kind: column === 'response_text' ? ('text' as const) : ('jsonb' as const),
    key: ['api_key_id', 'key'],
    scope: (a: string, mentionsId: string) => `(${a}.api_key_id IN (SELECT id FROM api_keys WHERE store_id = $1) OR ${mentionsId})`,
  })),
];

const IDENT = /^[a-z_][a-z0-9_]*$/;

function targetsOf(registry?: Registry): Target[] {
  const declared = (registry?.plugins ?? []).flatMap((p) => p.personalData ?? []);
  return [
    ...CORE_TARGETS,
    ...declared.map((d) => {
      const key = d.key ?? 'id';
      for (const name of [d.table, d.column, key]) if (!IDENT.test(name)) throw new Error(`personalData: '${name}' is not a plain identifier`);
      return { table: d.table, column: d.column, kind: 'jsonb' as const, key: [key], scope: byStore };
    }),
  ];
}

interface Found {
  target: Target;
  keys: unknown[];
  text: string;
}

/** Rows of one target whose column mentions one of `mentions` (lower-cased), read as text. */
async function find(db: Db, storeId: string, t: Target, mentions: string[], recordId: string | null): Promise<Found[]> {
  const text = t.kind === 'jsonb' ? `x.${t.column}::text` : `x.${t.column}`;
  const mentionsId = recordId === null ? 'false' : `strpos(lower(${text}), $3) > 0`;
  const sql = `SELECT ${t.key.map((k) => `x.${k} AS k_${k}`).join(', ')}, ${text} AS v FROM ${t.table} x
     WHERE ${t.scope('x', mentionsId)} AND x.${t.column} IS NOT NULL
       AND EXISTS (SELECT 1 FROM unnest($2::text[]) AS m(s) WHERE strpos(lower(${text}), m.s) > 0)`;
  // $3 exists only where the scope names the record's id (a parameter not in the SQL is an error).
  const rows = await db.query<Record<string, unknown>>(sql, sql.includes('$3') ? [storeId, mentions, recordId] : [storeId, mentions]);
  return rows.map((r) => ({ target: t, keys: t.key.map((k) => r[`k_${k}`]), text: r.v as string }));
}

/**
 * Scrubs the person's data from every copy in the store's rows (see PersonalData for the rules).
 * Idempotent: a second run finds only ERASED where the data was. Returns how many values changed
 * in each table, for logs and tests.
 */
export async function scrubPersonalData(db: Db, storeId: string, person: PersonalData, registry?: Registry): Promise<Record<string, number>> {
  const targets = targetsOf(registry);
  await auditsOfStoreWritten(storeId);
  const m = matcher(person);
  const recordId = person.record ? person.record.id.toLowerCase() : null;
  // Copies of the record may hold emails the row no longer has: look again with them (bounded).
  let found: Found[] = [];
  for (let round = 0; round < 3; round++) {
    const size = m.mentions.size;
    found = (await Promise.all(targets.map((t) => find(db, storeId, t, [...m.mentions], recordId)))).flat();
    if (person.record) for (const f of found) harvest(parse(f.text), m);
    if (m.mentions.size === size) break;
  }
  const changed: Record<string, number> = {};
  for (const f of found) {
    const { value, count } = scrubText(f.text, f.target.kind, m);
    if (!count) continue;
    const where = f.target.key.map((k, i) => `${k} = $${i + 2}`).join(' AND ');
    await db.query(`UPDATE ${f.target.table} SET ${f.target.column} = $1${f.target.kind === 'jsonb' ? '::text::jsonb' : ''} WHERE ${where}`, [
      value,
      ...f.keys,
    ]);
    const name = `${f.target.table}.${f.target.column}`;
    changed[name] = (changed[name] ?? 0) + count;
  }
  return changed;
}

// --- Matching, in memory -------------------------------------------------------------------------

interface Matcher {
  mentions: Set<string>;
  exact: Set<string>;
  words: Set<string>;
  phones: Set<string>;
  record?: PersonalData['record'] & { idLower: string; keepSet: Set<string>; identifyingSet: Set<string> };
}

const PHONE_TEXT = /^[+\d\s().\-/]+$/;
const digits = (s: string) => s.replace(/\D/g, '');
const WORD_CHAR = /[\p{L}\p{N}]/u;

function addValue(m: Matcher, raw: string) {
  const v = raw.trim().toLowerCase();
  if (!v || v === ERASED) return;
  m.exact.add(v);
  if (v.length >= 3) m.words.add(v);
  if (PHONE_TEXT.test(v) && digits(v).length >= 7) m.phones.add(digits(v));
  if (v.includes('@')) m.mentions.add(v);
}

function matcher(p: PersonalData): Matcher {
  const m: Matcher = { mentions: new Set(), exact: new Set(), words: new Set(), phones: new Set() };
  for (const s of p.mentions) if (s.trim()) m.mentions.add(s.trim().toLowerCase());
  for (const s of p.values) addValue(m, s);
  if (p.record) {
    const keep = p.record.keep ?? ['object', 'id', 'created_at', 'updated_at'];
    m.record = { ...p.record, idLower: p.record.id.toLowerCase(), keepSet: new Set(keep), identifyingSet: new Set(p.record.identifying) };
    m.mentions.add(m.record.idLower);
  }
  return m;
}

/** Whether a string is (or, as free text, contains) one of the person's values. */
function personal(s: string, m: Matcher): boolean {
  const v = s.trim().toLowerCase();
  if (!v || v === ERASED) return false;
  if (m.exact.has(v)) return true;
  if (PHONE_TEXT.test(v)) {
    const d = digits(v);
    if (d.length >= 7) for (const p of m.phones) if (d.includes(p)) return true;
  }
  for (const w of m.words) {
    for (let i = v.indexOf(w); i >= 0; i = v.indexOf(w, i + 1)) {
      const before = v[i - 1];
      const after = v[i + w.length];
      if ((!before || !WORD_CHAR.test(before)) && (!after || !WORD_CHAR.test(after))) return true;
    }
  }
  return false;
}

const isRecord = (v: Record<string, unknown>, m: Matcher) =>
  m.record !== undefined && v.object === m.record.object && typeof v.id === 'string' && v.id.toLowerCase() === m.record.idLower;

/** Adds the strings under `identifying` keys of every copy of the record to the matcher. */
function harvest(v: unknown, m: Matcher, key?: string, inRecord = false): void {
  if (typeof v === 'string') {
    if (inRecord && key !== undefined && m.record!.identifyingSet.has(key)) addValue(m, v);
    else if (looksJson(v)) harvest(parse(v), m, key, inRecord);
  } else if (Array.isArray(v)) for (const x of v) harvest(x, m, key, inRecord);
  else if (v && typeof v === 'object') {
    const rec = inRecord || isRecord(v as Record<string, unknown>, m);
    for (const [k, x] of Object.entries(v)) harvest(x, m, k, rec);
  }
}

const looksJson = (s: string) => s.length > 1 && (s[0] === '{' || s[0] === '[');

interface Scrubbed {
  value: unknown;
  count: number;
}

/**
 * The JSON with the person's data replaced; `count` says how many strings changed. Inside a copy
 * of the record every string but those under `keep` keys (an address line, a tag, an old email) is
 * the person's; elsewhere only strings matching their values are.
 */
function scrubValue(v: unknown, m: Matcher, key?: string, inRecord = false): Scrubbed {
  if (typeof v === 'string') {
    if (inRecord && !(key !== undefined && m.record!.keepSet.has(key))) return v === ERASED ? { value: v, count: 0 } : { value: ERASED, count: 1 };
    if (looksJson(v)) {
      // A JSON document kept as a string (an agent's tool result): scrub inside, keep the rest.
      const inner = parse(v);
      if (inner !== null && typeof inner === 'object') {
        const s = scrubValue(inner, m, key, inRecord);
        return s.count ? { value: JSON.stringify(s.value), count: s.count } : { value: v, count: 0 };
      }
    }
    return personal(v, m) ? { value: ERASED, count: 1 } : { value: v, count: 0 };
  }
  let count = 0;
  const sub = (x: unknown, k: string | undefined, rec: boolean) => {
    const s = scrubValue(x, m, k, rec);
    count += s.count;
    return s.value;
  };
  if (Array.isArray(v)) {
    const value = v.map((x) => sub(x, key, inRecord));
    return { value, count };
  }
  if (v && typeof v === 'object') {
    const rec = inRecord || isRecord(v as Record<string, unknown>, m);
    const value = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, sub(x, k, rec)]));
    return { value, count };
  }
  return { value: v, count: 0 };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A stored column's text after scrubbing: JSON is walked; other text (a receiver's answer) is erased whole when it holds the data. */
function scrubText(text: string, kind: Kind, m: Matcher): { value: string; count: number } {
  const json = parse(text);
  if (json === undefined) {
    if (kind === 'jsonb') return { value: text, count: 0 };
    return personal(text, m) ? { value: ERASED, count: 1 } : { value: text, count: 0 };
  }
  const s = scrubValue(json, m);
  return s.count ? { value: JSON.stringify(s.value), count: s.count } : { value: text, count: 0 };
}
