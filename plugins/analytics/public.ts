/**
 * What other plugins may use of analytics: local_agent's rebuild_rollups task. A plugin importing
 * this declares `requires: ['analytics']`.
 */
import type { Clock, Db } from '../../core/sdk';

/** Rebuilds every store's daily rollups from its orders, one store at a time; answers how many. */
export async function rebuildRollups(db: Db, clock: Clock): Promise<{ stores: number }> {
  // The rollups' module is loaded here, not when a plugin importing this one starts (plugins/README.md).
  const { backfillStore } = await import('./rollups');
  const stores = await db.query<{ id: string }>('SELECT id FROM stores ORDER BY id');
  for (const s of stores) await backfillStore(db, clock, s.id);
  return { stores: stores.length };
}
