/** Fulfilment (issue 46): shipping an order's units, its status, the PATCH shortcut, refunds, races. */
import { describe, expect, test } from 'bun:test';
import { backend } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const mkProduct = async (h: Harness, retail = 10) =>
  (await h.call('POST', '/products', product({ pricing_data: { retail }, stock_quantity: 1000 }))).body.id as string;

/** A paid order of `quantities` units, one line per product. */
async function paidOrder(h: Harness, ...quantities: number[]) {
  const line_items = [];
  for (const quantity of quantities) line_items.push({ product_id: await mkProduct(h), quantity });
  const r = await h.call('POST', '/orders', { line_items, status: 'paid' });
  expect(r.status).toBe(201);
  return r.body;
}

const ship = (h: Harness, order_id: string, line_items?: { line_item_id: string; quantity: number }[], extra: object = {}) =>
  h.call('POST', '/fulfillments', { order_id, ...(line_items ? { line_items } : {}), carrier: 'UPS', tracking_number: '1Z1', ...extra });

const subscribe = (h: Harness) =>
  h.call('POST', '/webhooks', {
    url: 'https://hooks.example.com/f',
    events: ['order.fulfilled', 'order.updated', 'fulfillment.created', 'fulfillment.updated'],
  });
const eventsOf = async (h: Harness, type: string) =>
  (await h.db.query('SELECT body FROM events WHERE store_id = $1 ORDER BY created_at', [h.store.id]))
    .map((e) => JSON.parse(e.body))
    .filter((e) => e.type === type);

describe('fulfilments', () => {
  test('shipping part of an order leaves it paid and partially_fulfilled; the rest makes it fulfilled and emits order.fulfilled once', async () => {
    const h = await setup();
    await subscribe(h);
    const o = await paidOrder(h, 3, 2);
    const [a, b] = o.line_items;
    expect(o).toMatchObject({ fulfillment_status: 'unfulfilled', fulfillments: [] });
    const first = await ship(h, o.id, [{ line_item_id: a.id, quantity: 2 }], { tracking_url: 'https://ups.example/1Z1' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      object: 'fulfillment',
      order_id: o.id,
      carrier: 'UPS',
      tracking_number: '1Z1',
      tracking_url: 'https://ups.example/1Z1',
      line_items: [{ line_item_id: a.id, quantity: 2 }],
    });
    const mid = (await h.call('GET', `/orders/${o.id}`)).body;
    expect(mid).toMatchObject({ status: 'paid', fulfillment_status: 'partially_fulfilled', fulfillments: [first.body] });
    expect((await eventsOf(h, 'order.updated')).at(-1).data.fulfillment_status).toBe('partially_fulfilled');
    // No lines: every unit left (1 of a, 2 of b).
    const rest = await ship(h, o.id);
    expect(rest.body.line_items).toEqual([
      { line_item_id: a.id, quantity: 1 },
      { line_item_id: b.id, quantity: 2 },
    ]);
    const done = (await h.call('GET', `/orders/${o.id}`)).body;
    expect(done).toMatchObject({ status: 'fulfilled', fulfillment_status: 'fulfilled' });
    expect(done.fulfillments.map((f: any) => f.id)).toEqual([first.body.id, rest.body.id]);
    const fulfilled = await eventsOf(h, 'order.fulfilled');
    expect(fulfilled.length).toBe(1);
    expect(fulfilled[0].data).toMatchObject({ id: o.id, status: 'fulfilled', fulfillment_status: 'fulfilled' });
    // Both made at the test clock's one instant: stored order among equal times is not defined.
    expect((await eventsOf(h, 'fulfillment.created')).map((e) => e.data.id).sort()).toEqual([first.body.id, rest.body.id].sort());
  });

  test('more units than are left is 409 fulfillment_exceeds_quantity naming the line; repeats of a line add up; nothing left names order_id', async () => {
    const h = await setup();
    const o = await paidOrder(h, 2);
    const line = o.line_items[0].id;
    const over = await ship(h, o.id, [{ line_item_id: line, quantity: 3 }]);
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'fulfillment_exceeds_quantity', param: 'line_items.0.quantity' });
    const twice = await ship(h, o.id, [
      { line_item_id: line, quantity: 1 },
      { line_item_id: line, quantity: 2 },
    ]);
    expect(twice.body.error).toMatchObject({ code: 'fulfillment_exceeds_quantity', param: 'line_items.1.quantity' });
    expect((await h.call('GET', `/orders/${o.id}`)).body.fulfillments).toEqual([]);
    expect((await ship(h, o.id, [{ line_item_id: line, quantity: 1 }])).status).toBe(201);
    expect((await ship(h, o.id, [{ line_item_id: line, quantity: 2 }])).body.error.message).toContain('1 of 2 units left');
    // Paid but fully refunded before shipping: nothing to ship.
    const refunded = await paidOrder(h, 1);
    expect((await h.call('POST', `/orders/${refunded.id}/refunds`, {})).status).toBe(201);
    const none = await ship(h, refunded.id);
    expect(none.status).toBe(409);
    expect(none.body.error).toMatchObject({ code: 'fulfillment_exceeds_quantity', param: 'order_id' });
  });

  test('an order that is not paid is 409 conflict_error naming order_id; unknown or foreign ids are 404', async () => {
    const h = await setup();
    const p = await mkProduct(h);
    const pending = (await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }] })).body;
    const cancelled = (await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }] })).body;
    await h.call('POST', `/orders/${cancelled.id}/cancel`, {});
    const done = await paidOrder(h, 1);
    expect((await ship(h, done.id)).status).toBe(201);
    for (const id of [pending.id, cancelled.id, done.id]) {
      const r = await ship(h, id);
      expect({ status: r.status, code: r.body.error.code, param: r.body.error.param }).toEqual({
        status: 409,
        code: 'conflict_error',
        param: 'order_id',
      });
    }
    const other = await setup();
    const theirs = await paidOrder(other, 1);
    for (const id of [theirs.id, crypto.randomUUID()]) {
      const r = await ship(h, id);
      expect({ status: r.status, param: r.body.error.param }).toEqual({ status: 404, param: 'order_id' });
      expect((await h.call('GET', `/fulfillments/status?order_id=${id}`)).status).toBe(404);
    }
    const mine = await paidOrder(h, 1);
    const stray = await ship(h, mine.id, [{ line_item_id: theirs.line_items[0].id, quantity: 1 }]);
    expect({ status: stray.status, param: stray.body.error.param }).toEqual({ status: 404, param: 'line_items.0.line_item_id' });
    expect((await other.call('GET', `/orders/${theirs.id}`)).body.fulfillments).toEqual([]);
  });

  test('get_status shows each line shipped, refunded and left, with the fulfilments', async () => {
    const h = await setup();
    const o = await paidOrder(h, 4);
    const line = o.line_items[0].id;
    const f = (await ship(h, o.id, [{ line_item_id: line, quantity: 1 }])).body;
    await h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: line, quantity: 1 }] });
    const s = await h.call('GET', `/fulfillments/status?order_id=${o.id}`);
    expect(s.body).toEqual({
      object: 'fulfillment_status',
      order_id: o.id,
      status: 'partially_fulfilled',
      order_status: 'paid',
      lines: [{ line_item_id: line, quantity: 4, quantity_refunded: 1, quantity_fulfilled: 1, quantity_remaining: 2 }],
      fulfillments: [f],
    });
  });

  test('refunding the last unshipped units fulfils the order (order.fulfilled); shipping counts only units not refunded', async () => {
    const h = await setup();
    await subscribe(h);
    const o = await paidOrder(h, 3);
    const line = o.line_items[0].id;
    await ship(h, o.id, [{ line_item_id: line, quantity: 1 }]);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: line, quantity: 2 }] });
    expect(r.status).toBe(201);
    expect((await h.call('GET', `/orders/${o.id}`)).body).toMatchObject({ status: 'fulfilled', fulfillment_status: 'fulfilled' });
    expect((await eventsOf(h, 'order.fulfilled')).length).toBe(1);
    // Refunded first, then shipped: the order is fulfilled once the units not refunded ship.
    const o2 = await paidOrder(h, 3);
    await h.call('POST', `/orders/${o2.id}/refunds`, { lines: [{ line_item_id: o2.line_items[0].id, quantity: 1 }] });
    expect((await ship(h, o2.id)).body.line_items).toEqual([{ line_item_id: o2.line_items[0].id, quantity: 2 }]);
    expect((await h.call('GET', `/orders/${o2.id}`)).body.status).toBe('fulfilled');
  });

  test('PATCH status fulfilled ships every unit left of a paid order; from pending it is 409', async () => {
    const h = await setup();
    await subscribe(h);
    const o = await paidOrder(h, 3, 1);
    const [a, b] = o.line_items;
    await ship(h, o.id, [{ line_item_id: a.id, quantity: 1 }]);
    const r = await h.call('PATCH', `/orders/${o.id}`, { status: 'fulfilled' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'fulfilled', fulfillment_status: 'fulfilled' });
    expect(r.body.fulfillments[1]).toMatchObject({
      carrier: null,
      tracking_number: null,
      line_items: [
        { line_item_id: a.id, quantity: 2 },
        { line_item_id: b.id, quantity: 1 },
      ],
    });
    expect((await eventsOf(h, 'order.fulfilled')).length).toBe(1);
    const pending = (await h.call('POST', '/orders', { line_items: [{ product_id: await mkProduct(h), quantity: 1 }] })).body;
    const refused = await h.call('PATCH', `/orders/${pending.id}`, { status: 'fulfilled' });
    expect({ status: refused.status, code: refused.body.error.code, param: refused.body.error.param }).toEqual({
      status: 409,
      code: 'conflict_error',
      param: 'status',
    });
    expect((await h.call('GET', `/orders/${pending.id}`)).body).toMatchObject({ status: 'pending', fulfillments: [] });
  });

  test('update_tracking changes or clears tracking and emits fulfillment.updated; another store gets 404', async () => {
    const h = await setup();
    await subscribe(h);
    const o = await paidOrder(h, 1);
    const f = (await ship(h, o.id, undefined, { tracking_url: 'https://ups.example/1Z1' })).body;
    h.clock.advance(1000);
    const r = await h.call('PATCH', `/fulfillments/${f.id}`, { carrier: 'DHL', tracking_number: 'JD1', tracking_url: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: f.id, carrier: 'DHL', tracking_number: 'JD1', tracking_url: null, line_items: f.line_items });
    expect((await h.call('GET', `/fulfillments/${f.id}`)).body).toEqual(r.body);
    expect((await eventsOf(h, 'fulfillment.updated')).map((e) => e.data)).toEqual([r.body]);
    expect((await h.call('PATCH', `/fulfillments/${f.id}`, { tracking_url: 'ftp://x' })).body.error.param).toBe('tracking_url');
    const other = await setup();
    expect((await other.call('PATCH', `/fulfillments/${f.id}`, { carrier: 'X' })).status).toBe(404);
    expect((await other.call('GET', `/fulfillments/${f.id}`)).status).toBe(404);
  });

  test('scopes: orders:write ships and reads; orders:read reads only; a commerce key is refused', async () => {
    const h = await setup();
    const o = await paidOrder(h, 2);
    const writer = { 'x-api-key': await h.newKey(['orders:write']) };
    const reader = { 'x-api-key': await h.newKey(['orders:read']) };
    const other = { 'x-api-key': await h.newKey(['commerce']) };
    expect(
      (await h.call('POST', '/fulfillments', { order_id: o.id, line_items: [{ line_item_id: o.line_items[0].id, quantity: 1 }] }, writer)).status,
    ).toBe(201);
    expect((await h.call('GET', `/fulfillments/status?order_id=${o.id}`, undefined, writer)).status).toBe(200);
    expect((await h.call('GET', `/fulfillments/status?order_id=${o.id}`, undefined, reader)).status).toBe(200);
    expect((await h.call('POST', '/fulfillments', { order_id: o.id }, reader)).status).toBe(403);
    expect((await h.call('GET', `/fulfillments/status?order_id=${o.id}`, undefined, other)).status).toBe(403);
  });

  test('over MCP: fulfillment tool ships an order', async () => {
    const h = await setup();
    const o = await paidOrder(h, 1);
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'fulfillment', arguments: { action: 'create_fulfillment', order_id: o.id, carrier: 'UPS' } });
    const status: any = await client.callTool({ name: 'fulfillment_get_status', arguments: { order_id: o.id } });
    await client.close();
    expect(JSON.parse(out.content[0].text)).toMatchObject({ object: 'fulfillment', carrier: 'UPS', line_items: [{ quantity: 1 }] });
    expect(JSON.parse(status.content[0].text)).toMatchObject({ status: 'fulfilled', order_status: 'fulfilled' });
  });
});

describe('fulfilments under concurrency', () => {
  test.skipIf(backend !== 'postgres')(
    'on PostgreSQL (skipped on the embedded database: one transaction at a time): 50 parallel one-unit fulfilments of 10 units ship exactly 10, fulfil the order once',
    async () => {
      const h = await setup();
      await subscribe(h);
      const o = await paidOrder(h, 10);
      const line = o.line_items[0].id;
      const results = await Promise.all(Array.from({ length: 50 }, () => ship(h, o.id, [{ line_item_id: line, quantity: 1 }])));
      expect(results.filter((r) => r.status === 201).length).toBe(10);
      for (const r of results.filter((r) => r.status !== 201)) {
        expect(r.status).toBe(409);
        // Either the units ran out, or the order had already become fulfilled.
        expect(['fulfillment_exceeds_quantity', 'conflict_error']).toContain(r.body.error.code);
      }
      const after = (await h.call('GET', `/orders/${o.id}`)).body;
      expect(after).toMatchObject({ status: 'fulfilled', fulfillment_status: 'fulfilled' });
      expect(after.fulfillments.length).toBe(10);
      expect((await eventsOf(h, 'order.fulfilled')).length).toBe(1);
    },
  );

  test.skipIf(backend !== 'postgres')(
    'on PostgreSQL (skipped on the embedded database): 50 parallel fulfilments, refunds and PATCH fulfilled never ship a refunded unit nor deadlock',
    async () => {
      const h = await setup();
      const o = await paidOrder(h, 25);
      const line = o.line_items[0].id;
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          i === 49
            ? h.call('PATCH', `/orders/${o.id}`, { status: 'fulfilled' })
            : i % 2
              ? ship(h, o.id, [{ line_item_id: line, quantity: 1 }])
              : h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: line, quantity: 1 }] }),
        ),
      );
      for (const r of results) expect([200, 201, 409]).toContain(r.status);
      const s = (await h.call('GET', `/fulfillments/status?order_id=${o.id}`)).body;
      const [l] = s.lines;
      expect(l.quantity_fulfilled).toBeLessThanOrEqual(25);
      expect(l.quantity_refunded).toBe(results.filter((r, i) => i % 2 === 0 && i !== 49 && r.status === 201).length);
      expect(s.fulfillments.reduce((n: number, f: any) => n + f.line_items[0].quantity, 0)).toBe(l.quantity_fulfilled);
      expect(l.quantity_remaining).toBe(0);
      expect(s.order_status).toBe('fulfilled');
    },
  );
});
