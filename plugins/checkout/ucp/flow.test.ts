import { afterAll, beforeAll, expect, test } from 'bun:test';
import { runJob, takeQueued } from '../../../test/kit/jobs';
import { ADDRESS, BUYER, cart, item, MANUAL, ucpWorld, type UcpWorld } from '../../../test/kit/ucp';
import { expectUcp } from '../../../test/kit/ucp-schemas';

let w: UcpWorld;
beforeAll(async () => {
  w = await ucpWorld();
});
afterAll(() => w.stop());

const CO = '/ucp/v1/checkout-sessions';

test('/.well-known/ucp is the store business profile: REST and MCP endpoints on its host, capabilities, the manual handler, a P-256 key; cacheable', async () => {
  const r = await w.ucp('GET', '/.well-known/ucp', undefined, { sign: false });
  expect(r.status).toBe(200);
  expect(r.headers.get('cache-control')).toContain('public');
  const doc = expectUcp('business_profile', r.body);
  expect(doc.ucp.version).toBe('2026-04-08');
  const endpoints = doc.ucp.services['dev.ucp.shopping'].map((s: any) => [s.transport, s.endpoint]);
  expect(endpoints).toEqual([
    ['rest', `http://${w.host}/ucp/v1`],
    ['mcp', `http://${w.host}/ucp/mcp`],
  ]);
  expect(Object.keys(doc.ucp.capabilities)).toEqual(
    expect.arrayContaining(['dev.ucp.shopping.checkout', 'dev.ucp.shopping.fulfillment', 'dev.ucp.shopping.discount', 'dev.ucp.shopping.order']),
  );
  expect(doc.ucp.payment_handlers['dev.svc.manual'][0].id).toBe('manual');
  expect(doc.signing_keys).toEqual([expect.objectContaining({ kty: 'EC', crv: 'P-256', kid: 'svc-1' })]);
  expect(doc.signing_keys[0].d).toBeUndefined();
});

test('a signed agent creates, updates (buyer, address, discount) and completes a checkout; the order webhook verifies against /.well-known/ucp', async () => {
  const p = await item(w.h);
  const created = await w.ucp('POST', CO, cart({ id: p, quantity: 2 }));
  expect(created.status).toBe(201);
  const c = expectUcp('checkout', created.body);
  expect(c).toMatchObject({ status: 'incomplete', currency: 'USD', line_items: [{ item: { id: p, price: 2500 }, quantity: 2 }] });
  expect(c.totals).toEqual([
    { type: 'subtotal', amount: 5000 },
    { type: 'total', amount: 5000 },
  ]);
  expect(c.messages.map((m: any) => m.path)).toContain('$.buyer.email');
  expect(c.ucp.capabilities['dev.ucp.shopping.checkout']).toEqual([{ version: '2026-04-08' }]);

  const updated = await w.ucp('PUT', `${CO}/${c.id}`, {
    ...cart({ id: p, quantity: 2 }),
    buyer: BUYER,
    fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS] }] },
  });
  expect(updated.status).toBe(200);
  const u = expectUcp('checkout', updated.body);
  expect(u.status).toBe('ready_for_complete');
  expect(u.buyer).toEqual({ email: BUYER.email, first_name: 'Jane', last_name: 'Doe' });
  expect(u.fulfillment.methods[0].destinations[0]).toMatchObject({ id: 'dest_1', street_address: '123 Main St', address_country: 'US' });

  const done = await w.ucp('POST', `${CO}/${c.id}/complete`, MANUAL);
  expect(done.status).toBe(200);
  const d = expectUcp('checkout', done.body);
  expect(d.status).toBe('completed');
  expect(d.order.id).toBeString();
  // The complete answer is signed with the store's key (@status, content-digest, content-type).
  const profile = (await w.ucp('GET', '/.well-known/ucp', undefined, { sign: false })).body;
  await w.agent.verify({ status: 200, headers: done.headers, body: done.raw }, profile.signing_keys);

  // The order the agent placed, through get_order, and the svc order behind it (channel, agent).
  const order = await w.ucp('GET', `/ucp/v1/orders/${d.order.id}`);
  expect(order.status).toBe(200);
  expect(expectUcp('order', order.body)).toMatchObject({ id: d.order.id, checkout_id: c.id, currency: 'USD' });
  const svcOrder = (await w.h.call('GET', `/orders/${d.order.id}`)).body;
  expect(svcOrder).toMatchObject({ channel: 'ucp', status: 'pending', agent: { protocol: 'ucp', profile_url: w.agent.profileUrl } });

  // The webhook job: a signed POST of the full order to the profile's webhook_url.
  const jobs = await takeQueued(w.h, 'checkout.ucp_order_webhook');
  expect(jobs).toHaveLength(1);
  await runJob(w.h, 'checkout.ucp_order_webhook', jobs);
  expect(w.agent.webhooks).toHaveLength(1);
  const hook = w.agent.webhooks[0];
  expect(hook.headers.get('ucp-agent')).toBe(`profile="http://${w.host}/.well-known/ucp"`);
  expect(hook.headers.get('webhook-id')).toBe(`order_created_${d.order.id}`);
  const url = new URL(hook.url);
  await w.agent.verify({ method: 'POST', url: `https://${url.host}${url.pathname}`, headers: hook.headers, body: hook.body }, profile.signing_keys);
  expect(expectUcp('order', JSON.parse(hook.body))).toMatchObject({ id: d.order.id, event_id: `order_created_${d.order.id}` });
});

test('rotating the signing key: the new key signs from then on, the old stays published for 7 days, then leaves', async () => {
  const before = await w.h.call('GET', '/agentic/ucp/signing-keys');
  expect(before.status).toBe(200);
  expect(before.body.data).toEqual([expect.objectContaining({ object: 'ucp_signing_key', kid: 'svc-1', signing: true, retires_at: null })]);
  expect(before.body.data[0].public_jwk.d).toBeUndefined();

  const rotated = await w.h.call('POST', '/agentic/ucp/signing-keys/rotate', {});
  expect(rotated.status).toBe(200);
  const [next, old] = rotated.body.data;
  expect(next).toMatchObject({ kid: 'svc-2', signing: true, retires_at: null });
  expect(old).toMatchObject({ kid: 'svc-1', signing: false });
  expect(new Date(old.retires_at).getTime() - w.h.clock.now().getTime()).toBe(7 * 86_400_000);

  // Both are published; what svc signs now verifies with the new key alone.
  const profile = (await w.ucp('GET', '/.well-known/ucp', undefined, { sign: false })).body;
  expect(profile.signing_keys.map((k: any) => k.kid)).toEqual(['svc-2', 'svc-1']);
  const p = await item(w.h);
  const c = (await w.ucp('POST', CO, { ...cart({ id: p }), buyer: BUYER, fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS] }] } }))
    .body;
  const done = await w.ucp('POST', `${CO}/${c.id}/complete`, MANUAL);
  expect(done.status).toBe(200);
  expect(done.headers.get('signature-input')).toContain('keyid="svc-2"');
  await w.agent.verify({ status: 200, headers: done.headers, body: done.raw }, [profile.signing_keys[0]]);

  // After the grace period the old key is gone from the profile and the list.
  w.h.clock.advance(7 * 86_400_000 + 1000);
  const later = await w.h.call('GET', '/agentic/ucp/signing-keys');
  expect(later.body.data.map((k: any) => k.kid)).toEqual(['svc-2']);
  // Rotating takes platform:write.
  const reader = await w.h.newKey(['platform:read']);
  expect((await w.h.call('POST', '/agentic/ucp/signing-keys/rotate', {}, { 'x-api-key': reader })).status).toBe(403);
});
