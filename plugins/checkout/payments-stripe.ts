import { stripePayments, type Ctx } from '../../core/sdk';
import type { Charged } from './types';
import type { AgenticSettings } from './settings-store';

interface StripeConfig {
  stripe_api_key?: string;
  stripe_url?: string;
  provider_timeout_s?: number;
}

/**
 * Charges the agent's token through a confirmed PaymentIntent: the store's own key, else the
 * operator's SVC_STRIPE_API_KEY. The session id is the Idempotency-Key, so a completion retried
 * after a lost answer finds the same intent and never charges twice. No token: 400 naming it.
 */
export async function stripeCharge(
  ctx: Ctx,
  settings: AgenticSettings,
  p: { token?: string; amount: number; currency: string; sessionId: string },
): Promise<Charged> {
  const config = ctx.config as StripeConfig;
  const stripe = stripePayments({
    apiKey: settings.payments.stripe_api_key ?? config.stripe_api_key,
    baseUrl: config.stripe_url,
    timeoutMs: (config.provider_timeout_s ?? 60) * 1000,
  });
  if (!p.token)
    return { kind: 'declined', code: 'payment_declined', message: 'No payment token was given: pass a Shared Payment Token or PaymentMethod id.' };
  const r = await stripe.charge({
    amount: p.amount,
    currency: p.currency,
    token: p.token,
    idempotencyKey: `svc-checkout-${p.sessionId}`,
    metadata: { checkout_session_id: p.sessionId, store_id: ctx.store.id },
  });
  if (!r.ok) return { kind: 'declined', code: r.code, message: r.message };
  return { kind: 'ok', status: r.status === 'succeeded' ? 'paid' : 'pending', payment_method: 'stripe', reference: r.id };
}
