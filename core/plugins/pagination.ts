import type { Db } from '../db/types';
import { errors } from '../errors';

export interface PageInput {
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

/**
 * Cursor pagination, newest first, over a table with `seq` (insertion order), `id` and `store_id`.
 * `where` holds extra SQL conditions written with `$n` placeholders numbered after store_id ($1),
 * whose values are in `params`.
 */
export async function page<T>(
  db: Db,
  opts: { table: string; storeId: string; where?: string[]; params?: unknown[]; input: PageInput },
): Promise<{ rows: T[]; has_more: boolean }> {
  const { input } = opts;
  if (input.starting_after && input.ending_before) throw errors.validation('Pass only one of starting_after and ending_before.', 'ending_before');
  const limit = input.limit ?? 10;
  const params: unknown[] = [opts.storeId, ...(opts.params ?? [])];
  const where = ['store_id = $1', ...(opts.where ?? [])];
  const cursorId = input.starting_after ?? input.ending_before;
  const backwards = Boolean(input.ending_before);
  if (cursorId) {
    const param = backwards ? 'ending_before' : 'starting_after';
    const found = await db.query<{ seq: string }>(`SELECT seq FROM ${opts.table} WHERE store_id = $1 AND id = $2`, [opts.storeId, cursorId]);
    if (!found.length) throw errors.badRequest('invalid_cursor', `No such object: ${cursorId}.`, param);
    params.push(found[0].seq);
    where.push(`seq ${backwards ? '>' : '<'} $${params.length}`);
  }
  params.push(limit + 1);
  const rows = await db.query<T>(
    `SELECT * FROM ${opts.table} WHERE ${where.join(' AND ')} ORDER BY seq ${backwards ? 'ASC' : 'DESC'} LIMIT $${params.length}`,
    params,
  );
  const has_more = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  if (backwards) pageRows.reverse();
  return { rows: pageRows, has_more };
}
