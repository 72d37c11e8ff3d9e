import { afterAll, describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';
import { mkProduct } from '../../test/kit/inventory';
import { fakeStripe, STRIPE_KEY } from '../../test/kit/fake-stripe';

const address = { name: 'Ada', line1: '1 Main St', city: 'Springfield', postal_code: '90001', country: 'US' };
const stripe = fakeStripe();
afterAll(() => stripe.stop());

async function readySession(h: Harness, price = 12.5) {
  const p = await mkProduct(h, { pricing_data: { retail: price }, stock_quantity: 5 });
  const s = await h.call('POST', '/checkout/sessions', {
    line_items: [{ item_id: p.id, quantity: 2 }],
    buyer: { email: 'a@example.com' },
    shipping_address: address,
  });
  expect(s.body.status).toBe('ready_for_complete');
  return s.body.id as string;
}
const complete = (h: Harness, id: string, payment?: object) => h.call('POST', `/checkout/sessions/${id}/complete`, payment ? { payment } : {});

describe('agentic settings and payment adapters', () => {
  test('settings: protocols off by default, secrets write-only, platform scopes (checkout scope refused)', async () => {
    const h = await setup();
    const got = await h.call('GET', '/agentic');
    expect(got.body).toMatchObject({
      ucp: { enabled: false, allowed_profiles: [] },
      acp: { enabled: false, webhook_secret_set: false },
      payments: { adapter: 'manual' },
    });
    const set = await h.call('PATCH', '/agentic', {
      acp: { enabled: true, webhook_url: 'https://agent.example/hooks', webhook_secret: 'whsec_0123456789' },
    });
    expect(set.body.acp).toEqual({ enabled: true, webhook_url: 'https://agent.example/hooks', webhook_secret_set: true });
    expect(JSON.stringify(set.body)).not.toContain('whsec_0123456789');
    const agent = { 'x-api-key': await h.newKey(['checkout']) };
    expect((await h.call('GET', '/agentic', undefined, agent)).status).toBe(403);
    const reader = { 'x-api-key': await h.newKey(['platform:read']) };
    expect((await h.call('GET', '/agentic', undefined, reader)).status).toBe(200);
    expect((await h.call('PATCH', '/agentic', { ucp: { enabled: true } }, reader)).status).toBe(403);
  });

  test('hostnames are unique across the instance: 409 hostname_taken', async () => {
    const a = await setup();
    const b = await setup();
    const name = `shop-${crypto.randomUUID().slice(0, 8)}.example.com`;
    const mine = await a.call('PATCH', '/settings', { hostnames: [name.toUpperCase()] });
    expect(mine.body.settings.hostnames).toEqual([name]);
    const theirs = await b.call('PATCH', '/settings', { hostnames: [name] });
    expect([theirs.status, theirs.body.error.code, theirs.body.error.param]).toEqual([409, 'hostname_taken', 'hostnames']);
    expect((await a.call('PATCH', '/settings', { hostnames: [] })).body.settings.hostnames).toEqual([]);
    expect((await b.call('PATCH', '/settings', { hostnames: [name] })).status).toBe(200);
  });

  test("manual escalation answers requires_escalation with the store's continue_url and makes no order", async () => {
    const h = await setup();
    await h.call('PATCH', '/agentic', { payments: { manual_mode: 'escalate', continue_url: 'https://shop.example/finish' } });
    const done = await complete(h, await readySession(h));
    expect(done.body).toMatchObject({ status: 'requires_escalation', continue_url: 'https://shop.example/finish', order_id: null });
  });

  test('stripe: the token is charged through a PaymentIntent and the order is paid; a decline is a message', async () => {
    const h = await setup({ env: { SVC_STRIPE_URL: stripe.url } });
    await h.call('PATCH', '/agentic', { payments: { adapter: 'stripe', stripe_api_key: STRIPE_KEY } });
    expect((await h.call('GET', '/agentic')).body.payments).toMatchObject({ adapter: 'stripe', stripe_api_key_set: true });
    const id = await readySession(h);
    const declined = await complete(h, id, { token: 'pm_card_chargeDeclined' });
    expect(declined.body.status).toBe('incomplete');
    expect(declined.body.messages).toContainEqual(expect.objectContaining({ code: 'payment_declined', path: '$.payment' }));
    const before = stripe.intents.length;
    const paid = await complete(h, await readySession(h), { token: 'spt_granted_123' });
    expect(paid.body.status).toBe('completed');
    expect(stripe.intents.at(-1)).toMatchObject({
      amount: '2500',
      currency: 'usd',
      shared_payment_granted_token: 'spt_granted_123',
      confirm: 'true',
    });
    expect(stripe.intents.length).toBe(before + 1);
    const order = (await h.call('GET', `/orders/${paid.body.order_id}`)).body;
    expect(order).toMatchObject({ status: 'paid', payment_method: 'stripe' });
    expect(order.metadata.payment_reference).toMatch(/^pi_/);
  });

  test('stripe with no key anywhere is 400 provider_not_configured naming SVC_STRIPE_API_KEY', async () => {
    const h = await setup({ env: { SVC_STRIPE_URL: stripe.url } });
    await h.call('PATCH', '/agentic', { payments: { adapter: 'stripe' } });
    const r = await complete(h, await readySession(h), { token: 'pm_card_visa' });
    expect([r.status, r.body.error.code]).toEqual([400, 'provider_not_configured']);
    expect(r.body.error.message).toContain('SVC_STRIPE_API_KEY');
  });
});
