import { Type } from '@sinclair/typebox';
import {
  action,
  createKey,
  createStore,
  definePlugin,
  errors,
  Input,
  PLANS,
  revokeKey,
  Timestamp,
  Uuid,
  validateExpiry,
  validateScopes,
} from '../../core/sdk';

/**
 * The operator's API (bootstrap): create stores and manage their keys with the admin token
 * (SVC_ADMIN_TOKEN). REST only: an operator act is never a tool an agent or MCP client could call.
 */
const Scopes = Type.Array(Type.String({ maxLength: 100, 'x-svc-enum': 'grantable-scopes' }), {
  maxItems: 100,
  description: 'Scopes of the key (`resource:action`, or a bare resource for both); all scopes when left out.',
});

const ApiKey = Type.Object({
  object: Type.Literal('api_key'),
  id: Uuid(),
  key: Type.Optional(Type.String({ description: 'The plain key: returned only at creation, store it now.' })),
  key_prefix: Type.String(),
  scopes: Type.Array(Type.String()),
  livemode: Type.Boolean(),
  expires_at: Type.Union([Timestamp(), Type.Null()]),
  created_at: Timestamp(),
});

const StoreCreated = Type.Object({
  store: Type.Object({ object: Type.Literal('store'), id: Uuid(), name: Type.String(), plan: Type.String(), created_at: Timestamp() }),
  api_key: ApiKey,
});

const PlanName = Type.Union(
  PLANS.map((p) => Type.Literal(p)),
  { default: 'free', description: 'The store plan (SPEC 8).' },
);

export default definePlugin({
  name: 'admin',
  category: 'platform',
  description: 'Store and API key management with the admin token.',
  resource: 'store',
  tool: false,
  scopes: { read: ['admin'], write: ['admin'] },
  actions: {
    create_store: action({
      kind: 'write',
      description: 'Create a store and its first (sandbox) API key. The plain key is returned only in this response.',
      input: Input({ name: Type.String({ maxLength: 200 }), plan: Type.Optional(PlanName), scopes: Type.Optional(Scopes) }),
      output: StoreCreated,
      rest: { method: 'POST', path: '/v1/stores', status: 201, auth: 'admin', scope: 'global' },
      example: { name: 'Corner shop', plan: 'starter' },
      handler: async (ctx, input) => {
        const name = input.name.trim();
        if (!name) throw errors.validation('name is required: a non-empty string of at most 200 characters.', 'name');
        const scopes = input.scopes === undefined ? [...ctx.registry.scopes] : validateScopes(input.scopes, [...ctx.registry.grantable]);
        const store = await createStore(ctx.db, ctx.clock, { name, plan: input.plan ?? 'free' });
        const api_key = await createKey(ctx.db, ctx.clock, { storeId: store.id, scopes, livemode: false });
        return { store: { object: 'store' as const, ...store }, api_key };
      },
    }),
    create_api_key: action({
      kind: 'write',
      description: 'Create another API key for a store. The plain key is returned only in this response.',
      input: Input({
        scopes: Type.Optional(Scopes),
        livemode: Type.Optional(Type.Boolean({ default: false, description: 'true for a svc_live_ key, false for svc_test_.' })),
        expires_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
      }),
      output: ApiKey,
      rest: { method: 'POST', path: '/api-keys', status: 201, auth: 'admin' },
      handler: async (ctx, input) => {
        const scopes = input.scopes === undefined ? [...ctx.registry.scopes] : validateScopes(input.scopes, [...ctx.registry.grantable]);
        const expiresAt = validateExpiry(input.expires_at, ctx.clock.now());
        return createKey(ctx.db, ctx.clock, { storeId: ctx.store.id, scopes, livemode: input.livemode ?? false, expiresAt });
      },
    }),
    revoke_api_key: action({
      kind: 'destructive',
      description: 'Revoke an API key; requests made with it then fail with 401.',
      input: Input({ key_id: Uuid('The key id.') }),
      output: Type.Object({ object: Type.Literal('api_key'), id: Uuid(), revoked: Type.Literal(true) }),
      rest: { method: 'DELETE', path: '/api-keys/:key_id', auth: 'admin' },
      handler: async (ctx, { key_id }) => {
        await revokeKey(ctx, ctx.store.id, key_id);
        return { object: 'api_key' as const, id: key_id, revoked: true as const };
      },
    }),
  },
});
