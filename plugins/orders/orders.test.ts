/** Orders (SPEC 2.3, 3.4, 4.1, 7): exact totals, stock taken atomically, no overselling, lists. */
import { beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { product, setup, type Harness } from '../../test/kit/setup';
import { ISO_UTC, STATUSES, mkProduct, stockOf, lines, placeOrder, orderIn, orderCount } from '../../test/kit/orders';

describe('placing an order', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
  });

  test('create answers 201 with the SPEC 2.3 fields: pending, display number, total, customer, payment method, ISO UTC created_at', async () => {
    const p = await mkProduct(h, { name: 'Tea', pricing_data: { retail: 4.5 }, stock_quantity: 10 });
    const customer = (await h.call('POST', '/customers', { email: `tea-${crypto.randomUUID()}@example.com` })).body;
    const r = await h.call('POST', '/orders', { ...lines([p.id, 2]), customer_id: customer.id, payment_method: 'card' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'order', status: 'pending', total: 9, customer_id: customer.id, payment_method: 'card' });
    expect(r.body.order_number).toBeString();
    expect(r.body.created_at).toMatch(ISO_UTC);
    expect(r.body.line_items).toEqual([
      expect.objectContaining({ product_id: p.id, name: 'Tea', sku: p.sku, quantity: 2, unit_price: 4.5, total: 9 }),
    ]);
    expect((await h.call('GET', `/orders/${r.body.id}`)).body).toEqual(r.body);
  });

  test("a customer_id naming no customer of this store (unknown, malformed, another store's) is 404 naming customer_id, and nothing is taken", async () => {
    const p = await mkProduct(h, { stock_quantity: 3 });
    const other = await setup();
    const foreign = (await other.call('POST', '/customers', { email: 'foreign@example.com' })).body;
    for (const customer_id of ['cus_1', crypto.randomUUID(), foreign.id]) {
      const r = await h.call('POST', '/orders', { ...lines([p.id, 1]), customer_id });
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ type: 'not_found_error', code: 'resource_missing', param: 'customer_id' });
    }
    expect((await h.call('GET', `/products/${p.id}`)).body.stock_quantity).toBe(3);
  });

  test('order numbers are distinct and increase', async () => {
    const p = await mkProduct(h, { stock_quantity: 10 });
    const a = await placeOrder(h, lines([p.id, 1]));
    const b = await placeOrder(h, lines([p.id, 1]));
    expect(Number(b.order_number)).toBe(Number(a.order_number) + 1);
  });

  test('total is computed exactly: 3 x 19.99 = 59.97', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 19.99 }, stock_quantity: 10 });
    const o = await placeOrder(h, lines([p.id, 3]));
    expect(o.total).toBe(59.97);
    expect(o.line_items[0]).toMatchObject({ unit_price: 19.99, quantity: 3, total: 59.97 });
  });

  test('totals are exact in cents where float arithmetic is not: 0.10 + 0.20, 3 x 1.15, 100 x 0.07', async () => {
    const dime = await mkProduct(h, { pricing_data: { retail: 0.1 }, stock_quantity: 1000 });
    const twenty = await mkProduct(h, { pricing_data: { retail: 0.2 }, stock_quantity: 1000 });
    const oneFifteen = await mkProduct(h, { pricing_data: { retail: 1.15 }, stock_quantity: 1000 });
    const seven = await mkProduct(h, { pricing_data: { retail: 0.07 }, stock_quantity: 1000 });
    expect(0.1 + 0.2).not.toBe(0.3); // the trap being avoided
    expect((await placeOrder(h, lines([dime.id, 1], [twenty.id, 1]))).total).toBe(0.3);
    expect((await placeOrder(h, lines([oneFifteen.id, 3]))).total).toBe(3.45);
    expect((await placeOrder(h, lines([seven.id, 100]))).total).toBe(7);
    expect((await placeOrder(h, lines([dime.id, 3], [seven.id, 3], [oneFifteen.id, 1]))).total).toBe(1.66);
  });

  test('for any prices and quantities the total is the exact sum of cents', async () => {
    const cents = fc.integer({ min: 0, max: 10_000_000 });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(cents, fc.integer({ min: 1, max: 50 })), { minLength: 1, maxLength: 3 }), async (spec) => {
        const items: [string, number][] = [];
        for (const [c] of spec) items.push([(await mkProduct(h, { pricing_data: { retail: c / 100 }, stock_quantity: 100 })).id, 0]);
        spec.forEach(([, q], i) => (items[i][1] = q));
        const o = await placeOrder(h, lines(...items));
        const expected = spec.reduce((s, [c, q]) => s + c * q, 0);
        expect(o.total).toBe(expected / 100);
        expect(o.line_items.map((l: any) => l.total)).toEqual(spec.map(([c, q]) => (c * q) / 100));
      }),
      { numRuns: 40 },
    );
  });

  test('an order takes its stock: each product goes down by its quantity, reaching out_of_stock at 0', async () => {
    const a = await mkProduct(h, { stock_quantity: 5 });
    const b = await mkProduct(h, { stock_quantity: 9 });
    await placeOrder(h, lines([a.id, 5], [b.id, 2]));
    const ga = (await h.call('GET', `/products/${a.id}`)).body;
    expect(ga).toMatchObject({ stock_quantity: 0, stock_status: 'out_of_stock' });
    expect(await stockOf(h, b.id)).toBe(7);
  });

  test('the same product on two lines is checked and taken as one quantity', async () => {
    const p = await mkProduct(h, { stock_quantity: 5 });
    const r = await h.call('POST', '/orders', lines([p.id, 3], [p.id, 3]));
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('insufficient_stock');
    expect(await stockOf(h, p.id)).toBe(5);
    const ok = await placeOrder(h, lines([p.id, 2], [p.id, 3]));
    expect(ok.total).toBe(99.95);
    expect(await stockOf(h, p.id)).toBe(0);
  });

  test('short stock is 409 insufficient_stock naming the line, and nothing changes: no order, no stock taken, no number used', async () => {
    const plenty = await mkProduct(h, { stock_quantity: 50 });
    const scarce = await mkProduct(h, { stock_quantity: 3 });
    const last = await placeOrder(h, lines([plenty.id, 1]));
    const before = await orderCount(h);
    const r = await h.call('POST', '/orders', lines([plenty.id, 2], [scarce.id, 4]));
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'insufficient_stock', param: 'line_items.1.product_id' });
    expect(await stockOf(h, plenty.id)).toBe(49);
    expect(await stockOf(h, scarce.id)).toBe(3);
    expect(await orderCount(h)).toBe(before);
    const next = await placeOrder(h, lines([scarce.id, 3]));
    expect(Number(next.order_number)).toBe(Number(last.order_number) + 1);
  });

  test('a draft product cannot be ordered: 400 naming line_items.N.product_id, nothing taken', async () => {
    const ok = await mkProduct(h, { stock_quantity: 10 });
    const draft = await mkProduct(h, { status: 'draft', stock_quantity: 10 });
    const r = await h.call('POST', '/orders', lines([ok.id, 1], [draft.id, 1]));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param: 'line_items.1.product_id' });
    expect(await stockOf(h, ok.id)).toBe(10);
    expect(await stockOf(h, draft.id)).toBe(10);
  });

  test("an unknown, archived or other store's product is 404 naming line_items.N.product_id", async () => {
    const ok = await mkProduct(h, { stock_quantity: 10 });
    const archived = await mkProduct(h, { stock_quantity: 10 });
    await h.call('DELETE', `/products/${archived.id}`);
    const other = await setup();
    const foreign = (await other.call('POST', '/products', product({ stock_quantity: 10 }))).body;
    for (const missing of [crypto.randomUUID(), archived.id, foreign.id]) {
      const r = await h.call('POST', '/orders', lines([ok.id, 1], [ok.id, 1], [missing, 1]));
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ type: 'not_found_error', code: 'resource_missing', param: 'line_items.2.product_id' });
    }
    expect(await stockOf(h, ok.id)).toBe(10);
    expect(await stockOf(other, foreign.id)).toBe(10);
  });

  test('an order must have line items with positive whole quantities (400 naming the field)', async () => {
    const p = await mkProduct(h, { stock_quantity: 10 });
    const cases: [unknown, string][] = [
      [{}, 'line_items'],
      [{ line_items: [] }, 'line_items'],
      [{ line_items: 'p1' }, 'line_items'],
      [lines([p.id, 0]), 'line_items.0.quantity'],
      [lines([p.id, -2]), 'line_items.0.quantity'],
      [lines([p.id, 1.5]), 'line_items.0.quantity'],
      [{ line_items: [{ product_id: p.id }] }, 'line_items.0.quantity'],
      [{ line_items: [{ product_id: 'nope', quantity: 1 }] }, 'line_items.0.product_id'],
    ];
    for (const [body, param] of cases) {
      const r = await h.call('POST', '/orders', body);
      expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 400, param });
    }
    expect(await stockOf(h, p.id)).toBe(10);
  });

  test('an order whose total cannot be counted exactly in cents is 400, not a wrong total or a 500', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 90071992547409.91 }, stock_quantity: 100 });
    const r = await h.call('POST', '/orders', lines([p.id, 3]));
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('line_items');
    expect(await stockOf(h, p.id)).toBe(100);
  });
});

describe('concurrency', () => {
  test('20 parallel orders for the last 10 units: exactly 10 succeed, the rest are 409 insufficient_stock, stock ends at 0', async () => {
    const h = await setup();
    const p = await mkProduct(h, { stock_quantity: 10 });
    const results = await Promise.all(Array.from({ length: 20 }, () => h.call('POST', '/orders', lines([p.id, 1]))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), ...Array(10).fill(409)]);
    for (const r of results.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('insufficient_stock');
    expect(await stockOf(h, p.id)).toBe(0);
    expect(await orderCount(h)).toBe(10);
  });

  test('parallel orders of mixed quantities never oversell, and none is refused while enough stock remained', async () => {
    const h = await setup();
    const p = await mkProduct(h, { stock_quantity: 10 });
    const quantities = [3, 1, 4, 1, 5, 2, 6, 2, 3, 1, 2, 4, 1, 7, 2];
    const results = await Promise.all(quantities.map((q) => h.call('POST', '/orders', lines([p.id, q]))));
    const sold = quantities.filter((_, i) => results[i].status === 201).reduce((a, b) => a + b, 0);
    const final = await stockOf(h, p.id);
    expect(sold).toBeLessThanOrEqual(10);
    expect(final).toBe(10 - sold);
    results.forEach((r, i) => {
      expect([201, 409]).toContain(r.status);
      // Stock only went down, so a refused order asked for more than even the final stock.
      if (r.status === 409) expect(quantities[i]).toBeGreaterThan(final);
    });
    // Every successful order kept its own quantity.
    const orders = (await h.call('GET', '/orders?limit=100')).body.data;
    expect(orders.reduce((s: number, o: any) => s + o.line_items[0].quantity, 0)).toBe(sold);
  });

  test('parallel orders and cancellations over shared products all succeed and conserve stock', async () => {
    const h = await setup();
    const a = await mkProduct(h, { stock_quantity: 1000 });
    const b = await mkProduct(h, { stock_quantity: 1000 });
    const old = [];
    for (let i = 0; i < 8; i++) old.push(await placeOrder(h, i % 2 ? lines([a.id, 1], [b.id, 2]) : lines([b.id, 2], [a.id, 1])));
    const results = await Promise.all([
      ...old.map((o) => h.call('POST', `/orders/${o.id}/cancel`)),
      ...Array.from({ length: 8 }, (_, i) => h.call('POST', '/orders', i % 2 ? lines([b.id, 2], [a.id, 1]) : lines([a.id, 1], [b.id, 2]))),
    ]);
    expect(results.map((r) => r.status)).toEqual([...Array(8).fill(200), ...Array(8).fill(201)]);
    expect(await stockOf(h, a.id)).toBe(1000 - 8);
    expect(await stockOf(h, b.id)).toBe(1000 - 16);
  });

  test('parallel cancels of one order: exactly one succeeds and the stock comes back once', async () => {
    const h = await setup();
    const p = await mkProduct(h, { stock_quantity: 10 });
    const o = await placeOrder(h, lines([p.id, 4]));
    const results = await Promise.all(Array.from({ length: 6 }, () => h.call('POST', `/orders/${o.id}/cancel`)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await stockOf(h, p.id)).toBe(10);
  });
});

describe('listing orders', () => {
  let h: Harness;
  let byStatus: Record<string, string[]>;
  let newestFirst: string[];
  beforeAll(async () => {
    h = await setup();
    const p = await mkProduct(h, { stock_quantity: 100 });
    byStatus = { pending: [], paid: [], fulfilled: [], completed: [], cancelled: [] };
    newestFirst = [];
    for (const s of ['pending', 'paid', 'completed', 'pending', 'cancelled', 'paid', 'pending', 'fulfilled']) {
      const id = await orderIn(h, p.id, s);
      byStatus[s].push(id);
      newestFirst.unshift(id);
    }
  });

  test('the list envelope has object list, data, has_more and url; newest first', async () => {
    const r = await h.call('GET', '/orders');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'list', has_more: false, url: `/v1/stores/${h.store.id}/orders` });
    expect(r.body.data.map((o: any) => o.id)).toEqual(newestFirst);
    expect(r.body.data.every((o: any) => o.object === 'order')).toBe(true);
  });

  test('?status= returns exactly the orders in that status', async () => {
    for (const s of STATUSES) {
      const r = await h.call('GET', `/orders?status=${s}`);
      expect(r.status).toBe(200);
      expect(r.body.data.map((o: any) => o.id).sort()).toEqual([...byStatus[s]].sort());
      expect(r.body.data.every((o: any) => o.status === s)).toBe(true);
    }
  });

  test('?limit= caps the page and has_more tells there is more; combines with status', async () => {
    const r = await h.call('GET', '/orders?limit=3');
    expect(r.body.data.map((o: any) => o.id)).toEqual(newestFirst.slice(0, 3));
    expect(r.body.has_more).toBe(true);
    const pend = await h.call('GET', '/orders?status=pending&limit=2');
    expect(pend.body.data.length).toBe(2);
    expect(pend.body.has_more).toBe(true);
    const rest = await h.call('GET', `/orders?status=pending&limit=2&starting_after=${pend.body.data[1].id}`);
    expect(rest.body.data.length).toBe(1);
    expect(rest.body.has_more).toBe(false);
    expect([...pend.body.data, ...rest.body.data].map((o: any) => o.id).sort()).toEqual([...byStatus.pending].sort());
  });

  test('an unknown status, limit 0 or 101 is 400 naming the parameter', async () => {
    for (const [q, param] of [
      ['status=shipped', 'status'],
      ['limit=101', 'limit'],
      ['limit=0', 'limit'],
    ]) {
      const r = await h.call('GET', `/orders?${q}`);
      expect({ status: r.status, type: r.body.error?.type, param: r.body.error?.param }).toEqual({
        status: 400,
        type: 'invalid_request_error',
        param,
      });
    }
  });

  test('another store sees none of these orders, and gets 404 for their ids', async () => {
    const other = await setup();
    expect((await other.call('GET', '/orders')).body.data).toEqual([]);
    const id = byStatus.pending[0];
    for (const [m, path] of [
      ['GET', `/orders/${id}`],
      ['PATCH', `/orders/${id}`],
      ['POST', `/orders/${id}/cancel`],
    ]) {
      const r = await other.call(m, path, m === 'PATCH' ? { status: 'paid' } : undefined);
      expect({ status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({
        status: 404,
        code: 'resource_missing',
        param: 'id',
      });
    }
    expect((await h.call('GET', `/orders/${id}`)).body.status).toBe('pending');
  });
});
