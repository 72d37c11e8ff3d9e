import { Type, type Static } from '@sinclair/typebox';
import { action, definePlugin, errors, Input, iso, PLANS, setSpendCap, Timestamp, Uuid, type Db } from '../../core/sdk';
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

const SpendCapOf = () =>
  Type.Union([Type.Number({ minimum: 0, maximum: 1e9 }), Type.Null()], {
    description: "USD the store's provider calls may cost per calendar month (0 stops every call; kept to the cent); null lifts the cap.",
  });
const SpendCap = SpendCapOf();

const StoreView = Type.Object({
  object: Type.Literal('store'),
  id: Uuid(),
  name: Type.String(),
  plan: Type.String(),
  instance_tools: Type.Boolean({ description: 'Trusted with the tools that act on the whole instance (local_agent, launch_cluster).' }),
  monthly_spend_cap: SpendCapOf(),
  created_at: Timestamp(),
});
const StoreCreated = Type.Object({ store: StoreView, api_key: ApiKey });

const InstanceTools = Type.Boolean({
  description: 'Trust the store with local_agent and launch_cluster, which act on the whole instance (default false).',
});

async function setInstanceTools(db: Db, id: string, on: boolean | undefined): Promise<Static<typeof StoreView> | undefined> {
  const [r] = await db.query(
    `UPDATE stores SET instance_tools = coalesce($2, instance_tools) WHERE id = $1 RETURNING id, name, plan, instance_tools, monthly_spend_cap, created_at`,
    [id, on ?? null],
  );
  // numeric: a string from the PostgreSQL driver, a number from PGlite.
  const cap = r?.monthly_spend_cap == null ? null : Number(r.monthly_spend_cap);
  return (
    r && {
      object: 'store',
      id: r.id,
      name: r.name,
      plan: r.plan,
      instance_tools: r.instance_tools,
      monthly_spend_cap: cap,
      created_at: iso(r.created_at),
    }
  );
}

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
        instance_tools: Type.Optional(InstanceTools),
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
        return { store: (await setInstanceTools(ctx.db, store.id, input.instance_tools ?? false))!, api_key };
      },
    }),
    update_store: action({
      kind: 'write',
      description:
        "The operator's settings of a store, fields left out keep their value: `instance_tools` trusts it with local_agent and launch_cluster; `monthly_spend_cap` caps what its model, search and media calls cost a month (403 spend_cap_reached at the cap; null lifts it).",
      input: Input({ instance_tools: Type.Optional(InstanceTools), monthly_spend_cap: Type.Optional(SpendCap) }),
      output: StoreView,
      // `/v1/stores/{storeId}` itself: the store the operator names in the URL (404 when there is none).
      rest: { method: 'PATCH', path: '', auth: 'admin' },
      example: { instance_tools: true, monthly_spend_cap: 50 },
      handler: async (ctx, input) => {
        if (input.monthly_spend_cap !== undefined) await setSpendCap(ctx.db, ctx.store.id, input.monthly_spend_cap);
        const store = await setInstanceTools(ctx.db, ctx.store.id, input.instance_tools);
        if (!store) throw errors.notFound(`store: '${ctx.store.id}'`, 'store_id');
        return store;
      },
    }),
  },
});
