import { errors, type Authenticator, type Db, type JobDeps, type Principal, type Store } from '../../core/sdk';
import { isRole, roleScopes } from './roles';
import { verifyToken } from './signing';
import { originOf } from './web';

/** A JWT's shape (three base64url parts, a JSON header): API keys and admin tokens never look like it. */
const looksLikeJwt = (c: string) => c.startsWith('eyJ') && c.split('.').length === 3;

interface Membership {
  role: string;
  store: Store;
  revoked: boolean;
  at: number;
}

/** Audiences a token may carry to be used here: this server (its REST API) or its MCP endpoint. */
export const audiencesOf = (base: string) => [base, `${base}/`, `${base}/agent/mcp`];

/**
 * Users' access tokens (issue 11): a JWT we signed, for one user in one store. The signature,
 * issuer, audience and expiry are checked; then the user's current role in the store (cached for a
 * few seconds, like keys) bounds the token's scopes, so a demotion or removal takes effect without
 * waiting for the token to expire, and a revoked grant stops its tokens too.
 */
const memberships = new Map<string, Membership>();
const CACHE_MS = 5_000;

/** A grant revoked by this process stops its tokens at once (other processes within CACHE_MS). */
export function forgetGrant(grantId: string) {
  for (const key of memberships.keys()) if (key.endsWith(`:${grantId}`)) memberships.delete(key);
}

export function userAuthenticator(deps: JobDeps): Authenticator {
  const baseOf = (request?: Request) => (deps.config.public_url ? String(deps.config.public_url).replace(/\/$/, '') : originOf(request));

  async function membership(db: Db, userId: string, storeId: string, grantId: string): Promise<Membership | undefined> {
    const key = `${userId}:${storeId}:${grantId}`;
    const hit = memberships.get(key);
    if (hit && performance.now() - hit.at < CACHE_MS) return hit;
    const [row] = await db.query(
      `SELECT m.role, s.id, s.name, s.plan, g.revoked_at FROM store_memberships m JOIN stores s ON s.id = m.store_id
       JOIN oauth_grants g ON g.id = $3 AND g.user_id = m.user_id AND g.store_id = m.store_id
       WHERE m.user_id = $1 AND m.store_id = $2`,
      [userId, storeId, grantId],
    );
    if (memberships.size > 10_000) memberships.clear();
    if (!row) return undefined;
    const m = { role: row.role, store: { id: row.id, name: row.name, plan: row.plan }, revoked: row.revoked_at != null, at: performance.now() };
    memberships.set(key, m);
    return m;
  }

  return {
    kind: 'user',
    claims: looksLikeJwt,
    challenge: (request) => `Bearer resource_metadata="${baseOf(request)}/.well-known/oauth-protected-resource${new URL(request.url).pathname}"`,
    async resolve(token, request) {
      const base = baseOf(request);
      let claims;
      try {
        claims = await verifyToken(deps.db, deps.clock, token, base);
      } catch {
        throw errors.auth('Invalid or expired access token.');
      }
      const aud = [claims.aud ?? []].flat();
      if (!aud.some((a) => audiencesOf(base).includes(a))) throw errors.auth('This access token is for another resource.');
      const { sub, store, scope, gid } = claims as Record<string, any>;
      const m = typeof sub === 'string' && typeof store === 'string' && typeof gid === 'string' ? await membership(deps.db, sub, store, gid) : undefined;
      if (!m || m.revoked || !isRole(m.role)) throw errors.auth('This access token was revoked, or its user is no longer a member of the store.');
      const allowed = roleScopes(deps.registry, m.role);
      const scopes = String(scope ?? '').split(' ').filter((s) => allowed.includes(s));
      const principal: Principal = { kind: 'user', userId: sub!, storeId: m.store.id, scopes, livemode: true, role: m.role, grant: { id: gid, issuer: String(claims.iss ?? base) } };
      return { principal, store: m.store };
    },
  };
}

