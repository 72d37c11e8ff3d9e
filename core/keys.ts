import type { Db } from './db/types';
import type { Clock } from './clock';
import type { Store } from './plugins/contract';
import { errors } from './errors';
import { ORIGIN_PATTERN } from './plugins/formats';
import { keyRevoked } from './signals';
export { PLANS } from './plans';

const KEY_PATTERN = /^svc_(live|test)_[A-Za-z0-9]{32}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export const isWellFormedKey = (key: string) => KEY_PATTERN.test(key);

/** Keys carry 190 bits of randomness, so a fast hash is enough to store them safely. */
export const hashKey = (key: string) => new Bun.CryptoHasher('sha256').update(key).digest('hex');

function randomKey(livemode: boolean | 'pub') {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let body = '';
  for (const b of bytes) body += ALPHABET[b % ALPHABET.length];
  return `svc_${livemode === 'pub' ? 'pub' : livemode ? 'live' : 'test'}_${body}`;
}

const PUBLISHABLE_PATTERN = /^svc_pub_[A-Za-z0-9]{32}$/;

const ORIGIN = new RegExp(ORIGIN_PATTERN);

/** An origin as a browser sends it: scheme, host and port, nothing else. */
export function checkOrigin(value: unknown, param: string): string {
  let url: URL | undefined;
  try {
    url = new URL(String(value));
  } catch {}
  // The schema's pattern (ORIGIN_PATTERN) is the rule; URL gives the canonical form (no default port).
  if (!url || !ORIGIN.test(String(value)))
    throw errors.validation(`Invalid ${param}: must be an origin like https://shop.example.com (scheme, host and port only).`, param);
  return url.origin;
}

/**
 * A publishable key (svc_pub_, issue 27): public by design (the webchat widget's page source
 * holds it), so it carries no scope and the API-key format refuses it; it only opens webchat
 * conversations of its store from its allowed origins. Listed and revoked with the other keys.
 */
export async function createPublishableKey(db: Db, clock: Clock, input: { storeId: string; allowedOrigins: string[] }) {
  const key = randomKey('pub');
  const [row] = await db.query(
    `INSERT INTO api_keys (id, store_id, key_hash, key_prefix, scopes, livemode, kind, allowed_origins, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, '{}', false, 'publishable', $4, $5) RETURNING id, created_at`,
    [input.storeId, hashKey(key), key.slice(0, 14), input.allowedOrigins, clock.now()],
  );
  return { id: row.id as string, key, key_prefix: key.slice(0, 14), created_at: new Date(row.created_at).toISOString() };
}

/** The store and allowed origins of a live publishable key; a 401 for anything else. */
export async function resolvePublishableKey(db: Db, clock: Clock, key: unknown) {
  if (typeof key !== 'string' || !PUBLISHABLE_PATTERN.test(key)) throw errors.auth('A publishable key (svc_pub_...) is required.');
  const [row] = await db.query(
    `SELECT k.id, k.allowed_origins, k.expires_at, k.revoked_at, s.id AS store_id, s.name, s.plan
     FROM api_keys k JOIN stores s ON s.id = k.store_id WHERE k.key_hash = $1 AND k.kind = 'publishable'`,
    [hashKey(key)],
  );
  if (!row || row.revoked_at || (row.expires_at && new Date(row.expires_at) <= clock.now()))
    throw errors.auth('This publishable key is unknown, revoked or expired.');
  return {
    id: row.id as string,
    store: { id: row.store_id, name: row.name, plan: row.plan } as Store,
    allowedOrigins: (row.allowed_origins ?? []) as string[],
  };
}

export interface ApiKeyView {
  object: 'api_key';
  id: string;
  key?: string;
  key_prefix: string;
  scopes: string[];
  livemode: boolean;
  expires_at: string | null;
  created_at: string;
}

/** Levenshtein distance, for "did you mean" hints on a misspelt scope. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

/** The allowed scope closest to `given`, when it is close enough to be a typo (a third of its length). */
function nearest(given: string, allowed: string[]): string | undefined {
  let best: { scope: string; d: number } | undefined;
  for (const scope of allowed) {
    const d = distance(given.toLowerCase(), scope);
    if (!best || d < best.d) best = { scope, d };
  }
  return best && best.d <= Math.max(1, Math.floor(given.length / 3)) ? best.scope : undefined;
}

/**
 * Checks a requested scope list against `allowed` (grantableScopes() today; the registry's list
 * later): a 400 naming the first bad entry as `scopes[i]`, with the nearest valid scope or the list.
 */
export function validateScopes(scopes: unknown, allowed: string[]): string[] {
  if (!Array.isArray(scopes)) throw errors.validation('scopes must be an array of scope strings like products:read.', 'scopes');
  for (const [i, s] of scopes.entries()) {
    if (typeof s === 'string' && allowed.includes(s)) continue;
    const param = `scopes[${i}]`;
    if (typeof s !== 'string') throw errors.validation(`Invalid ${param}: must be a string like products:read.`, param);
    const hint = nearest(s, allowed);
    const shown = JSON.stringify(s.length > 60 ? s.slice(0, 60) + '...' : s);
    throw errors.validation(
      hint
        ? `Invalid ${param}: ${shown} is not a scope; did you mean ${hint}?`
        : `Invalid ${param}: ${shown} is not a scope. Valid scopes: ${allowed.join(', ')}.`,
      param,
    );
  }
  return [...new Set(scopes as string[])];
}

/** An expiry must be a timestamp in the future: a key that is born expired is refused everywhere. */
export function validateExpiry(value: unknown, now: Date): Date | null {
  if (value === undefined || value === null) return null;
  const at = typeof value === 'string' ? new Date(value) : new Date(NaN);
  if (typeof value !== 'string' || Number.isNaN(at.getTime()))
    throw errors.validation('Invalid expires_at: must be an ISO 8601 timestamp.', 'expires_at');
  if (at.getTime() <= now.getTime())
    throw errors.validation(`Invalid expires_at: must be in the future (it is now ${now.toISOString()}).`, 'expires_at');
  return at;
}

export async function createStore(db: Db, clock: Clock, input: { name: string; plan: string }): Promise<Store & { created_at: string }> {
  const [row] = await db.query(
    'INSERT INTO stores (id, name, plan, created_at) VALUES (gen_random_uuid(), $1, $2, $3) RETURNING id, name, plan, created_at',
    [input.name, input.plan, clock.now()],
  );
  return { ...row, created_at: new Date(row.created_at).toISOString() } as any;
}

/** Creates a key; the plain key is returned this once and only its hash is stored. */
export async function createKey(
  db: Db,
  clock: Clock,
  input: { storeId: string; scopes: string[]; livemode: boolean; expiresAt?: Date | null },
): Promise<ApiKeyView> {
  const key = randomKey(input.livemode);
  const [row] = await db.query(
    `INSERT INTO api_keys (id, store_id, key_hash, key_prefix, scopes, livemode, expires_at, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7) RETURNING id, created_at`,
    [input.storeId, hashKey(key), key.slice(0, 14), input.scopes, input.livemode, input.expiresAt ?? null, clock.now()],
  );
  return {
    object: 'api_key',
    id: row.id,
    key,
    key_prefix: key.slice(0, 14),
    scopes: input.scopes,
    livemode: input.livemode,
    expires_at: input.expiresAt ? input.expiresAt.toISOString() : null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** Revokes a key; once the change commits, caches in this process drop it (others within 5 s). */
export async function revokeKey(ctx: { db: Db; clock: Clock; afterCommit(fn: () => void): void }, storeId: string, keyId: string) {
  const rows = await ctx.db.query<{ key_hash: string }>(
    'UPDATE api_keys SET revoked_at = $3 WHERE store_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING key_hash',
    [storeId, keyId, ctx.clock.now()],
  );
  if (!rows.length) throw errors.notFound(`api key: '${keyId}'`, 'key_id');
  const hash = rows[0].key_hash;
  ctx.afterCommit(() => keyRevoked.emit(hash));
}

export async function getStore(db: Db, storeId: string): Promise<Store | undefined> {
  const [row] = await db.query('SELECT id, name, plan FROM stores WHERE id = $1', [storeId]);
  return row as Store | undefined;
}

/**
 * Shortens a key's life to `at` (never lengthens it): the old half of a roll. Caches in this
 * process drop it once the change commits, so the new expiry applies at once here.
 */
export async function expireKey(ctx: { db: Db; afterCommit(fn: () => void): void }, storeId: string, keyId: string, at: Date) {
  const rows = await ctx.db.query<{ key_hash: string; expires_at: Date }>(
    `UPDATE api_keys SET expires_at = CASE WHEN expires_at IS NULL OR expires_at > $3 THEN $3 ELSE expires_at END
     WHERE store_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING key_hash, expires_at`,
    [storeId, keyId, at],
  );
  if (!rows.length) throw errors.notFound(`api key: '${keyId}'`, 'key_id');
  const hash = rows[0].key_hash;
  ctx.afterCommit(() => keyRevoked.emit(hash));
  return new Date(rows[0].expires_at);
}
