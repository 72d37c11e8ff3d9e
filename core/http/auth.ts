import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { AuthKind, Authenticated, Authenticator, Principal, Store } from '../plugins/contract';
import { errors, fail } from '../errors';
import { hashKey, isWellFormedKey } from '../keys';
import { keyRevoked } from '../signals';

/** An API key's principal and its store (a key always has one). */
type KeyAuth = { principal: Principal; store: Store };

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

  constructor(
    private db: Db,
    private clock: Clock,
  ) {
    // A revocation by this process applies at once (the signal fires after the revoke committed).
    keyRevoked.on((hash) => this.forget(hash));
  }

  /** A cached key is answered synchronously (no promise per request); a miss loads it. */
  resolve(key: string | null): KeyAuth | Promise<KeyAuth> {
    if (!key) throw errors.auth('No API key provided. Pass it in the x-api-key header (or as Authorization: Bearer <key>).');
    // Cached by the key itself (it is in memory for the request anyway): a hit needs no hashing.
    const entry = this.cache.get(key);
    if (entry && performance.now() - entry.cachedAt <= KeyResolver.CACHE_MS) return this.usable(entry);
    if (!isWellFormedKey(key)) throw errors.auth('Invalid API key format.');
    return this.load(key).then((loaded) => {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, loaded);
      return this.usable(loaded);
    });
  }

  private usable(entry: CachedKey): KeyAuth {
    if (entry.revoked) throw errors.auth('This API key has been revoked.');
    if (entry.expiresAt !== null && entry.expiresAt <= this.clock.now().getTime()) throw errors.auth('This API key has expired.');
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

export type { AuthKind, Authenticated, Authenticator } from '../plugins/contract';

/** API keys: `svc_live_...` / `svc_test_...`, cached by KeyResolver. */
export const apiKeyAuthenticator = (keys: KeyResolver): Authenticator => ({
  kind: 'api_key',
  claims: (c) => c.startsWith('svc_live_') || c.startsWith('svc_test_') || !c.startsWith('svc_admin_'),
  resolve: (c) => keys.resolve(c),
});

/** The operator's admin token (SVC_ADMIN_TOKEN), compared in constant time. */
export const adminAuthenticator = (token: string | undefined): Authenticator => ({
  kind: 'admin',
  claims: (c) => token !== undefined && c.length === token.length && timingSafeEqual(Buffer.from(c), Buffer.from(token)),
  resolve: async () => ({ principal: { kind: 'admin', scopes: ['admin'], livemode: false } }),
});

const PUBLIC: Authenticated = { principal: { kind: 'public', scopes: [], livemode: false } };

/**
 * The principal of a request for a route accepting `kinds`. A route that admits the public needs no
 * credential; any other answers 401 without one, and 401 for a credential of a kind it does not
 * take (an API key on an admin route), naming what it wants.
 */
export function authenticate(authenticators: Authenticator[], request: Request, kinds: AuthKind[]): Authenticated | Promise<Authenticated> {
  // A request may carry both headers (a client's default x-api-key plus an operator's bearer):
  // the first credential some accepted authenticator claims decides.
  const key = request.headers.get('x-api-key');
  const authorization = request.headers.get('authorization');
  const bearer = authorization ? /^Bearer\s+(.+)$/i.exec(authorization)?.[1] : undefined;
  const candidates = key ? (bearer ? [key, bearer] : [key]) : bearer ? [bearer] : [];
  if (!candidates.length) {
    if (kinds.includes('public')) return PUBLIC;
    throw errors.auth(missingMessage(kinds));
  }
  // On a route the operator shares with store credentials (the store's API keys), the operator's
  // token decides when it is there: a client's default x-api-key beside it must not change who acts.
  const admin = kinds.length > 1 && kinds.includes('admin') ? authenticators.find((a) => a.kind === 'admin') : undefined;
  const operator = admin && candidates.find((c) => admin.claims(c));
  if (admin && operator) return admin.resolve(operator, request);
  for (const credential of candidates) {
    const claimant = authenticators.find((a) => kinds.includes(a.kind) && a.claims(credential));
    if (claimant) return claimant.resolve(credential, request);
  }
  if (kinds.includes('public')) return PUBLIC;
  return refuse(authenticators, candidates, kinds);
}

/**
 * A valid credential of a kind the route does not take (a store's API key on the operator's API)
 * is known but not allowed: 403, as SPEC 7 has it for admin-only endpoints. An invalid one stays 401.
 */
async function refuse(authenticators: Authenticator[], candidates: string[], kinds: AuthKind[]): Promise<never> {
  for (const credential of candidates) {
    const other = authenticators.find((a) => !kinds.includes(a.kind) && a.claims(credential));
    const known =
      other &&
      (await Promise.resolve()
        .then(() => other.resolve(credential))
        .catch(() => undefined));
    if (known)
      throw fail(
        'insufficient_scope',
        `This endpoint takes ${kinds.length === 1 && kinds[0] === 'admin' ? "the operator's admin token" : `a ${kinds.join(' or ')} credential`}; a ${known.principal.kind} credential cannot call it.`,
      );
  }
  throw errors.auth(
    kinds.length === 1 && kinds[0] === 'admin' ? 'Invalid admin token. Pass it as Authorization: Bearer <token>.' : 'Invalid API key provided.',
  );
}

function missingMessage(kinds: AuthKind[]) {
  if (kinds.includes('admin') && kinds.length === 1) return 'No admin token provided. Pass it as Authorization: Bearer <token>.';
  return 'No API key provided. Pass it in the x-api-key header (or as Authorization: Bearer <key>).';
}
