/**
 * A store's UCP signing keys: P-256 JWKs published as `signing_keys` at `/.well-known/ucp`, the
 * newest signing the store's complete responses and order webhooks. Made on first use, one per
 * store; the private half is sealed with the server's secret box (SVC_SECRET_KEY, or the data
 * directory's key on the embedded database), bound to the store and kid, so a sealed value copied
 * to another store's row does not open there.
 *
 * Kids are `svc-<n>`: deterministic, so two processes making the first key at once insert the same
 * kid and one insert wins (ON CONFLICT DO NOTHING), with no lock. A rotation adds `svc-<n+1>` and
 * keeps the old key published for a grace period (signatures.md: at least 7 days).
 */
import { secretBox, type Clock, type Db } from '../../../core/sdk';
import { ROTATION_GRACE_DAYS } from './config';
import { generateSigningKey, type Jwk } from './signatures';

// Declared in config.ts (the agentic plugin's declaration names it at start); kept here for this module's users.
export { ROTATION_GRACE_DAYS };

export interface StoreKeys {
  /** The newest key, with its private part: what svc signs with. */
  signing: Jwk;
  /** Every key still published (the signing key first). */
  published: Jwk[];
}

interface KeyRow {
  kid: string;
  public_jwk: Jwk | string;
  sealed_private: string;
  created_at: string | Date;
  retired_at: string | Date | null;
}

// Per process: keys change only on rotation, which clears this process's entry; another process
// picks a rotation up within the TTL (old keys stay published through the grace period meanwhile).
const CACHE_TTL_MS = 60_000;
const cache = new Map<string, { at: number; keys: StoreKeys }>();

const context = (storeId: string, kid: string) => `ucp-signing-key:${storeId}:${kid}`;
const parse = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

async function readKeys(db: Db, storeId: string, now: Date): Promise<KeyRow[]> {
  return db.query<KeyRow>(
    `SELECT kid, public_jwk, sealed_private, created_at, retired_at FROM ucp_signing_keys
     WHERE store_id = $1 AND (retired_at IS NULL OR retired_at > $2) ORDER BY created_at DESC, kid DESC`,
    [storeId, now.toISOString()],
  );
}

async function insertKey(db: Db, storeId: string, kid: string, now: Date): Promise<void> {
  const { publicJwk, privateJwk } = await generateSigningKey(kid);
  const sealed = secretBox().seal(JSON.stringify(privateJwk), context(storeId, kid));
  await db.query(
    `INSERT INTO ucp_signing_keys (store_id, kid, public_jwk, sealed_private, created_at)
     VALUES ($1, $2, $3::jsonb, $4, $5) ON CONFLICT (store_id, kid) DO NOTHING`,
    [storeId, kid, JSON.stringify(publicJwk), sealed, now.toISOString()],
  );
}

function toKeys(storeId: string, rows: KeyRow[]): StoreKeys {
  const newest = rows[0];
  const signing = JSON.parse(secretBox().open(newest.sealed_private, context(storeId, newest.kid))) as Jwk;
  return { signing, published: rows.map((r) => parse<Jwk>(r.public_jwk)) };
}

/** The store's keys, making its first one if it has none. */
export async function storeKeys(db: Db, storeId: string, clock: Clock): Promise<StoreKeys> {
  const hit = cache.get(storeId);
  const nowMs = clock.now().getTime();
  if (hit && nowMs - hit.at < CACHE_TTL_MS) return hit.keys;
  let rows = await readKeys(db, storeId, clock.now());
  if (!rows.length) {
    await insertKey(db, storeId, 'svc-1', clock.now());
    rows = await readKeys(db, storeId, clock.now());
  }
  const keys = toKeys(storeId, rows);
  cache.set(storeId, { at: nowMs, keys });
  return keys;
}

/**
 * Adds a new signing key and schedules the current ones' retirement after the grace period;
 * answers the new key set.
 */
export async function rotateKeys(db: Db, storeId: string, clock: Clock): Promise<StoreKeys> {
  const now = clock.now();
  const current = await readKeys(db, storeId, now);
  const next = Math.max(0, ...current.map((r) => Number(r.kid.replace(/^svc-/, '')) || 0)) + 1;
  await insertKey(db, storeId, `svc-${next}`, now);
  const retire = new Date(now.getTime() + ROTATION_GRACE_DAYS * 86_400_000).toISOString();
  await db.query(`UPDATE ucp_signing_keys SET retired_at = $3 WHERE store_id = $1 AND kid <> $2 AND retired_at IS NULL`, [
    storeId,
    `svc-${next}`,
    retire,
  ]);
  cache.delete(storeId);
  return storeKeys(db, storeId, clock);
}

/** A published key as the store's settings show it: never the private half. */
export interface SigningKeyView {
  kid: string;
  public_jwk: Jwk;
  signing: boolean;
  created_at: string;
  retires_at: string | null;
}

/** The store's published keys, newest (the signing one) first, making the first if it has none. */
export async function signingKeysView(db: Db, storeId: string, clock: Clock): Promise<SigningKeyView[]> {
  await storeKeys(db, storeId, clock);
  const rows = await readKeys(db, storeId, clock.now());
  const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());
  return rows.map((r, i) => ({
    kid: r.kid,
    public_jwk: parse<Jwk>(r.public_jwk),
    signing: i === 0,
    created_at: iso(r.created_at)!,
    retires_at: iso(r.retired_at),
  }));
}
