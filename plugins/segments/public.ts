import { existingIds, type Db } from '../../core/sdk';
import { customersSource } from '../customers/public';
import { storeSettings } from '../store/public';
import { compile } from './rules';
import type { RulesT } from './schemas';

/**
 * What other plugins may use of segments (campaigns' audiences). A plugin that imports this file
 * declares `requires: ['segments']`.
 */

/** Which of `ids` are segments of the store: the standard existence check. */
export const segmentsIn = (db: Db, storeId: string, ids: readonly string[]) => existingIds(db, { table: 'segments', storeId, ids });

/**
 * The segment's members at `now` as an SQL source (`FROM ${m.sql} m`), for a statement of the
 * caller's that takes them whole (a campaign's audience, snapshotted in one INSERT ... SELECT).
 * Columns: customersSource's (id, email, first_name, last_name, tags, accepts_marketing, ...).
 * `store` is the caller's placeholder of the store id; the source's own values are `params`,
 * numbered from `firstParam`. Undefined when the store has no such segment.
 */
export async function membersSource(
  db: Db,
  storeId: string,
  segmentId: string,
  o: { now: Date; store: string; firstParam: number },
): Promise<{ sql: string; params: unknown[] } | undefined> {
  const [s] = await db.query<{ rules: RulesT }>('SELECT rules FROM segments WHERE store_id = $1 AND id = $2', [storeId, segmentId]);
  if (!s) return undefined;
  const currency = (await storeSettings(db, storeId)).currency;
  const cur = `$${o.firstParam}`;
  const rules = compile(s.rules, { currency, now: o.now, firstParam: o.firstParam + 1, store: o.store, currencyParam: cur });
  return {
    // The currency is named even when no rule reads orders: PostgreSQL refuses a parameter it cannot type.
    sql: `(SELECT c.* FROM ${customersSource(o.store)} c WHERE ${cur}::text IS NOT NULL AND (${rules.sql}))`,
    params: [currency, ...rules.params],
  };
}
