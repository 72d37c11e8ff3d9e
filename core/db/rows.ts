import type { Db } from './types';
import type { Ctx } from '../plugins/contract';
import { errors, type SvcError } from '../errors';
import { iso } from '../clock';
import { page, type PageInput } from '../plugins/pagination';
import { isUniqueViolation, violatedConstraint } from './pg-errors';

/**
 * Row helpers for plugin stores: the few things every store.ts did by hand, no more. The SQL
 * stays in the store; these only number parameters, name errors and shape lists the one way.
 * Table names, columns, conditions and locks passed here are code, never request input.
 */

/** A row as the drivers return it; each store maps it to its API shape. */
export type Row = Record<string, any>;

export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  url: string;
}

/**
 * One row of this store by id, or 404 `resource_missing` "No such <noun>: '<id>'." naming
 * `param`. `where` adds a fixed condition (`archived_at IS NULL`); `lock` holds the row until
 * the transaction ends, for a read-then-write.
 */
export async function rowOr404(
  db: Db,
  q: {
    table: string;
    storeId: string;
    id: string;
    noun: string;
    param?: string;
    where?: string;
    lock?: 'FOR UPDATE' | 'FOR NO KEY UPDATE' | 'FOR SHARE';
  },
): Promise<Row> {
  const [found] = await db.query(rowStatement(q.table, q.where, q.lock), [q.storeId, q.id]);
  if (!found) throw errors.notFound(`${q.noun}: '${q.id}'`, q.param ?? 'id');
  return found;
}

/**
 * The statement of a row look-up, made once per shape: a string built per call is a new string
 * the driver must flatten, hash and scan again before finding its prepared statement (measured
 * on the product GET). The parts are code, never input, so the cache stays small.
 */
const rowStatements = new Map<string, Map<string | undefined, Map<string | undefined, string>>>();
function rowStatement(table: string, where?: string, lock?: string): string {
  // Keyed by the parts themselves (literals in the stores' code): a joined key would be a new string too.
  let byWhere = rowStatements.get(table);
  if (!byWhere) rowStatements.set(table, (byWhere = new Map()));
  let byLock = byWhere.get(where);
  if (!byLock) byWhere.set(where, (byLock = new Map()));
  let text = byLock.get(lock);
  if (!text)
    byLock.set(lock, (text = `SELECT * FROM ${table} WHERE store_id = $1 AND id = $2${where ? ` AND ${where}` : ''}${lock ? ` ${lock}` : ''}`));
  return text;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Which of `ids` are rows of this store (the existence check each resource-owning plugin offers
 * in its public.ts: `productsIn(db, storeId, ids)`). One query whatever the count; a malformed id
 * names no row. `where` adds a fixed condition (`archived_at IS NULL`).
 */
export async function existingIds(db: Db, q: { table: string; storeId: string; ids: readonly string[]; where?: string }): Promise<Set<string>> {
  const wanted = [...new Set(q.ids.filter((id) => UUID.test(id)))];
  if (!wanted.length) return new Set();
  const rows = await db.query(`SELECT id FROM ${q.table} WHERE store_id = $1 AND id = ANY($2::uuid[])${q.where ? ` AND ${q.where}` : ''}`, [
    q.storeId,
    wanted,
  ]);
  // Compare as the ids were given: PostgreSQL answers uuids in lower case.
  const found = new Set(rows.map((r) => String(r.id)));
  return new Set(q.ids.filter((id) => found.has(id.toLowerCase())));
}

/**
 * A page of this store's rows, newest first, in the SPEC list envelope (cursor rules in
 * core/plugins/pagination.ts). `where` holds fixed conditions; each `filters` key is a condition
 * where `$` stands for its value, left out when the value is undefined (an absent query field).
 * `toData` maps the whole page at once, so a store can fetch related rows in one query.
 */
export async function listPage<T>(
  ctx: Pick<Ctx, 'db' | 'store' | 'storePath'>,
  q: { table: string; path: string; input: PageInput; where?: string[]; filters?: Record<string, unknown> },
  toData: (rows: Row[]) => T[] | Promise<T[]>,
): Promise<ListEnvelope<T>> {
  const where = [...(q.where ?? [])];
  const params: unknown[] = [];
  for (const [condition, value] of Object.entries(q.filters ?? {})) {
    if (value === undefined) continue;
    params.push(value);
    const n = params.length + 1; // $1 is the store id
    where.push(condition.replace(/\$(?!\d)/g, () => `$${n}`));
  }
  const { rows, has_more } = await page<Row>(ctx.db, { table: q.table, storeId: ctx.store.id, where, params, input: q.input });
  return { object: 'list', data: await toData(rows), has_more, url: `${ctx.storePath}${q.path}` };
}

/**
 * Awaits a write and turns a unique violation into the 409 the store chose for that constraint
 * (or unique index) name, so each conflict names its own field. A violation of a constraint not
 * listed is a bug and stays a 500.
 */
export async function unique<T>(write: Promise<T>, conflicts: Record<string, () => SvcError>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    const named = isUniqueViolation(err) ? conflicts[violatedConstraint(err) ?? ''] : undefined;
    throw named ? named() : err;
  }
}

/**
 * The SET list of a PATCH: `col = $n` for each field that is not undefined (left out = keep;
 * null = clear), numbered after the `after` parameters the statement already uses. Columns in
 * `json` go through jsonParam and are cast from text. Give updated_at too, so the list is never empty.
 */
export function setClause(fields: Record<string, unknown>, opts: { json?: string[]; after?: number } = {}) {
  const sets: string[] = [];
  const params: unknown[] = [];
  for (const [col, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (!/^[a-z_][a-z0-9_]*$/.test(col)) throw new Error(`setClause: '${col}' is not a column name`);
    const json = opts.json?.includes(col);
    params.push(json ? jsonParam(value) : value);
    sets.push(`${col} = $${(opts.after ?? 0) + params.length}${json ? '::text::jsonb' : ''}`);
  }
  return { sql: sets.join(', '), params };
}

/**
 * A jsonb parameter: JSON text, written `$n::text::jsonb` in the SQL. Both drivers (PGlite,
 * Bun.SQL) pass a string through unchanged, where they would each encode an array or object
 * their own way. null stays SQL NULL.
 */
export const jsonParam = (v: unknown) => (v == null ? null : JSON.stringify(v));

/** created_at and updated_at as the API writes them (ISO 8601 UTC); spread into a mapper. */
export const stamps = (r: Row) => ({ created_at: iso(r.created_at), updated_at: iso(r.updated_at) });
