import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { Principal, Store } from '../plugins/contract';
import { errors } from '../errors';
import { hashKey, isWellFormedKey } from '../keys';

interface CachedKey {
  principal: Principal;
  store: Store;
  expiresAt: number | null;
  revoked: boolean;
  hash: string;
  cachedAt: number;
}

/**
 * Resolves an x-api-key to its principal and store. Lookups are cached for a few seconds so the
 * conventions cost no database round trip per request; a revocation made by this process takes
 * effect at once, one made by another process within CACHE_MS.
 */
export class KeyResolver {
  static CACHE_MS = 5_000;
  private cache = new Map<string, CachedKey>();

  constructor(private db: Db, private clock: Clock) {}

  async resolve(key: string | null): Promise<{ principal: Principal; store: Store }> {
    if (!key) throw errors.auth('No API key provided. Pass it in the x-api-key header (or as Authorization: Bearer <key>).');
    if (!isWellFormedKey(key)) throw errors.auth('Invalid API key format.');
    const now = this.clock.now().getTime();
    // Cached by the key itself (it is in memory for the request anyway): a hit needs no hashing.
    let entry = this.cache.get(key);
    if (!entry || performance.now() - entry.cachedAt > KeyResolver.CACHE_MS) {
      entry = await this.load(key);
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, entry);
    }
    if (entry.revoked) throw errors.auth('This API key has been revoked.');
    if (entry.expiresAt !== null && entry.expiresAt <= now) throw errors.auth('This API key has expired.');
    return entry;
  }

  /** Drops a revoked key from the cache, found by its stored hash. */
  forget(hash: string) {
    for (const [key, entry] of this.cache) if (entry.hash === hash) this.cache.delete(key);
  }

  private async load(key: string): Promise<CachedKey> {
    const hash = hashKey(key);
    const [row] = await this.db.query(
      `SELECT k.id, k.store_id, k.scopes, k.livemode, k.expires_at, k.revoked_at, s.name, s.plan
       FROM api_keys k JOIN stores s ON s.id = k.store_id WHERE k.key_hash = $1`,
      [hash],
    );
    if (!row) throw errors.auth('Invalid API key provided.');
    return {
      principal: { kind: 'api_key', keyId: row.id, storeId: row.store_id, scopes: row.scopes, livemode: row.livemode },
      store: { id: row.store_id, name: row.name, plan: row.plan },
      expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
      revoked: row.revoked_at != null,
      hash,
      cachedAt: performance.now(),
    };
  }
}
