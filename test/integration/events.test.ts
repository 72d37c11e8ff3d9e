import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { errors } from '../../core/errors';
import { action, definePlugin } from '../../core/plugins/contract';
import { Input } from '../../core/plugins/schema';
import { allPlugins, product, setup as setupAll, withoutStandingListeners, type Harness, type SetupOptions } from '../kit/setup';
import { createRegistry } from '../../core/plugins/registry';

/** SPEC 6.1's event types: the registered plugins must declare every one. */
const SPEC_EVENTS = [
  'order.created',
  'order.updated',
  'order.paid',
  'order.fulfilled',
  'order.cancelled',
  'product.created',
  'product.updated',
  'product.deleted',
  'customer.created',
  'customer.updated',
  'inventory.adjusted',
  'inventory.transferred',
  'checkout.completed',
  'agent.message',
];
// The outbox's rules, without the plugins that hear every store's events (test/kit/setup.ts).
const setup = (o: SetupOptions = {}) => setupAll({ plugins: withoutStandingListeners, ...o });
const EVENT_TYPES = [...createRegistry([...allPlugins]).events.keys()];

const HOOK = 'https://hooks.example.com/svc';

async function endpoint(h: Harness, events: string[]) {
  const r = await h.call('POST', '/webhooks', { url: HOOK, events });
  expect(r.status).toBe(201);
  return r.body;
}

/** The store's stored events as sent (parsed bodies), in a stable order. */
async function storedEvents(h: Harness) {
  const rows = await h.db.query<{ body: string }>('SELECT body FROM events WHERE store_id = $1 ORDER BY created_at, type', [h.store.id]);
  return rows.map((r) => JSON.parse(r.body));
}

const types = async (h: Harness) => (await storedEvents(h)).map((e) => e.type).sort();

async function deliveriesOf(h: Harness) {
  return h.db.query<{ id: string; endpoint_id: string; event_type: string }>(
    'SELECT id, endpoint_id, event_type FROM webhook_deliveries WHERE store_id = $1',
    [h.store.id],
  );
}

describe('domain events (transactional outbox)', () => {
  test('the registered plugins declare every SPEC 6.1 event type', () => {
    for (const t of SPEC_EVENTS) expect(EVENT_TYPES).toContain(t);
  });

  test('an action emitting a type no plugin declares fails the registry at boot, naming it', () => {
    const bad = definePlugin({
      name: 'liar',
      category: 'platform',
      scopes: { read: ['x'], write: ['x'] },
      actions: {
        poke: action({
          kind: 'write',
          description: 'Pokes something.',
          input: Input({}),
          output: Type.Object({}),
          emits: ['thing.poked'],
          handler: async () => ({}),
        }),
      },
    });
    expect(() => createRegistry([bad])).toThrow("liar.poke emits 'thing.poked', which no plugin declares in its events");
  });

  test('a store without webhook endpoints stores no events at all', async () => {
    const h = await setup();
    const p = (await h.call('POST', '/products', product())).body;
    await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] });
    await h.call('POST', '/customers', { email: 'a@example.com' });
    expect(await storedEvents(h)).toEqual([]);
  });

  test('an order placed through REST is stored as order.created with the SPEC 2.8 payload, with a delivery and a job per endpoint', async () => {
    const h = await setup();
    const a = await endpoint(h, ['order.created']);
    const b = await endpoint(h, ['order.created', 'order.paid']);
    await endpoint(h, ['product.created']);
    const p = (await h.call('POST', '/products', product({ pricing_data: { retail: 12.5 } }))).body;
    const order = (await h.call('POST', '/orders', { payment_method: 'card', line_items: [{ product_id: p.id, quantity: 2 }] })).body;
    const [evt] = (await storedEvents(h)).filter((e) => e.type === 'order.created');
    expect(evt).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      object: 'event',
      type: 'order.created',
      created_at: '2026-04-01T00:00:00.000Z',
      data: order,
    });
    expect(evt.data).toMatchObject({ object: 'order', id: order.id, order_number: '1001', status: 'pending', payment_method: 'card', total: 25 });
    const deliveries = (await deliveriesOf(h)).filter((d) => d.event_type === 'order.created');
    expect(deliveries.map((d) => d.endpoint_id).sort()).toEqual([a.id, b.id].sort());
    const jobs = await h.db.query(`SELECT data FROM pgboss.job WHERE name = 'core.webhooks' AND data->>'delivery_id' = ANY($1::text[])`, [
      deliveries.map((d) => d.id),
    ]);
    expect(jobs.map((j) => j.data.attempt)).toEqual([0, 0]);
  });

  test('only subscribed types are stored', async () => {
    const h = await setup();
    await endpoint(h, ['customer.created']);
    await h.call('POST', '/products', product());
    await h.call('POST', '/customers', { email: 'b@example.com' });
    expect(await types(h)).toEqual(['customer.created']);
  });

  test('every SPEC 6.1 event our plugins can cause is emitted, with id and object (inventory: product_id)', async () => {
    const h = await setup();
    await endpoint(h, [...EVENT_TYPES]);
    const p = (await h.call('POST', '/products', product({ stock_quantity: 20 }))).body;
    await h.call('PATCH', `/products/${p.id}`, { name: 'Renamed' });
    const c = (await h.call('POST', '/customers', { email: 'c@example.com' })).body;
    await h.call('PATCH', `/customers/${c.id}`, { first_name: 'Ada' });
    await h.call('POST', `/customers/${c.id}/enrich`);
    await h.call('POST', '/inventory/adjust', { product_id: p.id, delta: 5, reason: 'received' });
    const loc = (await h.call('POST', '/locations', { name: 'Backroom' })).body;
    const home = (await h.call('GET', `/inventory/${p.id}`)).body.levels[0].location_id;
    await h.call('POST', '/inventory/transfer', { product_id: p.id, from_location_id: home, to_location_id: loc.id, quantity: 3 });
    const o1 = (await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] })).body;
    await h.call('PATCH', `/orders/${o1.id}`, { status: 'paid' });
    await h.call('PATCH', `/orders/${o1.id}`, { status: 'fulfilled' });
    await h.call('PATCH', `/orders/${o1.id}`, { status: 'fulfilled' }); // no change: no event
    const o2 = (await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] })).body;
    await h.call('POST', `/orders/${o2.id}/cancel`);
    await h.call('DELETE', `/products/${p.id}`);

    const events = await storedEvents(h);
    expect(events.map((e) => e.type).sort()).toEqual(
      [
        'product.created',
        'product.updated',
        'customer.created',
        'customer.updated',
        'customer.updated',
        'inventory.adjusted',
        'inventory.transferred',
        'order.created',
        'order.updated',
        'order.paid',
        'order.updated',
        'order.fulfilled',
        'order.created',
        'order.updated',
        'order.cancelled',
        'product.deleted',
      ].sort(),
    );
    for (const e of events) {
      expect(e.data.id).toBeString();
      expect(e.data.object).toBeString();
    }
    const byType = (t: string) => events.filter((e) => e.type === t).map((e) => e.data);
    expect(byType('inventory.adjusted')[0]).toMatchObject({ object: 'inventory_adjustment', product_id: p.id, delta: 5, total: 25 });
    expect(byType('inventory.transferred')[0]).toMatchObject({
      object: 'inventory_transfer',
      product_id: p.id,
      from_location_id: home,
      to_location_id: loc.id,
      quantity: 3,
    });
    expect(byType('order.paid')[0]).toMatchObject({ id: o1.id, status: 'paid' });
    expect(byType('order.cancelled')[0]).toMatchObject({ id: o2.id, status: 'cancelled' });
    expect(byType('product.deleted')[0]).toEqual({ object: 'product', id: p.id, deleted: true, status: 'archived' });
    expect(byType('product.updated')[0]).toMatchObject({ object: 'product', name: 'Renamed' });
  });

  test('a change that is rolled back (an order refused for insufficient stock) stores and queues nothing', async () => {
    const h = await setup();
    await endpoint(h, ['order.created', 'product.updated']);
    const a = (await h.call('POST', '/products', product({ stock_quantity: 5 }))).body;
    const b = (await h.call('POST', '/products', product({ stock_quantity: 1 }))).body;
    const refused = await h.call('POST', '/orders', {
      line_items: [
        { product_id: a.id, quantity: 2 },
        { product_id: b.id, quantity: 3 },
      ],
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.body.error.code).toBe('insufficient_stock');
    const dupe = (await h.call('POST', '/products', product())).body;
    const conflict = await h.call('PATCH', `/products/${a.id}`, { sku: dupe.sku });
    expect(conflict.status).toBe(409);
    expect(await storedEvents(h)).toEqual([]);
    expect(await deliveriesOf(h)).toEqual([]);
    expect((await h.call('GET', `/products/${a.id}`)).body.stock_quantity).toBe(5);
  });

  test("stores are isolated: one store's endpoint never receives another store's events, nor can it be seen from there", async () => {
    const mine = await setup();
    const other = await setup();
    const ep = await endpoint(mine, [...EVENT_TYPES]);
    await other.call('POST', '/products', product());
    expect(await storedEvents(other)).toEqual([]);
    expect(await storedEvents(mine)).toEqual([]);
    expect((await other.call('GET', `/webhooks/${ep.id}`)).status).toBe(404);
    expect((await other.call('GET', `/webhooks/${ep.id}/deliveries`)).status).toBe(404);
    expect((await other.call('GET', '/webhooks')).body.data).toEqual([]);
    await mine.call('POST', '/products', product());
    const d = await deliveriesOf(mine);
    expect(d).toHaveLength(1);
    expect((await other.call('POST', `/webhooks/${ep.id}/deliveries/${d[0].id}/resend`)).status).toBe(404);
  });
});

describe('atomic actions and emit rules (fixture plugin)', () => {
  const Out = Type.Object({ object: Type.Literal('fixture'), id: Type.String() });
  const fixture = definePlugin({
    name: 'emit_fixture',
    category: 'platform',
    scopes: { read: ['products', 'products:read'], write: ['products', 'products:write'] },
    actions: {
      write_then_fail: action({
        kind: 'write',
        atomic: true,
        emits: ['product.created'],
        description: 'One statement, an event, then a failure.',
        input: Input({ key: Type.String(), fail: Type.Boolean() }),
        output: Out,
        rest: { method: 'POST', path: '/emit-fixture' },
        handler: async (ctx, { key, fail }) => {
          await ctx.db.query('INSERT INTO settings (key, value) VALUES ($1, $2)', [key, 'x']);
          ctx.emit('product.created', { object: 'product', id: key });
          if (fail) throw errors.conflict('Failing after the write.');
          return { object: 'fixture' as const, id: key };
        },
      }),
      undeclared: action({
        kind: 'write',
        description: 'Emits a type it does not declare.',
        input: Input({}),
        output: Out,
        rest: { method: 'POST', path: '/emit-fixture/undeclared' },
        handler: async (ctx) => {
          ctx.emit('order.created', { object: 'order', id: 'x' });
          return { object: 'fixture' as const, id: 'x' };
        },
      }),
    },
  });
  const setting = async (h: Harness, key: string) => (await h.db.query('SELECT 1 FROM settings WHERE key = $1', [key])).length;

  test('an atomic action stays one statement without subscribers, and runs in a transaction with its event when subscribed', async () => {
    const h = await setup({ extra: [fixture] });
    const k1 = `fixture-${crypto.randomUUID()}`;
    expect((await h.call('POST', '/emit-fixture', { key: k1, fail: true })).status).toBe(409);
    expect(await setting(h, k1)).toBe(1); // no transaction: the statement stood alone
    await endpoint(h, ['product.created']);
    const k2 = `fixture-${crypto.randomUUID()}`;
    expect((await h.call('POST', '/emit-fixture', { key: k2, fail: true })).status).toBe(409);
    expect(await setting(h, k2)).toBe(0); // in a transaction now: all undone, event included
    expect(await storedEvents(h)).toEqual([]);
    const k3 = `fixture-${crypto.randomUUID()}`;
    expect((await h.call('POST', '/emit-fixture', { key: k3, fail: false })).status).toBe(200);
    expect((await storedEvents(h)).map((e) => e.data.id)).toEqual([k3]);
    await h.db.query('DELETE FROM settings WHERE key = ANY($1::text[])', [[k1, k3]]);
  });

  test('emitting a type the action does not declare is a programming error (500), and nothing is stored', async () => {
    const h = await setup({ extra: [fixture] });
    await endpoint(h, ['order.created']);
    const r = await h.call('POST', '/emit-fixture/undeclared', {});
    expect(r.status).toBe(500);
    expect(await storedEvents(h)).toEqual([]);
  });
});
