import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, Timestamp, WebUrl, type ActionsOf, type Clock, type Db } from '../../core/sdk';
import { readSettingsView, ROTATION_GRACE_DAYS, rotateUcpSigningKeys, ucpSigningKeys, writeSettings } from '../checkout/public';

/**
 * A store's agentic settings (issue 50): whether UCP and ACP agents may buy, how, and how they are
 * paid. Its own plugin so the settings take the store's `platform` scopes while the `checkout`
 * scope (an agent's key) opens only the checkout itself. REST only, never a tool.
 */
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Secret = (description: string) => Type.String({ minLength: 8, maxLength: 500, description: `${description} Write-only: never shown again.` });

const AgenticSettings = Type.Object({
  object: Type.Literal('agentic_settings'),
  ucp: Type.Object({
    enabled: Type.Boolean(),
    allowed_profiles: Type.Array(Type.String(), { description: 'Profile URL prefixes an agent must match; empty: any agent.' }),
    require_signatures: Type.Boolean({ description: 'Refuse UCP requests without a valid RFC 9421 signature.' }),
  }),
  acp: Type.Object({
    enabled: Type.Boolean(),
    webhook_url: Nullable(Type.String()),
    webhook_secret_set: Type.Boolean({ description: 'Whether a webhook secret is set (the secret itself is write-only).' }),
  }),
  payments: Type.Object({
    adapter: Type.String({ description: 'manual (default) or stripe.' }),
    manual_mode: Type.String({ description: 'pending (default: the order awaits payment) or escalate (the buyer finishes at continue_url).' }),
    continue_url: Nullable(Type.String()),
    stripe_api_key_set: Type.Boolean(),
  }),
  updated_at: Nullable(Timestamp()),
});

const AgenticPatch = Input({
  ucp: Type.Optional(
    Input({
      enabled: Type.Optional(Type.Boolean({ description: 'Let UCP agents buy (off until turned on).' })),
      allowed_profiles: Type.Optional(Type.Array(WebUrl('A profile URL prefix.'), { maxItems: 100 })),
      require_signatures: Type.Optional(Type.Boolean()),
    }),
  ),
  acp: Type.Optional(
    Input({
      enabled: Type.Optional(Type.Boolean({ description: 'Let ACP agents buy (off until turned on).' })),
      webhook_url: Type.Optional(Nullable(WebUrl('Where order webhooks go, signed Merchant-Signature.'))),
      webhook_secret: Type.Optional(Nullable(Secret('The HMAC-SHA256 key of Merchant-Signature.'))),
    }),
  ),
  payments: Type.Optional(
    Input({
      adapter: Type.Optional(Type.Union([Type.Literal('manual'), Type.Literal('stripe')])),
      manual_mode: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('escalate')])),
      continue_url: Type.Optional(Nullable(WebUrl('Where an escalated checkout is finished by the buyer.'))),
      stripe_api_key: Type.Optional(Nullable(Secret("The store's own Stripe secret key (else SVC_STRIPE_API_KEY)."))),
    }),
  ),
});

const SigningKey = Type.Object({
  object: Type.Literal('ucp_signing_key'),
  kid: Type.String(),
  public_jwk: Type.Object({}, { additionalProperties: true, description: 'The public P-256 JWK, as /.well-known/ucp publishes it.' }),
  signing: Type.Boolean({ description: 'Whether svc signs with it now (the newest key).' }),
  created_at: Timestamp(),
  retires_at: Type.Union([Timestamp(), Type.Null()], { description: 'When it leaves /.well-known/ucp (set by a rotation); null: no end.' }),
});
const SigningKeys = Type.Object({ object: Type.Literal('list'), data: Type.Array(SigningKey) });

const keysView = async (db: Db, storeId: string, clock: Clock) => ({
  object: 'list' as const,
  data: (await ucpSigningKeys(db, storeId, clock)).map((k) => ({ object: 'ucp_signing_key' as const, ...k })),
});

const agentic = definePlugin({
  name: 'agentic',
  category: 'platform',
  description: "The store's agentic commerce settings: UCP and ACP on or off, allowed agents, order webhooks, payments.",
  resource: 'agentic settings',
  tool: false,
  scopes: { read: ['platform', 'platform:read', 'platform:write'], write: ['platform', 'platform:write'] },
  requires: ['checkout'],
  actions: {
    get_agentic_settings: action({
      kind: 'read',
      description: "The store's agentic settings (secrets shown only as set or not).",
      input: Input({}),
      output: AgenticSettings,
      rest: { method: 'GET', path: '/agentic' },
      handler: (ctx) => readSettingsView(ctx.db, ctx.store.id),
    }),
    update_agentic_settings: action({
      kind: 'write',
      description: 'Change the agentic settings: a field left out keeps its value, null clears a URL or secret.',
      input: AgenticPatch,
      output: AgenticSettings,
      rest: { method: 'PATCH', path: '/agentic' },
      example: { acp: { enabled: true }, payments: { manual_mode: 'pending' as const } },
      handler: (ctx, input) => writeSettings(ctx.db, ctx.store.id, input, ctx.clock.now()),
    }),
    list_ucp_signing_keys: action({
      kind: 'read',
      description: "The store's UCP signing keys published at /.well-known/ucp, the signing one first (public halves only).",
      input: Input({}),
      output: SigningKeys,
      rest: { method: 'GET', path: '/agentic/ucp/signing-keys' },
      handler: (ctx) => keysView(ctx.db, ctx.store.id, ctx.clock),
    }),
    rotate_ucp_signing_keys: action({
      kind: 'write',
      description: `Make a new UCP signing key and sign with it from now on; the previous keys stay published for ${ROTATION_GRACE_DAYS} days so agents can still verify what they signed.`,
      input: Input({}),
      output: SigningKeys,
      rest: { method: 'POST', path: '/agentic/ucp/signing-keys/rotate' },
      example: {},
      handler: async (ctx) => {
        await rotateUcpSigningKeys(ctx.db, ctx.store.id, ctx.clock);
        return keysView(ctx.db, ctx.store.id, ctx.clock);
      },
    }),
  },
});
export default agentic;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'agentic', typeof agentic> {}
}
