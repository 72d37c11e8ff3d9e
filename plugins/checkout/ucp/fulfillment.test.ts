/**
 * Conformance ports, continued: fulfillment, validation, invalid input, orders and webhooks
 * (Universal-Commerce-Protocol/conformance fulfillment_test, validation_test, invalid_input_test,
 * order_test, webhook_test). Not ported: the suite's stored-customer address injection (svc keeps
 * no address book for agents), its simulated order PUT/adjustment endpoints (orders change through
 * svc's own API, which the webhook tests drive), and its payment-token simulation (the Stripe
 * adapter is the engine's, tested against its fake there).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { runJob, takeQueued } from '../../../test/kit/jobs';
import { ADDRESS, BUYER, cart, item, MANUAL, ucpWorld, usZone, type UcpWorld } from '../../../test/kit/ucp';
import { expectUcp } from '../../../test/kit/ucp-schemas';

let w: UcpWorld;
let p: string;
beforeAll(async () => {
  w = await ucpWorld();
  p = await item(w.h, { stock_quantity: 100 });
  await usZone(w.h);
  const ca = await w.h.call('POST', '/shipping/zones', {
    name: 'Canada',
    countries: ['CA'],
    methods: [{ name: 'Canada Post', rate_type: 'flat', amount: 12, min_days: 4, max_days: 8 }],
  });
  expect(ca.status).toBe(201);
});
afterAll(() => w.stop());

const CO = '/ucp/v1/checkout-sessions';
const shipTo = (address: object, option?: string) => ({
  methods: [{ type: 'shipping', destinations: [address], ...(option ? { groups: [{ id: 'package_1', selected_option_id: option }] } : {}) }],
});
const total = (c: any, type = 'total') => c.totals.find((t: any) => t.type === type)?.amount;
const put = async (id: string, body: object) => expectUcp('checkout', (await w.ucp('PUT', `${CO}/${id}`, body)).body);
const create = async (body: object) => {
  const r = await w.ucp('POST', CO, body);
  expect(r.status).toBe(201);
  return expectUcp('checkout', r.body);
};

describe('fulfillment', () => {
  test('an address brings the options of its zone (cheapest chosen); choosing another changes the fulfillment total', async () => {
    const c = await create({ ...cart({ id: p }), buyer: BUYER });
    const withAddress = await put(c.id, { ...cart({ id: p }), buyer: BUYER, fulfillment: shipTo(ADDRESS) });
    const group = withAddress.fulfillment.methods[0].groups[0];
    expect(group.options.map((o: any) => [o.title, o.totals[0].amount])).toEqual([
      ['Standard', 500],
      ['Express', 1000],
    ]);
    // The estimate, as the spec's earliest and latest fulfillment times.
    expect(group.options[0].earliest_fulfillment_time).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(group.options[0].latest_fulfillment_time > group.options[0].earliest_fulfillment_time).toBe(true);
    const standard = group.options[0].id;
    expect(group.selected_option_id).toBe(standard);
    expect(total(withAddress, 'fulfillment')).toBe(500);
    expect(total(withAddress)).toBe(3000);
    const express = group.options[1].id;
    const chosen = await put(c.id, { ...cart({ id: p }), buyer: BUYER, fulfillment: shipTo({ id: 'dest_1' }, express) });
    expect(chosen.fulfillment.methods[0].groups[0].selected_option_id).toBe(express);
    expect(chosen.fulfillment.methods[0].destinations[0]).toMatchObject({ street_address: '123 Main St' });
    expect(total(chosen, 'fulfillment')).toBe(1000);
    expect(total(chosen)).toBe(3500);
    expect(chosen.status).toBe('ready_for_complete');
  });

  test('options follow the address: a US address gets the US zone, a Canadian one the Canada zone, elsewhere none (region_restricted)', async () => {
    const c = await create(cart({ id: p }));
    const titles = (x: any) => x.fulfillment.methods[0].groups[0].options.map((o: any) => o.title);
    expect(titles(await put(c.id, { ...cart({ id: p }), fulfillment: shipTo(ADDRESS) }))).toEqual(['Standard', 'Express']);
    const ca = { ...ADDRESS, address_locality: 'Toronto', address_region: 'ON', postal_code: 'M5V 2T6', address_country: 'CA' };
    expect(titles(await put(c.id, { ...cart({ id: p }), fulfillment: shipTo(ca) }))).toEqual(['Canada Post']);
    const fr = await put(c.id, { ...cart({ id: p }), fulfillment: shipTo({ ...ADDRESS, address_country: 'FR', postal_code: '75001' }) });
    expect(titles(fr)).toEqual([]);
    expect(fr.messages).toContainEqual(expect.objectContaining({ type: 'error', code: 'region_restricted', severity: 'recoverable' }));
  });

  test('free shipping over an amount: a method with free_over_amount costs nothing once the items reach it', async () => {
    const other = await ucpWorld();
    try {
      const q = await item(other.h);
      await other.h.call('POST', '/shipping/zones', {
        name: 'US',
        countries: ['US'],
        methods: [{ name: 'Ground', rate_type: 'flat', amount: 7, free_over_amount: 100 }],
      });
      const small = (await other.ucp('POST', CO, { ...cart({ id: q, quantity: 2 }), fulfillment: shipTo(ADDRESS) })).body;
      expect(total(expectUcp('checkout', small), 'fulfillment')).toBe(700);
      const big = (await other.ucp('POST', CO, { ...cart({ id: q, quantity: 4 }), fulfillment: shipTo(ADDRESS) })).body;
      expect(total(expectUcp('checkout', big), 'fulfillment')).toBe(0);
    } finally {
      other.agent.stop();
    }
  });
});

describe('validation and invalid input', () => {
  test('an out-of-stock item, more than the stock, and an unknown item are messages on a session (200/201), never an order', async () => {
    const none = await item(w.h, { stock_quantity: 0 });
    const c = await create({ ...cart({ id: none }), buyer: BUYER, fulfillment: shipTo(ADDRESS) });
    expect(c.status).toBe('incomplete');
    expect(c.messages).toContainEqual(expect.objectContaining({ type: 'error', code: 'out_of_stock', path: '$.line_items[0]' }));
    const few = await item(w.h, { stock_quantity: 2 });
    const u = await put(c.id, { ...cart({ id: few, quantity: 3 }), buyer: BUYER, fulfillment: shipTo(ADDRESS) });
    expect(u.messages).toContainEqual(expect.objectContaining({ code: 'out_of_stock' }));
    const unknown = await create(cart({ id: '00000000-0000-4000-8000-000000000000' }));
    expect(unknown.messages).toContainEqual(expect.objectContaining({ type: 'error', code: 'item_unavailable', path: '$.line_items[0]' }));
    const done = await w.ucp('POST', `${CO}/${c.id}/complete`, MANUAL);
    expect(done.status).toBe(200);
    expect(expectUcp('checkout', done.body)).toMatchObject({ status: 'incomplete' });
    expect(done.body.order).toBeUndefined();
  });

  test('complete without an address places no order: the session answers what is missing', async () => {
    const c = await create({ ...cart({ id: p }), buyer: BUYER });
    const r = await w.ucp('POST', `${CO}/${c.id}/complete`, MANUAL);
    expect(r.status).toBe(200);
    const d = expectUcp('checkout', r.body);
    expect(d.status).toBe('incomplete');
    expect(d.messages).toContainEqual(expect.objectContaining({ code: 'missing', path: '$.fulfillment.methods[0].destinations' }));
  });

  test('malformed requests are 400 invalid_request: not JSON, no line_items, a zero quantity, an item without id', async () => {
    for (const body of [
      '{not json',
      {},
      { line_items: [{ item: { id: p }, quantity: 0 }] },
      { line_items: [{ quantity: 1 }] },
      { line_items: 'all' },
    ]) {
      const r = await w.ucp('POST', CO, body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_request' });
    }
  });
});

describe('orders and webhooks', () => {
  async function placed(option?: 'Express') {
    const c = await create({ ...cart({ id: p, quantity: 2 }), buyer: BUYER, fulfillment: shipTo(ADDRESS) });
    const opt = option ? c.fulfillment.methods[0].groups[0].options.find((o: any) => o.title === option).id : undefined;
    if (opt) await put(c.id, { ...cart({ id: p, quantity: 2 }), buyer: BUYER, fulfillment: shipTo({ id: 'dest_1' }, opt) });
    const d = expectUcp('checkout', (await w.ucp('POST', `${CO}/${c.id}/complete`, MANUAL)).body);
    expect(d.status).toBe('completed');
    return d.order.id as string;
  }

  test('the order keeps the chosen option as its fulfillment expectation, to the buyer address', async () => {
    const id = await placed('Express');
    const o = expectUcp('order', (await w.ucp('GET', `/ucp/v1/orders/${id}`)).body);
    expect(o.fulfillment.expectations).toEqual([
      expect.objectContaining({
        method_type: 'shipping',
        description: 'Express',
        destination: expect.objectContaining({ street_address: '123 Main St', address_country: 'US' }),
      }),
    ]);
    expect(o.totals).toContainEqual({ type: 'fulfillment', amount: 1000 });
    expect(o.line_items[0]).toMatchObject({ quantity: { original: 2, total: 2, fulfilled: 0 }, status: 'processing' });
  });

  test("another agent, or a plain order's id, reads as not found", async () => {
    const id = await placed();
    const stranger = await (await import('../../../test/kit/ucp-agent')).fakeAgent();
    try {
      const r = await stranger.request(w.h.app, w.host, 'GET', `/ucp/v1/orders/${id}`);
      expect(r.status).toBe(404);
      expect(expectUcp('error', r.body).messages[0].code).toBe('not_found');
    } finally {
      stranger.stop();
    }
    const plain = (await w.h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }] })).body;
    expect((await w.ucp('GET', `/ucp/v1/orders/${plain.id}`)).status).toBe(404);
  });

  test('webhooks: order placed at completion, then each change (paid, shipped) as the full order, signed, retried until the agent answers 2xx', async () => {
    await takeQueued(w.h, 'checkout.ucp_order_webhook');
    w.agent.webhooks.length = 0;
    const id = await placed();
    const keys = expectUcp('business_profile', (await w.ucp('GET', '/.well-known/ucp', undefined, { sign: false })).body).signing_keys;
    const deliver = async () => {
      for (const reaction of await takeQueued(w.h, 'checkout.on')) await runJob(w.h, 'checkout.on', [reaction]);
      const jobs = await takeQueued(w.h, 'checkout.ucp_order_webhook');
      for (const j of jobs) await runJob(w.h, 'checkout.ucp_order_webhook', [j]);
      return jobs.length;
    };
    // The agent is down: the delivery fails (and pg-boss retries it), then succeeds.
    w.agent.setWebhookStatus(503);
    const first = await takeQueued(w.h, 'checkout.ucp_order_webhook');
    expect(first).toHaveLength(1);
    // The runner logs the failure and hands the job back to pg-boss for a retry; the retry is this same job.
    await runJob(w.h, 'checkout.ucp_order_webhook', first);
    expect(w.agent.webhooks).toHaveLength(1);
    w.agent.setWebhookStatus(200);
    await runJob(w.h, 'checkout.ucp_order_webhook', first);

    expect((await w.h.call('PATCH', `/orders/${id}`, { status: 'paid' })).status).toBe(200);
    await deliver();
    const shipped = await w.h.call('POST', '/fulfillments', { order_id: id, carrier: 'UPS', tracking_number: '1Z999' });
    expect(shipped.status).toBe(201);
    await deliver();
    const bodies = w.agent.webhooks.map((x) => JSON.parse(x.body));
    for (const b of bodies) expectUcp('order', b);
    expect(bodies[0].id).toBe(id);
    const last = bodies[bodies.length - 1];
    expect(last.fulfillment.events).toEqual([expect.objectContaining({ type: 'shipped', tracking_number: '1Z999', carrier: 'UPS' })]);
    expect(last.line_items[0]).toMatchObject({ quantity: { fulfilled: 2 }, status: 'fulfilled' });
    for (const hook of w.agent.webhooks) {
      const u = new URL(hook.url);
      await w.agent.verify({ method: 'POST', url: `https://${u.host}${u.pathname}`, headers: hook.headers, body: hook.body }, keys);
      expect(hook.headers.get('ucp-agent')).toEndWith(`${w.host}/.well-known/ucp"`);
    }
    // Webhook-Id names the event: the same id on a retry, another one for each change.
    const ids = w.agent.webhooks.map((x) => x.headers.get('webhook-id'));
    expect(ids[0]).toBe(ids[1]);
    expect(new Set(ids).size).toBe(ids.length - 1);
  });
});
