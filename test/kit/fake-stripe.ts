/**
 * A local fake of Stripe's PaymentIntents API on 127.0.0.1 (Stripe's wire: form-encoded bodies,
 * Bearer secret keys, Idempotency-Key replays, 402 card_error for declines). Tokens decide the
 * outcome as Stripe's test tokens do: `pm_card_chargeDeclined` / `spt_declined` decline,
 * `pm_card_threeDSecureRequired` needs action, anything else succeeds.
 */
export const STRIPE_KEY = 'sk_test_fake_0123456789';

export function fakeStripe(key = STRIPE_KEY) {
  const intents: Record<string, string>[] = [];
  const byIdem = new Map<string, { status: number; body: unknown }>();
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(r) {
      const path = new URL(r.url).pathname;
      if (r.headers.get('authorization') !== `Bearer ${key}`)
        return Response.json({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } }, { status: 401 });
      if (r.method !== 'POST' || path !== '/v1/payment_intents')
        return Response.json({ error: { type: 'invalid_request_error', message: 'Unrecognized request URL.' } }, { status: 404 });
      const idem = r.headers.get('idempotency-key');
      if (idem && byIdem.has(idem)) {
        const prior = byIdem.get(idem)!;
        return Response.json(prior.body, { status: prior.status, headers: { 'idempotent-replayed': 'true' } });
      }
      const form = Object.fromEntries(new URLSearchParams(await r.text()));
      intents.push(form);
      const token = form.payment_method ?? form.shared_payment_granted_token ?? '';
      const id = `pi_${intents.length.toString().padStart(24, '0')}`;
      const intent = { id, object: 'payment_intent', amount: Number(form.amount), currency: form.currency, status: 'succeeded' };
      let out: { status: number; body: unknown };
      if (/declined/i.test(token))
        out = {
          status: 402,
          body: {
            error: {
              type: 'card_error',
              code: 'card_declined',
              decline_code: 'generic_decline',
              message: 'Your card was declined.',
              payment_intent: { ...intent, status: 'requires_payment_method' },
            },
          },
        };
      else if (/threeDSecure/i.test(token)) out = { status: 200, body: { ...intent, status: 'requires_action' } };
      else out = { status: 200, body: intent };
      if (idem) byIdem.set(idem, out);
      return Response.json(out.body, { status: out.status });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, intents, stop: () => server.stop(true) };
}
