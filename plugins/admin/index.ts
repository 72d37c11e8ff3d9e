import { Type } from '@sinclair/typebox';
import { action, definePlugin, errors, Input, iso, PLANS, setSpendCap, Timestamp, Uuid } from '../../core/sdk';
import { createKey, createStore, validateScopes } from '../../core/platform';

/**
 * The operator's API (bootstrap): create stores with the admin token (SVC_ADMIN_TOKEN). The
 * store's key routes (`/v1/stores/:id/api-keys`) take the admin token too: they are plugins/api_keys,
 * shared with the store's owners. REST only: an operator act is never a tool.
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

const SpendCap = Type.Union([Type.Number({ minimum: 0, maximum: 1e12 }), Type.Null()], {
  description: "USD the store's provider calls may cost per calendar month (0 stops every call; kept to the cent); null lifts the cap.",
});

const StoreRecord = Type.Object({
  object: Type.Literal('store'),
  id: Uuid(),
  name: Type.String(),
  plan: Type.String(),
  monthly_spend_cap: SpendCap,
  created_at: Timestamp(),
});

const PlanName = Type.Union(
  PLANS.map((p) => Type.Literal(p)),
  { default: 'free', description: 'The store plan (SPEC 8).' },
);

export default definePlugin({
  name: 'admin',
  category: 'platform',
  description: 'Store creation with the admin token (key routes: api_keys).',
  resource: 'store',
  tool: false,
  scopes: { read: ['admin'], write: ['admin'] },
  actions: {
    create_store: action({
      kind: 'write',
      description: 'Create a store and its first (sandbox) API key. The plain key is returned only in this response.',
      input: Input({
        name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', errorMessage: 'must not be blank' }),
        plan: Type.Optional(PlanName),
        scopes: Type.Optional(Scopes),
      }),
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
    update_store: action({
      kind: 'write',
      description:
        "The operator's settings of a store: monthly_spend_cap caps what its model, search and media calls cost a month (403 spend_cap_reached at the cap).",
      input: Input({ monthly_spend_cap: Type.Optional(SpendCap) }),
      output: StoreRecord,
      // The store's own URL (`/v1/stores/:storeId`): the operator names the store there.
      rest: { method: 'PATCH', path: '', auth: 'admin' },
      example: { monthly_spend_cap: 50 },
      handler: async (ctx, input) => {
        if (input.monthly_spend_cap === undefined)
          throw errors.validation('Nothing to change: give monthly_spend_cap (USD, or null).', 'monthly_spend_cap');
        const s = await setSpendCap(ctx.db, ctx.store.id, input.monthly_spend_cap);
        return { object: 'store' as const, ...s, created_at: iso(s.created_at) };
      },
    }),
  },
});
