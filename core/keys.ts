import type { Db } from './db/types';
import type { Clock } from './clock';
import type { Store } from './plugins/contract';
import { errors } from './errors';
import { keyRevoked } from './signals';
export { PLANS } from './plans';

const KEY_PATTERN = /^svc_(live|test)_[A-Za-z0-9]{32}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export const isWellFormedKey = (key: string) => KEY_PATTERN.test(key);

/** Keys carry 190 bits of randomness, so a fast hash is enough to store them safely. */
export const hashKey = (key: string) => new Bun.CryptoHasher('sha256').update(key).digest('hex');

function randomKey(livemode: boolean) {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let body = '';
  for (const b of bytes) body += ALPHABET[b % ALPHABET.length];
  return `svc_${livemode ? 'live' : 'test'}_${body}`;
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

export function validateScopes(scopes: unknown): string[] {
  if (!Array.isArray(scopes) || scopes.some((s) => typeof s !== 'string' || !/^[a-z_]+(:[a-z_]+)?$/.test(s)))
    throw errors.validation('scopes must be an array of scope strings like products:read.', 'scopes');
  return [...new Set(scopes as string[])];
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
