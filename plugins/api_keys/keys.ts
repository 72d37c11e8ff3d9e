import { errors, iso, isoOrNull, rowOr404, type Ctx, type Row } from '../../core/sdk';
import { checkOrigin, createKey, createPublishableKey, expireKey, revokeKey, validateExpiry, validateScopes } from '../../core/platform';
import { checkDelegation, defaultScopes } from './scopes';

/** The store's API keys as their owners see them: never a secret, only its first characters. */

const view = (r: Row) => ({
  object: 'api_key' as const,
  id: r.id,
  key_prefix: r.key_prefix,
  scopes: r.scopes,
  livemode: r.livemode,
  kind: (r.kind ?? 'secret') as 'secret' | 'publishable',
  allowed_origins: r.allowed_origins ?? null,
  expires_at: isoOrNull(r.expires_at),
  created_at: iso(r.created_at),
});

const LIMIT = 100;

/** Keys not revoked, newest first (expired ones too, with their expiry, so a roll's old half shows). */
export async function listKeys(ctx: Ctx) {
  const rows = await ctx.db.query(
    `SELECT id, key_prefix, scopes, livemode, kind, allowed_origins, expires_at, created_at FROM api_keys
     WHERE store_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC LIMIT ${LIMIT + 1}`,
    [ctx.store.id],
  );
  return { object: 'list' as const, data: rows.slice(0, LIMIT).map(view), has_more: rows.length > LIMIT, url: `${ctx.storePath}/api-keys` };
}

/** One key as the list shows it. A revoked key is gone, as from the list (revoke and roll answer 404 for it too). */
export const getKey = async (ctx: Ctx, keyId: string) =>
  view(
    await rowOr404(ctx.db, { table: 'api_keys', storeId: ctx.store.id, id: keyId, noun: 'api key', param: 'key_id', where: 'revoked_at IS NULL' }),
  );

export async function createStoreKey(ctx: Ctx, input: { scopes?: string[]; livemode?: boolean; expires_at?: string | null }) {
  const grantable = [...ctx.registry.grantable];
  const scopes = input.scopes === undefined ? defaultScopes(ctx.principal, ctx.registry.scopes, grantable) : validateScopes(input.scopes, grantable);
  if (!scopes.length) throw errors.validation('scopes must name at least one scope.', 'scopes');
  const livemode = input.livemode ?? false;
  checkDelegation(ctx.principal, scopes, livemode);
  const expiresAt = validateExpiry(input.expires_at, ctx.clock.now());
  return createKey(ctx.db, ctx.clock, { storeId: ctx.store.id, scopes, livemode, expiresAt });
}

export async function revokeStoreKey(ctx: Ctx, keyId: string) {
  await revokeKey(ctx, ctx.store.id, keyId);
  return { object: 'api_key' as const, id: keyId, revoked: true as const };
}

export const DEFAULT_ROLL_SECONDS = 24 * 3600;
export const MAX_ROLL_SECONDS = 30 * 24 * 3600;

/** When the old key of a roll stops: `expires_at`, or `expires_in` seconds from now (0: at once), default 24 h. */
function oldKeyEnd(ctx: Ctx, input: { expires_at?: string; expires_in?: number }): Date {
  const now = ctx.clock.now();
  if (input.expires_at !== undefined && input.expires_in !== undefined)
    throw errors.validation('Give expires_at or expires_in, not both.', 'expires_in');
  if (input.expires_at !== undefined) {
    const at = validateExpiry(input.expires_at, now)!;
    if (at.getTime() - now.getTime() > MAX_ROLL_SECONDS * 1000) throw errors.validation('expires_at may be at most 30 days ahead.', 'expires_at');
    return at;
  }
  return new Date(now.getTime() + (input.expires_in ?? DEFAULT_ROLL_SECONDS) * 1000);
}

/**
 * Roll (like Stripe's): a new secret with the same scopes, mode and expiry, while the old secret
 * keeps working until the chosen time so deployments can switch over. The caller must hold the
 * key's scopes: rolling is making a key.
 */
export async function rollStoreKey(ctx: Ctx, input: { key_id: string; expires_at?: string; expires_in?: number }) {
  const end = oldKeyEnd(ctx, input);
  const old = await rowOr404(ctx.db, {
    table: 'api_keys',
    storeId: ctx.store.id,
    id: input.key_id,
    noun: 'api key',
    param: 'key_id',
    where: 'revoked_at IS NULL',
    lock: 'FOR UPDATE',
  });
  if (old.kind === 'publishable')
    throw errors.validation('A publishable key is not rolled: create another with the same origins, then revoke this one.', 'key_id');
  const now = ctx.clock.now();
  if (old.expires_at && new Date(old.expires_at).getTime() <= now.getTime())
    throw errors.validation('This key has already expired (or was rolled and its time is up); create a new key instead.', 'key_id');
  checkDelegation(ctx.principal, old.scopes, old.livemode);
  const fresh = await createKey(ctx.db, ctx.clock, {
    storeId: ctx.store.id,
    scopes: old.scopes,
    livemode: old.livemode,
    expiresAt: old.expires_at ? new Date(old.expires_at) : null,
  });
  const oldEnds = await expireKey(ctx, ctx.store.id, old.id, end);
  ctx.log.info('api key rolled', { key_id: old.id, new_key_id: fresh.id });
  return { ...fresh, rolled: { id: old.id, expires_at: oldEnds.toISOString() } };
}

/** A publishable key for the webchat widget (issue 27): no scope, only its allowed origins. */
export async function createStorePublishableKey(ctx: Ctx, input: { allowed_origins: string[] }) {
  const origins = [...new Set(input.allowed_origins.map((o, i) => checkOrigin(o, `allowed_origins[${i}]`)))];
  const made = await createPublishableKey(ctx.db, ctx.clock, { storeId: ctx.store.id, allowedOrigins: origins });
  return {
    object: 'api_key' as const,
    ...made,
    scopes: [] as string[],
    livemode: false,
    kind: 'publishable' as const,
    allowed_origins: origins,
    expires_at: null,
  };
}
