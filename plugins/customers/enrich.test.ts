/** enrich_customer: order statistics and segment hints computed exactly from real orders placed through POST /orders. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

async function mkProduct(h: Harness, retail: number, currency = 'USD') {
  const r = await h.call('POST', '/products', product({ pricing_data: { retail, currency }, stock_quantity: 1000 }));
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function mkCustomer(h: Harness) {
  const r = await h.call('POST', '/customers', { email: `c.${crypto.randomUUID().slice(0, 8)}@example.com` });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

/** Places an order at the given instant (the harness clock), for quantity units of productId. */
async function order(h: Harness, at: string, customerId: string | undefined, productId: string, quantity = 1) {
  h.clock.set(at);
  const r = await h.call('POST', '/orders', { customer_id: customerId, line_items: [{ product_id: productId, quantity }] });
  expect(r.status).toBe(201);
  return r.body as { id: string; total: number; created_at: string };
}

async function enrich(h: Harness, id: string, at: string) {
  h.clock.set(at);
  const r = await h.call('POST', `/customers/${id}/enrich`);
  expect(r.status).toBe(200);
  return r.body;
}

describe('enrich_customer', () => {
  let h: Harness;
  let dime: string, lamp: string, euro: string, big: string;
  beforeAll(async () => {
    h = await setup({ now: '2026-01-01T00:00:00.000Z' });
    dime = await mkProduct(h, 0.1);
    lamp = await mkProduct(h, 19.99);
    euro = await mkProduct(h, 7.05, 'EUR');
    big = await mkProduct(h, 1000);
  });

  test('a customer without orders is a prospect with zero figures', async () => {
    const id = await mkCustomer(h);
    const c = await enrich(h, id, '2026-03-01T00:00:00.000Z');
    expect(c.enrichment).toEqual({
      orders_count: 0,
      total_spent: 0,
      average_order_value: 0,
      currency: null,
      by_currency: [],
      first_order_at: null,
      last_order_at: null,
      segments: ['prospect'],
      enriched_at: '2026-03-01T00:00:00.000Z',
    });
  });

  test("count, total, average and first/last order come exactly from the orders; cancelled and other customers' orders are left out", async () => {
    const id = await mkCustomer(h);
    const other = await mkCustomer(h);
    const o1 = await order(h, '2026-01-05T10:00:00.000Z', id, dime, 1); // 0.10
    await order(h, '2026-01-20T10:00:00.000Z', id, dime, 2); // 0.20: 0.1 + 0.2 must not become 0.30000000000000004
    const cancelled = await order(h, '2026-02-01T10:00:00.000Z', id, big, 1);
    expect((await h.call('POST', `/orders/${cancelled.id}/cancel`)).status).toBe(200);
    const o3 = await order(h, '2026-02-10T10:00:00.000Z', id, lamp, 1); // 19.99
    await order(h, '2026-02-11T10:00:00.000Z', other, big, 3);
    await order(h, '2026-02-12T10:00:00.000Z', undefined, big, 1);
    // A paid order counts as much as a pending one: only cancellation removes an order.
    expect((await h.call('PATCH', `/orders/${o3.id}`, { status: 'paid' })).status).toBe(200);

    const c = await enrich(h, id, '2026-03-15T00:00:00.000Z');
    expect(c.enrichment).toEqual({
      orders_count: 3,
      total_spent: 20.29,
      average_order_value: 6.76, // 2029 / 3 = 676.33 cents
      currency: 'USD',
      by_currency: [{ currency: 'USD', orders_count: 3, total_spent: 20.29, average_order_value: 6.76 }],
      first_order_at: o1.created_at,
      last_order_at: o3.created_at,
      segments: ['repeat'],
      enriched_at: '2026-03-15T00:00:00.000Z',
    });
    expect(c.updated_at).toBe('2026-03-15T00:00:00.000Z');
    // Stored on the customer: GET and the list show the same snapshot.
    expect((await h.call('GET', `/customers/${id}`)).body).toEqual(c);
    const listed = (await h.call('GET', `/customers?email=${encodeURIComponent(c.email)}`)).body.data[0];
    expect(listed.enrichment).toEqual(c.enrichment);
  });

  test('the average rounds half up to the cent', async () => {
    const penny = await mkProduct(h, 0.01);
    const id = await mkCustomer(h);
    await order(h, '2026-03-01T00:00:00.000Z', id, penny, 1);
    await order(h, '2026-03-02T00:00:00.000Z', id, penny, 2);
    const e = (await enrich(h, id, '2026-03-03T00:00:00.000Z')).enrichment;
    expect([e.total_spent, e.average_order_value]).toEqual([0.03, 0.02]); // 1.5 cents -> 2
  });

  test('a snapshot: enriching again after a new order updates the stored figures', async () => {
    const id = await mkCustomer(h);
    await order(h, '2026-03-01T00:00:00.000Z', id, lamp, 1);
    const first = await enrich(h, id, '2026-03-02T00:00:00.000Z');
    expect(first.enrichment).toMatchObject({ orders_count: 1, total_spent: 19.99, segments: ['new'] });
    await order(h, '2026-03-03T00:00:00.000Z', id, lamp, 2);
    expect((await h.call('GET', `/customers/${id}`)).body.enrichment).toEqual(first.enrichment);
    const second = await enrich(h, id, '2026-03-04T00:00:00.000Z');
    expect(second.enrichment).toMatchObject({ orders_count: 2, total_spent: 59.97, average_order_value: 29.99, segments: ['new', 'repeat'] });
  });

  test('segments: new within 30 days of the first order, vip from 1000.00 spent or 10 orders, lapsed after 180 quiet days', async () => {
    const vip = await mkCustomer(h);
    await order(h, '2026-03-01T00:00:00.000Z', vip, big, 1);
    expect((await enrich(h, vip, '2026-03-31T00:00:00.000Z')).enrichment.segments).toEqual(['new', 'vip']);
    expect((await enrich(h, vip, '2026-03-31T00:00:00.001Z')).enrichment.segments).toEqual(['vip']);
    expect((await enrich(h, vip, '2026-08-28T00:00:00.001Z')).enrichment.segments).toEqual(['vip', 'lapsed']);

    const almost = await mkCustomer(h);
    await order(h, '2026-03-01T00:00:00.000Z', almost, lamp, 50); // 999.50: not yet vip
    expect((await enrich(h, almost, '2026-05-01T00:00:00.000Z')).enrichment.segments).toEqual([]);

    const frequent = await mkCustomer(h);
    for (let i = 0; i < 10; i++) await order(h, `2026-01-${String(10 + i).padStart(2, '0')}T00:00:00.000Z`, frequent, dime, 1);
    expect((await enrich(h, frequent, '2026-05-01T00:00:00.000Z')).enrichment).toMatchObject({
      orders_count: 10,
      total_spent: 1,
      segments: ['repeat', 'vip'],
    });
  });

  test('a partial refund lowers total spent and the average (the order still counts), and can drop vip', async () => {
    const id = await mkCustomer(h);
    const bigOrder = await order(h, '2026-03-01T00:00:00.000Z', id, big, 1); // 1000.00
    await order(h, '2026-03-02T00:00:00.000Z', id, lamp, 1); // 19.99
    expect((await h.call('PATCH', `/orders/${bigOrder.id}`, { status: 'paid' })).status).toBe(200);
    const before = (await enrich(h, id, '2026-03-03T00:00:00.000Z')).enrichment;
    expect(before).toMatchObject({ orders_count: 2, total_spent: 1019.99, segments: ['new', 'repeat', 'vip'] });

    const refund = await h.call('POST', `/orders/${bigOrder.id}/refunds`, { amount: 250.5 });
    expect(refund.status).toBe(201);
    const after = (await enrich(h, id, '2026-03-04T00:00:00.000Z')).enrichment;
    expect(after).toMatchObject({
      orders_count: 2,
      total_spent: 769.49, // 1000.00 - 250.50 + 19.99
      average_order_value: 384.75, // 76949 / 2 = 38474.5 cents, half up
      currency: 'USD',
      segments: ['new', 'repeat'], // 769.49 is under the 1000.00 of vip
    });
    expect(after.by_currency).toEqual([{ currency: 'USD', orders_count: 2, total_spent: 769.49, average_order_value: 384.75 }]);
  });

  test('several currencies are never summed: figures are per currency, headed by the one most orders use', async () => {
    const id = await mkCustomer(h);
    await order(h, '2026-03-01T00:00:00.000Z', id, euro, 1); // 7.05 EUR
    await order(h, '2026-03-02T00:00:00.000Z', id, euro, 3); // 21.15 EUR
    await order(h, '2026-03-03T00:00:00.000Z', id, lamp, 1); // 19.99 USD
    const e = (await enrich(h, id, '2026-03-04T00:00:00.000Z')).enrichment;
    expect(e).toMatchObject({ orders_count: 3, currency: 'EUR', total_spent: 28.2, average_order_value: 14.1 });
    expect(e.by_currency).toEqual([
      { currency: 'EUR', orders_count: 2, total_spent: 28.2, average_order_value: 14.1 },
      { currency: 'USD', orders_count: 1, total_spent: 19.99, average_order_value: 19.99 },
    ]);
  });

  test('an order naming the customer id in upper case still counts', async () => {
    const id = await mkCustomer(h);
    await order(h, '2026-03-01T00:00:00.000Z', id.toUpperCase(), lamp, 1);
    expect((await enrich(h, id, '2026-03-02T00:00:00.000Z')).enrichment.orders_count).toBe(1);
  });

  test("another store cannot place orders for this store's customer, so none count", async () => {
    const id = await mkCustomer(h);
    const other = await setup({ now: '2026-03-01T00:00:00.000Z' });
    const theirs = await mkProduct(other, 5);
    const r = await other.call('POST', '/orders', { customer_id: id, line_items: [{ product_id: theirs, quantity: 1 }] });
    expect(r.status).toBe(404);
    expect(r.body.error.param).toBe('customer_id');
    expect((await enrich(h, id, '2026-03-02T00:00:00.000Z')).enrichment).toMatchObject({ orders_count: 0, segments: ['prospect'] });
  });
});
