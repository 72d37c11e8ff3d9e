import type { Db } from '../db/types';
import { ALL_EVENTS } from './types';

/**
 * What a store subscribed to `*` answers: has() is true for every type, so invoke and
 * recordEvents keep every event of such a store without knowing about the wildcard.
 */
class EveryType extends Set<string> {
  override has(_type: string): boolean {
    return true;
  }
}
const EVERY_TYPE: ReadonlySet<string> = new EveryType([ALL_EVENTS]);

/**
 * Which event types a store's active endpoints subscribe to, cached per process so that the
 * writes of a store without webhooks cost no extra query (invoke asks on every emitting write).
 *
 * Staleness: a change made through this process invalidates its entry at once. Another process
 * (a second API node) sees it within TTL_MS: for up to 5 s after an endpoint is created there, an
 * event of a newly subscribed type may not be stored, and after one is deleted or disabled an event
 * may still be stored (its fan-out then finds no endpoint and delivers nothing: the fan-out itself
 * reads the endpoints table in the writing transaction, never this cache).
 */
export const TTL_MS = 5_000;

const cache = new Map<string, { types: ReadonlySet<string>; until: number }>();
// After a change, answers are not cached for a moment: the change's transaction may not have
// committed yet when it invalidates, and a read racing it would otherwise cache the old state.
const settling = new Map<string, number>();
const SETTLE_MS = 2_000;

// Process-local freshness, not business time: a monotonic clock, unaffected by SVC_NOW or tests' clocks.
const now = () => performance.now();

export async function subscribedTypes(db: Db, storeId: string): Promise<ReadonlySet<string>> {
  const hit = cache.get(storeId);
  if (hit && hit.until > now()) return hit.types;
  // The store's endpoints' types, and those a plugin hears in this store alone (event_subscriptions).
  const rows = await db.query<{ type: string }>(
    `SELECT DISTINCT unnest(events) AS type FROM webhook_endpoints WHERE store_id = $1 AND is_active
     UNION SELECT type FROM event_subscriptions WHERE store_id = $1`,
    [storeId],
  );
  const types = rows.some((r) => r.type === ALL_EVENTS) ? EVERY_TYPE : new Set(rows.map((r) => r.type));
  const settle = settling.get(storeId);
  if (settle !== undefined && settle > now()) return types;
  settling.delete(storeId);
  cache.set(storeId, { types, until: now() + TTL_MS });
  // Bound the map: entries of idle stores are dropped once the cache grows large.
  if (cache.size > 10_000) for (const [k, v] of cache) if (v.until <= now()) cache.delete(k);
  return types;
}

/** Call whenever a store's endpoints change (create, update, delete, disable). */
export function invalidateSubscriptions(storeId: string): void {
  cache.delete(storeId);
  settling.set(storeId, now() + SETTLE_MS);
}

/**
 * A plugin's run-time subscriptions in one store (a workflow's event trigger): replaces the
 * plugin's set of types there, in the caller's transaction. Events of those types are then stored
 * for the store and handed to the plugin's `onSubscribed` reaction as any reaction is (at least once,
 * applied once). Other processes see a change within TTL_MS, as with webhook endpoints.
 */
export async function setEventSubscriptions(db: Db, storeId: string, plugin: string, types: readonly string[]): Promise<void> {
  await db.query(
    `WITH gone AS (DELETE FROM event_subscriptions WHERE store_id = $1 AND plugin = $2 AND NOT (type = ANY($3::text[])))
     INSERT INTO event_subscriptions (store_id, plugin, type) SELECT $1, $2, t FROM unnest($3::text[]) AS t ON CONFLICT DO NOTHING`,
    [storeId, plugin, [...new Set(types)]],
  );
  invalidateSubscriptions(storeId);
}
