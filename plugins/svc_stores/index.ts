import { Type } from '@sinclair/typebox';
import { action, definePlugin, fail, Input, invalid, noExample, Uuid, type Ctx } from '../../core/sdk';
import { storesOfUser, switchGrant } from '../users/public';

/**
 * Which stores the caller may act on, and moving an OAuth session between them (SPEC 4.10
 * `svc_stores`). A session here is the OAuth grant an access token belongs to (one user, one
 * client, one store): MCP over HTTP sends its credential with every request, so switching hands
 * the client a new token pair for the other store and revokes the old grant; the client sends the
 * new access token from its next request on (its Mcp-Session-Id stays good: sessions belong to
 * the user). An API key belongs to one store and cannot switch.
 */
const StoreEntry = Type.Object({
  object: Type.Literal('store'),
  id: Uuid(),
  name: Type.String(),
  plan: Type.String(),
  role: Type.Union([Type.String(), Type.Null()], { description: "The user's role there (null for an API key)." }),
  current: Type.Boolean({ description: 'The store this credential acts on now.' }),
});

const Current = Type.Object({
  object: Type.Literal('store_context'),
  store: Type.Object({ id: Uuid(), name: Type.String(), plan: Type.String() }),
  credential: Type.Union([Type.Literal('api_key'), Type.Literal('user')]),
  user_id: Type.Union([Type.String(), Type.Null()]),
  key_id: Type.Union([Type.String(), Type.Null()]),
  role: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
});

const Switched = Type.Object({
  object: Type.Literal('store_session'),
  store: Type.Object({ id: Uuid(), name: Type.String(), role: Type.String() }),
  access_token: Type.String({ description: 'Send this from the next request on; the previous token is revoked.' }),
  refresh_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String({ description: 'The scopes of the new token: those of the session that the role in the new store allows.' }),
});

async function listStores(ctx: Ctx) {
  const p = ctx.principal;
  const own = { object: 'store' as const, id: ctx.store.id, name: ctx.store.name, plan: ctx.store.plan, role: null, current: true };
  if (p.kind !== 'user') return { object: 'list' as const, data: [own], has_more: false, url: `${ctx.storePath}/stores` };
  const data = (await storesOfUser(ctx, p.userId)).map((s) => ({ object: 'store' as const, ...s, current: s.id === ctx.store.id }));
  return { object: 'list' as const, data, has_more: false, url: `${ctx.storePath}/stores` };
}

export default definePlugin({
  name: 'svc_stores',
  category: 'platform',
  description: 'The stores the caller may act on: list them with roles, see the current one, move an OAuth session to another.',
  resource: 'store',
  catalog: true,
  requires: ['users'],
  // SPEC 5.4: svc_stores is usable with platform or platform:read.
  scopes: { read: ['platform', 'platform:read'], write: ['platform', 'platform:read'] },
  errors: {
    store_switch_unavailable: invalid('The credential is bound to one store (an API key) and cannot switch.'),
  },
  actions: {
    list_stores: action({
      kind: 'read',
      description:
        'The stores you may act on, with your role in each; `current` marks the one this credential acts on. An API key lists its one store.',
      input: Input({}),
      output: Type.Object({ object: Type.Literal('list'), data: Type.Array(StoreEntry), has_more: Type.Boolean(), url: Type.String() }),
      rest: { method: 'GET', path: '/stores' },
      handler: listStores,
    }),
    get_current: action({
      kind: 'read',
      description: 'The store this credential acts on, who you are (user or key), your role and your scopes.',
      input: Input({}),
      output: Current,
      rest: { method: 'GET', path: '/stores/current' },
      handler: async (ctx) => {
        const p = ctx.principal;
        return {
          object: 'store_context' as const,
          store: { id: ctx.store.id, name: ctx.store.name, plan: ctx.store.plan },
          credential: p.kind === 'user' ? ('user' as const) : ('api_key' as const),
          user_id: p.kind === 'user' ? p.userId : null,
          key_id: p.kind === 'api_key' ? p.keyId : null,
          role: p.kind === 'user' ? p.role : null,
          scopes: [...p.scopes],
        };
      },
    }),
    switch_store: action({
      kind: 'write',
      description:
        'Move your OAuth session to another of your stores: answers a new access and refresh token for that store (scopes recomputed for your role there) and revokes the current ones. Use the new access token from the next request on. Not available to API keys (one store each).',
      input: Input({ store_id: Uuid('The store to move to (list_stores names yours).') }),
      output: Switched,
      errors: ['store_switch_unavailable', 'no_oauth_session', 'not_a_member'],
      rest: { method: 'POST', path: '/stores/switch' },
      example: noExample("needs a user's OAuth session and a second store of theirs (plugins/svc_stores/svc_stores.test.ts)"),
      handler: async (ctx, { store_id }) => {
        const p = ctx.principal;
        if (p.kind === 'api_key')
          throw fail(
            'store_switch_unavailable',
            'An API key belongs to one store and cannot switch: use a key of the other store, or sign in as a user (svc_login) to move between your stores.',
            'store_id',
          );
        if (p.kind !== 'user' || !p.grant) throw fail('no_oauth_session', "Only an OAuth session (a user's access token) can switch stores.");
        const { role, tokens } = await switchGrant(ctx, p.grant, p.userId, store_id);
        const [store] = await ctx.db.query('SELECT name FROM stores WHERE id = $1', [store_id]);
        ctx.log.info('session switched store', { user_id: p.userId, from: ctx.store.id, to: store_id });
        return { object: 'store_session' as const, store: { id: store_id, name: store.name, role }, ...tokens, token_type: 'Bearer' as const };
      },
    }),
  },
});
