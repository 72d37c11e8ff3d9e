import { Type } from '@sinclair/typebox';
import { actionFor, errors, fail, type Ctx } from '../../core/sdk';
import { UsersConfig } from './config';
import { roleOf } from './accounts';
import { revokeGrant } from './grants';
import { userOperations, type Registry } from '../../core/platform';
import { assignableRoles, roleScopes, type Role } from './roles';
import { signToken } from './signing';
import { currentUser, endSession } from './session';
import { storesOfUser } from './switch';
import { jsonResponse } from './web';

const action = actionFor(UsersConfig);

/**
 * How the admin console (issue 27, console/) reaches the REST API: the browser session (an
 * HttpOnly cookie from the sign-in page) is exchanged for a user access token of one store, which
 * the page keeps in memory only and sends as a Bearer credential. Every REST call is then one an
 * API client could make; a Bearer header is never sent by the browser on its own, so the REST API
 * needs no CSRF defence, and these exchanges check that the page asking is ours (the Origin, and a
 * header a cross-site form cannot set and no CORS answer allows).
 */
export const CONSOLE_CLIENT = 'svc-console';
export const CONSOLE_HEADER = 'x-svc-console';

export const consoleErrors = {
  cross_site_request: {
    status: 403,
    type: 'permission_error' as const,
    description: 'A console request without its Origin or X-Svc-Console header (another site may not act with the session).',
  },
};

const Raw = Type.Object({}, { description: 'JSON (no-store).' });

/** A state change from our own page: same origin and the console's header (CSRF). */
function fromOurPage(ctx: Ctx) {
  const request = ctx.http?.request;
  const origin = request?.headers.get('origin');
  const ours = new URL(ctx.origin).origin;
  if (request?.headers.get(CONSOLE_HEADER) !== '1' || origin !== ours)
    throw fail('cross_site_request', 'This request did not come from the console page of this server.');
}

async function signedIn(ctx: Ctx) {
  const user = await currentUser(ctx);
  if (!user) throw errors.auth('Not signed in: sign in at /auth/login first.');
  return user;
}

/** The console's grant of this user in this store: one, reused; created on first use. */
async function consoleGrant(ctx: Ctx, userId: string, storeId: string): Promise<string> {
  await ctx.db.query(
    `INSERT INTO oauth_clients (client_id, secret_hash, name, redirect_uris, kind, created_at)
     VALUES ($1, NULL, 'svc console', '{}', 'first_party', $2) ON CONFLICT (client_id) DO NOTHING`,
    [CONSOLE_CLIENT, ctx.clock.now()],
  );
  const [live] = await ctx.db.query(
    'SELECT id FROM oauth_grants WHERE client_id = $1 AND user_id = $2 AND store_id = $3 AND revoked_at IS NULL ORDER BY created_at LIMIT 1',
    [CONSOLE_CLIENT, userId, storeId],
  );
  if (live) return live.id;
  const [row] = await ctx.db.query(
    `INSERT INTO oauth_grants (id, client_id, user_id, store_id, scopes, resource, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, '{}', $4, $5) RETURNING id`,
    [CONSOLE_CLIENT, userId, storeId, ctx.origin, ctx.clock.now()],
  );
  return row.id;
}

/**
 * What the console may show a role: the operations its scopes allow (so a page asks
 * `c.may('products.create_product')` and names no scope), and the roles it may give members (only
 * an owner gives or takes the owner role). Once per registry and role, like roleScopes.
 */
const byRegistry = new WeakMap<Registry, Map<Role, { operations: string[]; assignable_roles: string[] }>>();
function consoleAccess(registry: Registry, role: Role) {
  let roles = byRegistry.get(registry);
  if (!roles) byRegistry.set(registry, (roles = new Map()));
  let access = roles.get(role);
  if (!access)
    roles.set(role, (access = { operations: userOperations(registry, roleScopes(registry, role)), assignable_roles: assignableRoles(role) }));
  return access;
}

export const consoleActions = {
  console_session: action({
    kind: 'read',
    description: 'The console: who is signed in (browser session) and their stores with their role in each.',
    input: Type.Object({}),
    output: Raw,
    rest: { method: 'GET', path: '/auth/console/session', auth: 'public', scope: 'global', response: 'raw', contentType: 'application/json' },
    handler: async (ctx) => {
      const user = await signedIn(ctx);
      const stores = await storesOfUser(ctx, user.userId);
      return jsonResponse(200, {
        object: 'console_session',
        user: { id: user.userId, email: user.email, name: user.name },
        stores: stores.map((s) => ({ id: s.id, name: s.name, role: s.role })),
      });
    },
  }),
  console_token: action({
    kind: 'write',
    description: "The console: an access token for one of the signed-in user's stores (kept in the page's memory only).",
    input: Type.Object({ store_id: Type.String({ maxLength: 64 }) }),
    output: Raw,
    rest: { method: 'POST', path: '/auth/console/token', auth: 'public', scope: 'global', response: 'raw', contentType: 'application/json' },
    handler: async (ctx, input) => {
      fromOurPage(ctx);
      const user = await signedIn(ctx);
      const role = /^[0-9a-f-]{36}$/i.test(input.store_id) ? await roleOf(ctx.db, input.store_id, user.userId) : undefined;
      if (!role) throw errors.notFound(`store: '${input.store_id}' (or you are not a member of it)`, 'store_id');
      const scopes = roleScopes(ctx.registry, role);
      const ttl = ctx.config.access_token_ttl_seconds;
      const base = ctx.origin;
      const gid = await consoleGrant(ctx, user.userId, input.store_id);
      const access_token = await signToken(
        ctx.db,
        ctx.clock,
        { iss: base, sub: user.userId, aud: base, store: input.store_id, scope: scopes.join(' '), client_id: CONSOLE_CLIENT, gid },
        ttl,
      );
      const access = consoleAccess(ctx.registry, role);
      return jsonResponse(200, { access_token, token_type: 'Bearer', expires_in: ttl, store_id: input.store_id, role, scopes, ...access });
    },
  }),
  console_logout: action({
    kind: 'write',
    description: "The console: sign out (ends the browser session and stops the console's tokens).",
    input: Type.Object({}),
    output: Raw,
    rest: { method: 'POST', path: '/auth/console/logout', auth: 'public', scope: 'global', response: 'raw', contentType: 'application/json' },
    handler: async (ctx) => {
      fromOurPage(ctx);
      const user = await currentUser(ctx);
      if (user) {
        const grants = await ctx.db.query('SELECT id FROM oauth_grants WHERE client_id = $1 AND user_id = $2 AND revoked_at IS NULL', [
          CONSOLE_CLIENT,
          user.userId,
        ]);
        for (const g of grants) await revokeGrant(ctx.db, ctx, g.id);
      }
      return jsonResponse(200, { signed_out: true }, { 'Set-Cookie': await endSession(ctx) });
    },
  }),
};
