import { errors, requestOrigin, type Db, type JobDeps, type Principal, type Store } from '../../core/sdk';
import { type Authenticator } from '../../core/platform';
import { isRole, roleScopes } from './roles';
import { verifyToken } from './signing';

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
  for (const [token, r] of resolved) if (r.grantId === grantId) resolved.delete(token);
}

/**
 * The whole answer for a token, for as long as its membership is cached (CACHE_MS): the hot path
 * of a request made with a user's token is then one lookup, as for an API key. Expiry is still
 * checked on every use.
 */
const resolved = new Map<string, { answer: { principal: Principal; store: Store }; grantId: string; issuer: string; exp: number; at: number }>();

/**
 * Tokens whose signature was checked, for a minute: an ES256 verification costs more than the rest
 * of a GET (issue 11 wants a JWT GET within 10% of an API key's). Only the signature's work is
 * saved: expiry is checked on every use, and revocation through the membership lookup below.
 */
const verified = new Map<string, { claims: Record<string, unknown>; issuer: string; at: number }>();
const VERIFIED_MS = 60_000;

export function userAuthenticator(deps: JobDeps): Authenticator {
  const baseOf = (request?: Request) => (request ? requestOrigin(deps.registry.site, request) : (deps.registry.site.publicUrl ?? 'http://localhost'));

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
      const done = resolved.get(token);
      if (done && done.issuer === base && performance.now() - done.at < CACHE_MS) {
        if (done.exp * 1000 <= deps.clock.now().getTime()) throw errors.auth('Invalid or expired access token.');
        return done.answer;
      }
      let claims: Record<string, unknown>;
      const hit = verified.get(token);
      if (hit && hit.issuer === base && performance.now() - hit.at < VERIFIED_MS) {
        if (typeof hit.claims.exp !== 'number' || hit.claims.exp * 1000 <= deps.clock.now().getTime())
          throw errors.auth('Invalid or expired access token.');
        claims = hit.claims;
      } else {
        try {
          claims = await verifyToken(deps.db, deps.clock, token, base);
        } catch {
          throw errors.auth('Invalid or expired access token.');
        }
        if (verified.size > 10_000) verified.clear();
        verified.set(token, { claims, issuer: base, at: performance.now() });
      }
      const aud = [claims.aud ?? []].flat() as string[];
      if (!aud.some((a) => audiencesOf(base).includes(a))) throw errors.auth('This access token is for another resource.');
      const { sub, store, scope, gid } = claims as Record<string, any>;
      const m =
        typeof sub === 'string' && typeof store === 'string' && typeof gid === 'string' ? await membership(deps.db, sub, store, gid) : undefined;
      if (!m || m.revoked || !isRole(m.role)) throw errors.auth('This access token was revoked, or its user is no longer a member of the store.');
      const allowed = roleScopes(deps.registry, m.role);
      const scopes = String(scope ?? '')
        .split(' ')
        .filter((s) => allowed.includes(s));
      const principal: Principal = {
        kind: 'user',
        userId: sub!,
        storeId: m.store.id,
        scopes,
        livemode: true,
        role: m.role,
        grant: { id: gid, issuer: String(claims.iss ?? base) },
      };
      const answer = { principal, store: m.store };
      if (resolved.size > 10_000) resolved.clear();
      resolved.set(token, { answer, grantId: gid, issuer: base, exp: Number(claims.exp), at: m.at });
      return answer;
    },
  };
}
