import { describe, expect, test } from 'bun:test';
import { mkProduct } from '../../../test/kit/inventory';
import examples from './spec/examples.agentic_checkout.json';
import { acpErrors, acpStore } from '../../../test/kit/acp';

const fulfillment = {
  name: 'John Doe',
  email: 'johndoe@example.com',
  address: { name: 'John Doe', line_one: '1234 Chat Road', city: 'San Francisco', state: 'CA', country: 'US', postal_code: '94131' },
};

describe('ACP 2026-04-17', () => {
  test('discovery, then create (201), update, get, complete and cancel (405): every answer validates against the ACP schema', async () => {
    const s = await acpStore();
    const p = await mkProduct(s.h, { pricing_data: { retail: 3 }, stock_quantity: 5 });
    await s.h.call('POST', '/shipping/zones', {
      name: 'US',
      countries: ['US'],
      methods: [{ name: 'Standard', rate_type: 'flat', amount: 1, min_days: 3, max_days: 5 }],
    });
    const disc = await s.h.raw('GET', '/.well-known/acp.json', undefined, { host: s.host, 'x-api-key': '' });
    expect(disc.status).toBe(200);
    expect(disc.headers.get('cache-control')).toContain('public');
    expect(acpErrors('DiscoveryResponse', disc.body)).toEqual([]);
    expect(disc.body.api_base_url).toBe(`http://${s.host}/acp`);

    const made = await s.acp('POST', '/acp/checkout_sessions', { currency: 'usd', line_items: [{ id: p.id, quantity: 2 }], capabilities: {} });
    expect(made.status).toBe(201);
    expect(acpErrors('CheckoutSession', made.body)).toEqual([]);
    expect(made.body).toMatchObject({ status: 'not_ready_for_payment', currency: 'usd', protocol: { version: '2026-04-17' } });
    expect(made.body.totals.find((t: any) => t.type === 'total').amount).toBe(600);
    expect(made.body.messages.map((m: any) => m.param)).toEqual(['$.buyer.email', '$.fulfillment_details.address']);

    const id = made.body.id;
    const upd = await s.acp('POST', `/acp/checkout_sessions/${id}`, { fulfillment_details: fulfillment });
    expect(acpErrors('CheckoutSession', upd.body)).toEqual([]);
    expect(upd.body.status).toBe('ready_for_payment');
    expect(upd.body.fulfillment_options).toHaveLength(1);
    expect(upd.body.totals.find((t: any) => t.type === 'fulfillment').amount).toBe(100);

    const got = await s.acp('GET', `/acp/checkout_sessions/${id}`);
    expect(got.body.id).toBe(id);
    const done = await s.acp('POST', `/acp/checkout_sessions/${id}/complete`, {
      buyer: { first_name: 'John', last_name: 'Smith', email: 'johnsmith@mail.com' },
      payment_data: { handler_id: 'manual', instrument: { type: 'card', credential: { type: 'spt', token: 'spt_123' } } },
    });
    expect(done.status).toBe(200);
    expect(acpErrors('CheckoutSessionWithOrder', done.body)).toEqual([]);
    expect(done.body.status).toBe('completed');
    const order = (await s.h.call('GET', `/orders/${done.body.order.id}`)).body;
    expect(order).toMatchObject({ channel: 'acp', status: 'pending', total: 7 });
    expect(order.agent.protocol).toBe('acp');
    const cancel = await s.acp('POST', `/acp/checkout_sessions/${id}/cancel`, {});
    expect([cancel.status, cancel.body.type]).toEqual([405, 'invalid_request']);
    expect(acpErrors('Error', cancel.body)).toEqual([]);
  });

  test('API-Version is required and must be supported; raw card data is refused', async () => {
    const s = await acpStore();
    const none = await s.acp('GET', `/acp/checkout_sessions/${crypto.randomUUID()}`, undefined, { 'api-version': '' });
    expect([none.status, none.body.code, none.body.supported_versions]).toEqual([400, 'missing_api_version', ['2026-04-17']]);
    const old = await s.acp('GET', `/acp/checkout_sessions/${crypto.randomUUID()}`, undefined, { 'api-version': '2025-09-29' });
    expect([old.status, old.body.code]).toEqual([400, 'unsupported_api_version']);
    expect(acpErrors('Error', old.body)).toEqual([]);
    const card = await s.acp('POST', '/acp/checkout_sessions', {
      line_items: [{ id: crypto.randomUUID() }],
      payment_data: { instrument: { type: 'card', number: '4242424242424242', cvc: '123' } },
    });
    expect([card.status, card.body.code]).toEqual([400, 'card_data_not_accepted']);
  });

  test('Idempotency-Key: missing 400, replay with Idempotent-Replayed, another body 422, semantic equality', async () => {
    const s = await acpStore();
    const p = await mkProduct(s.h, { stock_quantity: 5 });
    const missing = await s.acp('POST', '/acp/checkout_sessions', { line_items: [{ id: p.id }] }, { 'idempotency-key': '' });
    expect([missing.status, missing.body]).toEqual([400, examples.error_400_idempotency_key_required]);
    const key = { 'idempotency-key': crypto.randomUUID() };
    const first = await s.acp('POST', '/acp/checkout_sessions', { line_items: [{ id: p.id, quantity: 1 }], currency: 'usd' }, key);
    // The same body with its keys in another order is the same request.
    const again = await s.acp('POST', '/acp/checkout_sessions', { currency: 'usd', line_items: [{ quantity: 1, id: p.id }] }, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const other = await s.acp('POST', '/acp/checkout_sessions', { line_items: [{ id: p.id, quantity: 2 }] }, key);
    expect([other.status, other.body]).toEqual([422, examples.error_422_idempotency_conflict]);
  });

  test("walls: another key cannot see the session; another store's host is 404; an unknown item is a message", async () => {
    const s = await acpStore();
    const t = await acpStore();
    const p = await mkProduct(s.h, { stock_quantity: 5 });
    const made = await s.acp('POST', '/acp/checkout_sessions', { line_items: [{ id: p.id }, { id: crypto.randomUUID() }] });
    expect(made.body.messages[0]).toMatchObject({ type: 'error', code: 'not_found', param: '$.line_items[1].item.id' });
    const otherKey = await s.h.newKey(['checkout']);
    const seen = await s.acp('GET', `/acp/checkout_sessions/${made.body.id}`, undefined, { authorization: `Bearer ${otherKey}` });
    expect(seen.status).toBe(404);
    // Store t's agent at store s's host: not its store.
    const cross = await t.acp('GET', `/acp/checkout_sessions/${made.body.id}`, undefined, { host: s.host });
    expect(cross.status).toBe(404);
    const theirs = await t.acp('GET', `/acp/checkout_sessions/${made.body.id}`);
    expect(theirs.status).toBe(404);
  });

  test('a store with ACP off answers 404 at discovery and the endpoints', async () => {
    const s = await acpStore();
    await s.h.call('PATCH', '/agentic', { acp: { enabled: false } });
    expect((await s.h.raw('GET', '/.well-known/acp.json', undefined, { host: s.host, 'x-api-key': '' })).status).toBe(404);
    expect((await s.acp('POST', '/acp/checkout_sessions', { line_items: [] })).status).toBe(404);
  });

  test("the spec's create, update and complete examples replay", async () => {
    const s = await acpStore();
    const p = await mkProduct(s.h, { pricing_data: { retail: 3 }, stock_quantity: 5 });
    await s.h.call('POST', '/shipping/zones', { name: 'US', countries: ['US'], methods: [{ name: 'Standard', rate_type: 'flat', amount: 1 }] });
    // The examples name item_123; here it is a product of the store.
    const create = JSON.parse(JSON.stringify(examples.create_checkout_session_request).replaceAll('item_123', p.id));
    const made = await s.acp('POST', '/acp/checkout_sessions', create);
    expect(made.status).toBe(201);
    expect(acpErrors('CheckoutSession', made.body)).toEqual([]);
    expect(made.body.status).toBe('ready_for_payment');
    const option = made.body.fulfillment_options[0].id;
    const update = JSON.parse(
      JSON.stringify(examples.update_checkout_session_request).replaceAll('fulfillment_option_456', option).replaceAll('item_123', p.id),
    );
    const upd = await s.acp('POST', `/acp/checkout_sessions/${made.body.id}`, update);
    expect(acpErrors('CheckoutSession', upd.body)).toEqual([]);
    const done = await s.acp('POST', `/acp/checkout_sessions/${made.body.id}/complete`, examples.complete_checkout_session_request);
    expect(done.status).toBe(200);
    expect(acpErrors('CheckoutSessionWithOrder', done.body)).toEqual([]);
    expect(done.body.buyer.email).toBe('johnsmith@mail.com');
  });
});
