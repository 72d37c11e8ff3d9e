import type { Ctx, Db } from '../../core/sdk';
import type { UsersCtx } from './config';
import { forgetGrant } from './authenticator';
import { roleOf } from './accounts';
import { grantable } from './roles';
import { signToken } from './signing';
import { randomToken, sha256 } from './web';

/**
 * Grants: one user's consent for one client in one store. Codes and refresh tokens belong to a
 * grant and are stored hashed; each is good once. Using one twice means it leaked (or a client is
 * confused), so the whole grant is revoked, every token of it included (OAuth 2.1 4.3.1, 6.1).
 */
export class GrantError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Grant {
  id: string;
  client_id: string;
  user_id: string;
  store_id: string;
  scopes: string[];
  resource: string;
}

export async function createGrantWithCode(
  ctx: UsersCtx,
  g: Omit<Grant, 'id'>,
  code: { redirectUri: string; challenge: string | null },
): Promise<string> {
  const plain = randomToken();
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const [grant] = await tx.query(
      'INSERT INTO oauth_grants (id, client_id, user_id, store_id, scopes, resource, created_at) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6) RETURNING id',
      [g.client_id, g.user_id, g.store_id, g.scopes, g.resource, now],
    );
    await tx.query('INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at) VALUES ($1, $2, $3, $4, $5)', [
      sha256(plain),
      grant.id,
      code.redirectUri,
      code.challenge,
      new Date(now.getTime() + ctx.config.code_ttl_seconds * 1000),
    ]);
  });
  return plain;
}

export async function revokeGrant(db: Db, ctx: Pick<Ctx, 'clock'>, grantId: string) {
  await db.query('UPDATE oauth_grants SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [grantId, ctx.clock.now()]);
  forgetGrant(grantId);
}

const GRANT_COLS = 'g.id, g.client_id, g.user_id, g.store_id, g.scopes, g.resource, g.revoked_at';

const pkceOk = (verifier: unknown, challenge: string) =>
  typeof verifier === 'string' &&
  /^[A-Za-z0-9._~-]{43,128}$/.test(verifier) &&
  new Bun.CryptoHasher('sha256').update(verifier).digest('base64url') === challenge;

/** authorization_code: the code, once, by the client it was issued to, with its PKCE verifier. */
export async function redeemCode(
  ctx: Ctx,
  clientId: string,
  input: { code?: unknown; redirect_uri?: unknown; code_verifier?: unknown },
): Promise<Grant> {
  if (typeof input.code !== 'string') throw new GrantError('invalid_request', 'code is required.');
  const hash = sha256(input.code);
  const outcome = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.query(
      `SELECT c.redirect_uri, c.code_challenge, c.expires_at, c.used_at, ${GRANT_COLS} FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id
       WHERE c.code_hash = $1 FOR UPDATE OF c`,
      [hash],
    );
    if (!row || row.client_id !== clientId) return { error: 'The authorization code is unknown, or was issued to another client.' };
    if (row.used_at || row.revoked_at) return { error: 'The authorization code was already used; its grant is revoked.', replay: row.id as string };
    await tx.query('UPDATE oauth_codes SET used_at = $2 WHERE code_hash = $1', [hash, ctx.clock.now()]);
    return { row };
  });
  // The revocation is its own write: it must stand although this request fails.
  if ('replay' in outcome && outcome.replay) await revokeGrant(ctx.db, ctx, outcome.replay);
  if (!('row' in outcome) || !outcome.row) throw new GrantError('invalid_grant', outcome.error!);
  const row = outcome.row;
  if (new Date(row.expires_at).getTime() <= ctx.clock.now().getTime()) throw new GrantError('invalid_grant', 'The authorization code has expired.');
  if (input.redirect_uri !== undefined && input.redirect_uri !== row.redirect_uri)
    throw new GrantError('invalid_grant', 'redirect_uri differs from the authorization request.');
  if (row.code_challenge && !pkceOk(input.code_verifier, row.code_challenge))
    throw new GrantError('invalid_grant', 'The PKCE code_verifier does not match the code_challenge.');
  if (!row.code_challenge && input.code_verifier !== undefined)
    throw new GrantError('invalid_grant', 'No code_challenge was sent with the authorization request.');
  return row as Grant;
}

/** refresh_token: good once; the new pair replaces it (rotation). A replay revokes the grant. */
export async function redeemRefresh(ctx: Ctx, clientId: string, token: unknown): Promise<Grant> {
  if (typeof token !== 'string') throw new GrantError('invalid_request', 'refresh_token is required.');
  const hash = sha256(token);
  const outcome = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.query(
      `SELECT r.expires_at, r.used_at, ${GRANT_COLS} FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_hash = $1 FOR UPDATE OF r`,
      [hash],
    );
    if (!row || row.client_id !== clientId) return { error: 'The refresh token is unknown, or was issued to another client.' };
    if (row.revoked_at) return { error: 'The grant of this refresh token was revoked.' };
    if (row.used_at) return { error: 'The refresh token was already used; its grant is revoked.', replay: row.id as string };
    if (new Date(row.expires_at).getTime() <= ctx.clock.now().getTime()) return { error: 'The refresh token has expired.' };
    await tx.query('UPDATE oauth_refresh_tokens SET used_at = $2 WHERE token_hash = $1', [hash, ctx.clock.now()]);
    return { row };
  });
  if ('replay' in outcome && outcome.replay) await revokeGrant(ctx.db, ctx, outcome.replay);
  if (!('row' in outcome) || !outcome.row) throw new GrantError('invalid_grant', outcome.error!);
  return outcome.row as Grant;
}

/**
 * A new access token and refresh token for a grant. Scopes are what the grant holds, narrowed by
 * `scope` if asked, and by the user's role in the store now (a demoted user gets fewer).
 */
export async function issueTokens(ctx: UsersCtx, grant: Grant, issuer: string, narrow?: unknown) {
  const role = await roleOf(ctx.db, grant.store_id, grant.user_id);
  if (!role) {
    await revokeGrant(ctx.db, ctx, grant.id);
    throw new GrantError('invalid_grant', 'The user is no longer a member of this store.');
  }
  let scopes = grantable(ctx.registry, role, grant.scopes);
  if (typeof narrow === 'string' && narrow.trim()) {
    const asked = narrow.split(' ').filter(Boolean);
    if (asked.some((s) => !grant.scopes.includes(s))) throw new GrantError('invalid_scope', 'A refresh cannot add scopes the grant does not hold.');
    scopes = scopes.filter((s) => asked.includes(s));
  }
  const ttl = ctx.config.access_token_ttl_seconds;
  const access_token = await signToken(
    ctx.db,
    ctx.clock,
    {
      iss: issuer,
      sub: grant.user_id,
      aud: grant.resource,
      store: grant.store_id,
      scope: scopes.join(' '),
      client_id: grant.client_id,
      gid: grant.id,
    },
    ttl,
  );
  const refresh = `svc_rt_${randomToken()}`;
  const now = ctx.clock.now();
  await ctx.db.query('INSERT INTO oauth_refresh_tokens (token_hash, grant_id, expires_at, created_at) VALUES ($1, $2, $3, $4)', [
    sha256(refresh),
    grant.id,
    new Date(now.getTime() + ctx.config.refresh_token_ttl_seconds * 1000),
    now,
  ]);
  return { access_token, token_type: 'Bearer', expires_in: ttl, refresh_token: refresh, scope: scopes.join(' ') };
}

/** RFC 7009: a refresh token (or an access token's grant) is revoked with its whole grant. */
export async function revokeByRefresh(ctx: Ctx, clientId: string, token: string): Promise<boolean> {
  const [row] = await ctx.db.query(
    'SELECT g.id, g.client_id FROM oauth_refresh_tokens r JOIN oauth_grants g ON g.id = r.grant_id WHERE r.token_hash = $1',
    [sha256(token)],
  );
  if (!row || row.client_id !== clientId) return false;
  await revokeGrant(ctx.db, ctx, row.id);
  return true;
}
