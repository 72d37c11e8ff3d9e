import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, ListOf, Origin, Timestamp, Uuid, type Ctx } from '../../core/sdk';
import { createStoreKey, createStorePublishableKey, getKey, listKeys, MAX_ROLL_SECONDS, revokeStoreKey, rollStoreKey } from './keys';

/**
 * The store's API keys, managed by the people who own them (issue 11, SPEC 4.10 `api_keys`):
 * owners and admins with their token, a key holding `platform` or `platform:write`, and the
 * operator with the admin token (the bootstrap routes: one route serves all three). A key or token
 * never makes a key with more scopes than it holds; the secret is shown once.
 */
const Scopes = Type.Array(Type.String({ maxLength: 100, 'x-svc-enum': 'grantable-scopes' }), {
  maxItems: 100,
  description:
    "Scopes of the key (`resource:action`, or a bare resource for both). Default: the operator's all scopes; a key's or user's own scopes. Never more than the caller holds.",
});

const ApiKey = Type.Object({
  object: Type.Literal('api_key'),
  id: Uuid(),
  key: Type.Optional(Type.String({ description: 'The plain key: returned only at creation (and roll), store it now.' })),
  key_prefix: Type.String({ description: 'The first characters of the key, to tell keys apart.' }),
  scopes: Type.Array(Type.String()),
  livemode: Type.Boolean(),
  kind: Type.Optional(
    Type.Union([Type.Literal('secret'), Type.Literal('publishable')], {
      description: 'secret (an API key) or publishable (svc_pub_: the webchat widget).',
    }),
  ),
  allowed_origins: Type.Optional(
    Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'A publishable key: the origins its widget may chat from.' }),
  ),
  expires_at: Type.Union([Timestamp(), Type.Null()]),
  created_at: Timestamp(),
});

const Rolled = Type.Object({
  ...ApiKey.properties,
  rolled: Type.Object({ id: Uuid(), expires_at: Type.String({ description: 'When the old secret stops working (ISO 8601 UTC timestamp).' }) }),
});

/** What the audit trail hears of a key: never its secret. */
const KeyEvent = Type.Object({ object: Type.Literal('api_key'), id: Uuid() }, { additionalProperties: true });
const announce = async <T extends object>(ctx: Ctx, type: string, made: Promise<T>): Promise<T> => {
  const out = await made;
  const { key: _secret, ...safe } = out as Record<string, unknown>;
  ctx.emit(type, safe);
  return out;
};

/** The operator and the store's own credentials share these routes. */
const ALL = ['admin', 'api_key', 'user'] as ('admin' | 'api_key' | 'user')[];

export default definePlugin({
  name: 'api_keys',
  category: 'platform',
  description: "The store's API keys: list them or read one (prefixes only), create one (the secret shown once), revoke or roll one.",
  resource: 'api key',
  catalog: true,
  // SPEC 5.4: api_keys is usable with platform or platform:write (users: owners and admins hold them).
  scopes: { read: ['platform', 'platform:write'], write: ['platform', 'platform:write'] },
  events: { 'api_key.created': KeyEvent, 'api_key.revoked': KeyEvent, 'api_key.rolled': KeyEvent },
  actions: {
    list_keys: action({
      kind: 'read',
      description: "List the store's API keys that are not revoked, newest first: prefix, scopes, mode and expiry. Secrets are never shown again.",
      input: Input({}),
      output: ListOf(ApiKey),
      rest: { method: 'GET', path: '/api-keys', auth: ALL },
      handler: (ctx) => listKeys(ctx),
    }),
    get_key: action({
      kind: 'read',
      description: 'One API key of the store that is not revoked, as the list shows it: prefix, scopes, mode and expiry, never the secret.',
      input: Input({ key_id: Uuid('The key id.') }),
      output: ApiKey,
      rest: { method: 'GET', path: '/api-keys/:key_id', auth: ALL },
      handler: (ctx, { key_id }) => getKey(ctx, key_id),
    }),
    create_key: action({
      kind: 'write',
      description:
        'Create an API key for this store. The plain key is in this answer only. It can hold only scopes the caller holds (403 insufficient_scope naming the first that is not).',
      input: Input({
        scopes: Type.Optional(Scopes),
        livemode: Type.Optional(Type.Boolean({ default: false, description: 'true for a svc_live_ key, false for svc_test_.' })),
        expires_at: Type.Optional(Type.Union([Timestamp(), Type.Null()])),
      }),
      output: ApiKey,
      errors: ['insufficient_scope'],
      rest: { method: 'POST', path: '/api-keys', status: 201, auth: ALL },
      // A key the narrowest caller of this plugin may make, and roll (never more than it holds).
      example: { scopes: ['platform:write'] },
      emits: ['api_key.created'],
      handler: (ctx, input) => announce(ctx, 'api_key.created', createStoreKey(ctx, input)),
    }),
    create_publishable_key: action({
      kind: 'write',
      description:
        "Create a publishable key (svc_pub_) for the webchat widget: it holds no scope and only opens chats with the store's webchat agents from these origins. Shown once.",
      input: Input({
        allowed_origins: Type.Array(Origin('An origin whose pages may use the widget.'), {
          minItems: 1,
          maxItems: 20,
          description: 'Origins (https://shop.example.com) whose pages may use the widget.',
        }),
      }),
      output: ApiKey,
      rest: { method: 'POST', path: '/api-keys/publishable', status: 201, auth: ALL },
      example: { allowed_origins: ['https://shop.example.com'] },
      emits: ['api_key.created'],
      handler: (ctx, input) => announce(ctx, 'api_key.created', createStorePublishableKey(ctx, input)),
    }),
    revoke_key: action({
      kind: 'destructive',
      description: 'Revoke an API key at once; requests made with it then fail with 401.',
      input: Input({ key_id: Uuid('The key id.') }),
      output: Type.Object({ object: Type.Literal('api_key'), id: Uuid(), revoked: Type.Literal(true) }),
      rest: { method: 'DELETE', path: '/api-keys/:key_id', auth: ALL },
      emits: ['api_key.revoked'],
      handler: (ctx, { key_id }) => announce(ctx, 'api_key.revoked', revokeStoreKey(ctx, key_id)),
    }),
    roll_key: action({
      kind: 'write',
      description:
        'Roll an API key (like Stripe): a new secret with the same scopes, shown once, while the old one keeps working until expires_at, or expires_in seconds from now (0: at once; default 24 hours; at most 30 days).',
      input: Input({
        key_id: Uuid('The key to roll.'),
        expires_at: Type.Optional(Type.String({ description: 'When the old secret stops working (ISO 8601 UTC timestamp).' })),
        expires_in: Type.Optional(
          Type.Integer({ minimum: 0, maximum: MAX_ROLL_SECONDS, description: 'Seconds the old secret keeps working (default 86400).' }),
        ),
      }),
      output: Rolled,
      errors: ['insufficient_scope'],
      rest: { method: 'POST', path: '/api-keys/:key_id/roll', auth: ALL },
      emits: ['api_key.rolled'],
      handler: (ctx, input) => announce(ctx, 'api_key.rolled', rollStoreKey(ctx, input)),
    }),
  },
});
