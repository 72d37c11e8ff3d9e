import { Type } from '@sinclair/typebox';

/** The checkout engine's settings (sessions.ts, payments.ts). */
export const CheckoutConfig = Type.Object({
  session_ttl_seconds: Type.Integer({
    env: 'SVC_CHECKOUT_SESSION_TTL_SECONDS',
    default: 21600,
    minimum: 1,
    description: 'A checkout session expires this many seconds after its creation (UCP: 6 h).',
  }),
  stripe_api_key: Type.Optional(
    Type.String({ env: 'SVC_STRIPE_API_KEY', description: "Stripe's secret key, for stores that set none of their own." }),
  ),
  stripe_url: Type.Optional(
    Type.String({ env: 'SVC_STRIPE_URL', description: 'Stripe API base (default https://api.stripe.com); a local fake in tests.' }),
  ),
  provider_timeout_s: Type.Number({ env: 'SVC_PROVIDER_TIMEOUT_S', exclusiveMinimum: 0, default: 60 }),
});
