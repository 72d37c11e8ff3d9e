/**
 * Payment adapters (issue 50): how a completed agentic checkout is paid. svc never handles card
 * numbers: an agent hands over a PSP token (a Stripe Shared Payment Token `spt_...` or a
 * PaymentMethod `pm_...`), and the adapter charges it.
 *
 * - `manual`: nothing is charged here; the order waits for payment (pending).
 * - `stripe`: a confirmed PaymentIntent (`POST /v1/payment_intents`, form-encoded, as Stripe's API
 *   takes it) with the token, an Idempotency-Key per session so a retried completion never charges
 *   twice. Base `SVC_STRIPE_URL` (https://api.stripe.com), key from the store or `SVC_STRIPE_API_KEY`.
 *   test/kit/fake-stripe.ts speaks the same wire.
 */
import { errors } from '../errors';
import { httpFailure, malformed, ProviderTimeout, providerFetch, timedOut, unreachable, type WireState } from './wire';

export const STRIPE_DEFAULT_BASE = 'https://api.stripe.com';

export interface ChargeRequest {
  /** Integer minor units. */
  amount: number;
  currency: string;
  token: string;
  /** Same key, same charge: Stripe answers the first PaymentIntent again. */
  idempotencyKey: string;
  metadata?: Record<string, string>;
}

export type ChargeResult =
  | { ok: true; id: string; status: 'succeeded' | 'processing' }
  | { ok: false; code: 'payment_declined' | 'requires_3ds'; message: string; id?: string };

export interface PaymentsProvider {
  name: string;
  charge(req: ChargeRequest): Promise<ChargeResult>;
}

export interface StripeSettings {
  baseUrl?: string;
  apiKey?: string;
  timeoutMs: number;
}

/** The Stripe adapter, or 400 provider_not_configured naming SVC_STRIPE_API_KEY. */
export function stripePayments(s: StripeSettings): PaymentsProvider {
  if (!s.apiKey) throw errors.notConfigured('SVC_STRIPE_API_KEY', 'the store takes payments through Stripe (or set payments.stripe_api_key)');
  const base = (s.baseUrl || STRIPE_DEFAULT_BASE).replace(/\/+$/, '');
  return {
    name: 'stripe',
    async charge(req) {
      const form = new URLSearchParams({ amount: String(req.amount), currency: req.currency.toLowerCase(), confirm: 'true' });
      // A Shared Payment Token is granted to the merchant; a PaymentMethod is charged as such.
      if (req.token.startsWith('spt_')) form.set('shared_payment_granted_token', req.token);
      else form.set('payment_method', req.token);
      form.set('automatic_payment_methods[enabled]', 'true');
      form.set('automatic_payment_methods[allow_redirects]', 'never');
      for (const [k, v] of Object.entries(req.metadata ?? {})) form.set(`metadata[${k}]`, v);
      const state: WireState = { timedOut: false };
      let res: Response;
      try {
        res = await providerFetch({ provider: 'stripe', timeoutMs: s.timeoutMs }, state)(`${base}/v1/payment_intents`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${s.apiKey}`,
            'content-type': 'application/x-www-form-urlencoded',
            'idempotency-key': req.idempotencyKey,
          },
          body: form.toString(),
        });
      } catch (err) {
        if (state.timedOut || err instanceof ProviderTimeout) throw timedOut('stripe', s.timeoutMs);
        throw unreachable('stripe', (err as Error).message);
      }
      const text = await res.text();
      let body: any;
      try {
        body = JSON.parse(text);
      } catch {
        throw malformed('stripe', 'the answer is not JSON');
      }
      // 402: the card was declined (Stripe's card_error); the intent id rides along.
      if (res.status === 402 && body?.error)
        return {
          ok: false,
          code: 'payment_declined',
          message: String(body.error.message ?? 'The payment was declined.'),
          id: body.error.payment_intent?.id,
        };
      if (!res.ok) throw httpFailure('stripe', res.status, String(body?.error?.message ?? text.slice(0, 300)), res.headers);
      if (body?.object !== 'payment_intent' || typeof body.id !== 'string') throw malformed('stripe', 'no payment_intent in the answer');
      if (body.status === 'succeeded' || body.status === 'processing') return { ok: true, id: body.id, status: body.status };
      if (body.status === 'requires_action')
        return { ok: false, code: 'requires_3ds', message: 'The payment needs the buyer to authenticate (3-D Secure).', id: body.id };
      return { ok: false, code: 'payment_declined', message: `The payment was not taken (${body.status}).`, id: body.id };
    },
  };
}
