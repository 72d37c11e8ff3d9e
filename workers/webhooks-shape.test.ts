/**
 * What an endpoint receives (issue 21): `events: ["*"]` brings every event type, including one
 * registered after the endpoint subscribed; payloads keep the shape of the endpoint's api_version,
 * rendered per endpoint from the one stored event, with signatures over exactly the bytes sent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { createApp } from '../core/http/app';
import { LOCAL_HOSTS, makeServices } from '../core/http/services';
import { action, definePlugin, Input } from '../core/sdk';
import { createRegistry } from '../core/plugins/registry';
import { ADMIN_TOKEN, allPlugins, NO_LIMITS, type Harness } from '../test/kit/setup';
import { startReceiver } from '../test/kit/webhook-receiver';
import {
  deliverPending,
  deliveryIds,
  hooked,
  placeOrder,
  prepareWebhookTests,
  run,
  verifySpec,
  verifyStandard,
  type Receiver,
} from '../test/kit/webhooks';

const receivers: Receiver[] = [];
beforeAll(prepareWebhookTests, 120_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const Gadget = Type.Object({ object: Type.Literal('gadget'), id: Type.String(), name: Type.String() });
/** A plugin installed after the endpoint subscribed: its event type did not exist then. */
const gadgets = definePlugin({
  name: 'gadgets',
  category: 'commerce',
  description: 'Test-only: a plugin added later, emitting a new event type.',
  scopes: { read: ['products', 'products:read'], write: ['products', 'products:write'] },
  events: { 'gadget.made': Gadget },
  actions: {
    make_gadget: action({
      kind: 'write',
      description: 'Makes a gadget (nothing stored) and emits gadget.made.',
      input: Input({ name: Type.String() }),
      output: Gadget,
      rest: { method: 'POST', path: '/gadgets', status: 201 },
      emits: ['gadget.made'],
      handler: async (ctx, input) => {
        const g = { object: 'gadget' as const, id: crypto.randomUUID(), name: input.name };
        ctx.emit('gadget.made', g);
        return g;
      },
    }),
  },
});

/** The same database and store served by a build that also has the gadgets plugin. */
function upgradedServer(h: Harness) {
  const registry = createRegistry([...allPlugins, gadgets]);
  const app = createApp(
    makeServices({ db: h.db, clock: h.clock, registry, limits: NO_LIMITS, adminToken: ADMIN_TOKEN, allowedHosts: ['svc.test', ...LOCAL_HOSTS] }),
  );
  return (path: string, body: unknown) =>
    app.handle(
      new Request(`http://svc.test${h.base}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': h.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
}

describe('events: ["*"]', () => {
  test('an endpoint on "*" receives every type of every plugin; one on a single type only that one', async () => {
    const { h, rx } = await hooked(receivers, { body: { events: ['*'] } });
    const only = await startReceiver();
    receivers.push(only);
    expect((await h.call('POST', '/webhooks', { url: only.url(), events: ['customer.created'] })).status).toBe(201);
    await placeOrder(h); // product.created, then order.created
    expect((await h.call('POST', '/customers', { email: 'ada@example.com' })).status).toBe(201);
    await deliverPending(h);
    expect(rx.received.map((r) => r.body.type)).toEqual(['product.created', 'order.created', 'customer.created']);
    expect(only.received.map((r) => r.body.type)).toEqual(['customer.created']);
  });

  test('a type registered after the endpoint subscribed is delivered to it', async () => {
    const { h, rx, ep } = await hooked(receivers, { body: { events: ['*'] } });
    expect(h.registry.events.has('gadget.made')).toBe(false);
    const res = await upgradedServer(h)('/gadgets', { name: 'sprocket' });
    expect(res.status).toBe(201);
    await deliverPending(h);
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0].body).toMatchObject({ type: 'gadget.made', data: { object: 'gadget', name: 'sprocket' } });
    expect(verifySpec(rx.received[0], ep.signing_secret)).toBe(true);
  });

  test('a disabled "*" endpoint queues no delivery and receives nothing', async () => {
    const { h, rx, ep } = await hooked(receivers, { body: { events: ['*'] } });
    await h.call('PATCH', `/webhooks/${ep.id}`, { is_active: false });
    await placeOrder(h);
    // The events themselves are kept (the audit trail reacts to every type); no delivery is made of them.
    expect(await deliveryIds(h)).toEqual([]);
    expect(rx.received).toHaveLength(0);
  });
});

describe('api_version', () => {
  test("one event, two endpoints: each gets its version's shape (v2025-11-01 calls the order number `number`), each signed over the bytes it got", async () => {
    const { h, rx: old, ep: oldEp } = await hooked(receivers, { headers: { 'X-API-Version': 'v2025-11-01' } });
    expect(oldEp.api_version).toBe('v2025-11-01');
    const latest = await startReceiver();
    receivers.push(latest);
    const latestEp = (await h.call('POST', '/webhooks', { url: latest.url(), events: ['order.created'] })).body;
    const order = await placeOrder(h);
    await deliverPending(h);
    const [a] = old.received;
    const [b] = latest.received;
    expect(a.headers['webhook-id']).toBe(b.headers['webhook-id']);
    expect(a.body).toMatchObject({ id: b.body.id, object: 'event', type: 'order.created', created_at: b.body.created_at });
    expect(a.body.data).toMatchObject({ object: 'order', id: order.id, number: order.order_number });
    expect(a.body.data).not.toHaveProperty('order_number');
    expect(b.body.data).toMatchObject({ object: 'order', id: order.id, order_number: order.order_number });
    expect(b.body.data).not.toHaveProperty('number');
    for (const [r, secret] of [
      [a, oldEp.signing_secret],
      [b, latestEp.signing_secret],
    ]) {
      expect(verifySpec(r, secret)).toBe(true);
      expect(verifyStandard(r, secret)).toBe(true);
    }
    // Stored once, in the latest shape.
    const [stored] = await h.db.query('SELECT body FROM events WHERE id = $1', [a.body.id]);
    expect(JSON.parse(stored.body).data.order_number).toBe(order.order_number);
  });

  test('every retry sends the same bytes; after PATCH api_version the next attempt has the new shape', async () => {
    const { h, rx, ep } = await hooked(receivers, { headers: { 'X-API-Version': 'v2025-11-01' }, respond: (_r, n) => (n <= 2 ? 500 : 200) });
    await placeOrder(h);
    const [id] = await deliveryIds(h);
    await run(h, id);
    h.clock.advance(30_000);
    await run(h, id);
    expect(rx.received[0].raw).toBe(rx.received[1].raw);
    expect(rx.received[0].body.data).toHaveProperty('number');
    // The delivery log shows the request body: the bytes the receiver got, in the endpoint's shape.
    const logged = async () => (await h.call('GET', `/webhooks/${ep.id}/deliveries`)).body.data[0];
    expect((await logged()).request_body).toBe(rx.received[0].raw);
    expect((await h.call('PATCH', `/webhooks/${ep.id}`, { api_version: 'v2026-03-07' })).body.api_version).toBe('v2026-03-07');
    h.clock.advance(120_000);
    expect((await run(h, id)).outcome).toBe('succeeded');
    expect(rx.received[2].body.data).toHaveProperty('order_number');
    expect(rx.received[2].body.data).not.toHaveProperty('number');
    expect(verifySpec(rx.received[2], ep.signing_secret)).toBe(true);
    expect((await logged()).request_body).toBe(rx.received[2].raw);
  });

  test("an endpoint on a version that has since been retired keeps receiving that version's shape", async () => {
    const { h, rx } = await hooked(receivers, { body: { api_version: 'v2025-11-01' } });
    h.clock.set('2026-08-01T00:00:00Z'); // v2025-11-01 retired on 2026-07-15
    const order = await placeOrder(h);
    await deliverPending(h);
    expect(rx.received[0].body.data).toMatchObject({ id: order.id, number: order.order_number });
  });
});
