/**
 * What other plugins may use of locations: the standard existence check, and what the stock
 * ledger (inventory, which requires locations) needs of the places it keeps stock: the default
 * location, a location held while units move, and the SQL that names this plugin's table inside
 * the ledger's own statements (so an order's take or a product's first stock stays one statement).
 * A plugin that imports this file declares `requires: ['locations']`.
 */
import { existingIds, rowOr404, type Db, type Row } from '../../core/sdk';

/** Which of `ids` are locations (deleted ones are not) of the store. */
export const locationsIn = (db: Db, storeId: string, ids: readonly string[]) =>
  existingIds(db, { table: 'locations', storeId, ids, where: 'deleted_at IS NULL' });

/** The store's default location, created on first need ("Default"). */
export async function defaultLocation(db: Db, storeId: string, now: Date): Promise<string> {
  const [found] = await db.query<{ id: string }>('SELECT id FROM locations WHERE store_id = $1 AND is_default', [storeId]);
  if (found) return found.id;
  await db.query(
    `INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'Default', true, $2, $2) ON CONFLICT DO NOTHING`,
    [storeId, now],
  );
  const [row] = await db.query<{ id: string }>('SELECT id FROM locations WHERE store_id = $1 AND is_default', [storeId]);
  return row.id;
}

/**
 * Common table expressions for a caller's statement: `home` yields the store's default location
 * id, made in that statement when `when` (an SQL condition of it) holds and the store has none.
 * `at` names the statement's parameters (SQL expressions).
 */
export const defaultLocationCtes = (at: { storeId: string; now: string; when: string }) =>
  `made AS (
       INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at)
       SELECT gen_random_uuid(), ${at.storeId}, 'Default', true, ${at.now}, ${at.now}
       WHERE ${at.when} AND NOT EXISTS (SELECT 1 FROM locations WHERE store_id = ${at.storeId} AND is_default)
       ON CONFLICT DO NOTHING RETURNING id
     ), home AS (
       SELECT id FROM made UNION ALL SELECT id FROM locations WHERE store_id = ${at.storeId} AND is_default
     )`;

/**
 * A live (not deleted) location of the store, or 404 naming `param`, held with `lock` until the
 * transaction ends: the ledger holds a location it moves units at FOR SHARE, and the one it
 * vacates for deletion FOR UPDATE. The row has `id`, `name`, `active` and `is_default`.
 */
export const liveLocation = (db: Db, storeId: string, id: string, opts: { param?: string; lock?: 'FOR SHARE' | 'FOR UPDATE' } = {}): Promise<Row> =>
  rowOr404(db, { table: 'locations', storeId, id, noun: 'location', param: opts.param, where: 'deleted_at IS NULL', lock: opts.lock });

/** Which of `ids` are active locations of the store, each held FOR SHARE (in id order) until the transaction ends. */
export async function activeLocationsAmong(db: Db, storeId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await db.query<{ id: string }>(
    'SELECT id FROM locations WHERE store_id = $1 AND active AND id = ANY($2::uuid[]) ORDER BY id FOR SHARE',
    [storeId, ids],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * For another plugin's statement over rows that name a location (`locationId`, an SQL expression
 * of it): joins the location as `alias`, whose `name`, `active` and `is_default` it may read, and
 * `locationOrder(alias)` sorts as stock is listed and taken: the default first, then by creation.
 */
export const joinLocation = (alias: string, locationId: string) => `JOIN locations ${alias} ON ${alias}.id = ${locationId}`;
export const locationOrder = (alias: string) => `${alias}.is_default DESC, ${alias}.seq`;
