/** Orders (SPEC 2.3, 3.4): the status lifecycle, cancel and restock. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';
import { ISO_UTC, STATUSES, ALLOWED, mkProduct, stockOf, lines, placeOrder, orderIn } from '../../test/kit/orders';

describe('lifecycle', () => {
  let h: Harness;
  let p: { id: string };
  beforeAll(async () => {
    h = await setup();
    p = await mkProduct(h, { stock_quantity: 1000 });
  });

  test('PATCH status along every allowed transition answers 200 with the new status', async () => {
    for (const [from, tos] of Object.entries(ALLOWED)) {
      for (const to of tos) {
        const id = await orderIn(h, p.id, from);
        const r = await h.call('PATCH', `/orders/${id}`, { status: to });
        expect({ from, to, status: r.status, now: r.body.status }).toEqual({ from, to, status: 200, now: to });
        expect((await h.call('GET', `/orders/${id}`)).body.status).toBe(to);
      }
    }
  });

  test('PATCH status to any other state is 409 conflict_error with param status, and the order stays as it was', async () => {
    for (const from of STATUSES) {
      for (const to of STATUSES.filter((s) => s !== from && !ALLOWED[from].includes(s))) {
        const id = await orderIn(h, p.id, from);
        const before = (await h.call('GET', `/orders/${id}`)).body;
        const stock = await stockOf(h, p.id);
        const r = await h.call('PATCH', `/orders/${id}`, { status: to, payment_method: 'cash' });
        expect({ from, to, status: r.status, type: r.body.error?.type, code: r.body.error?.code, param: r.body.error?.param }).toEqual({
          from,
          to,
          status: 409,
          type: 'conflict_error',
          code: 'conflict_error',
          param: 'status',
        });
        expect((await h.call('GET', `/orders/${id}`)).body).toEqual(before);
        expect(await stockOf(h, p.id)).toBe(stock);
      }
    }
  });

  test('PATCH payment_method alone keeps the status', async () => {
    const id = await orderIn(h, p.id, 'paid');
    const r = await h.call('PATCH', `/orders/${id}`, { payment_method: 'invoice' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'paid', payment_method: 'invoice' });
  });

  test('an unknown order id is 404 with param id on get, patch and cancel', async () => {
    const id = crypto.randomUUID();
    for (const [m, path] of [
      ['GET', `/orders/${id}`],
      ['PATCH', `/orders/${id}`],
      ['POST', `/orders/${id}/cancel`],
    ]) {
      const r = await h.call(m, path, m === 'PATCH' ? { status: 'paid' } : undefined);
      expect({ status: r.status, type: r.body.error?.type, param: r.body.error?.param }).toEqual({
        status: 404,
        type: 'not_found_error',
        param: 'id',
      });
    }
  });
});

describe('cancelling', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
  });

  test('cancel restocks every line and marks the order cancelled with cancelled_at', async () => {
    const a = await mkProduct(h, { stock_quantity: 10 });
    const b = await mkProduct(h, { stock_quantity: 4 });
    const o = await placeOrder(h, lines([a.id, 3], [b.id, 4]));
    expect([await stockOf(h, a.id), await stockOf(h, b.id)]).toEqual([7, 0]);
    const r = await h.call('POST', `/orders/${o.id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: o.id, status: 'cancelled', total: o.total });
    expect(r.body.cancelled_at).toMatch(ISO_UTC);
    expect([await stockOf(h, a.id), await stockOf(h, b.id)]).toEqual([10, 4]);
  });

  test('a paid order can be cancelled and restocks', async () => {
    const p = await mkProduct(h, { stock_quantity: 5 });
    const id = await orderIn(h, p.id, 'paid');
    expect(await stockOf(h, p.id)).toBe(4);
    expect((await h.call('POST', `/orders/${id}/cancel`)).status).toBe(200);
    expect(await stockOf(h, p.id)).toBe(5);
  });

  test('PATCH status cancelled restocks like cancel does', async () => {
    const p = await mkProduct(h, { stock_quantity: 5 });
    const o = await placeOrder(h, lines([p.id, 5]));
    const r = await h.call('PATCH', `/orders/${o.id}`, { status: 'cancelled' });
    expect(r.status).toBe(200);
    expect(await stockOf(h, p.id)).toBe(5);
  });

  test('cancelling twice is 409 conflict_error and restocks only once', async () => {
    const p = await mkProduct(h, { stock_quantity: 6 });
    const o = await placeOrder(h, lines([p.id, 2]));
    expect((await h.call('POST', `/orders/${o.id}/cancel`)).status).toBe(200);
    const again = await h.call('POST', `/orders/${o.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe('conflict_error');
    expect(await stockOf(h, p.id)).toBe(6);
    // Nor can a cancelled order be revived.
    expect((await h.call('PATCH', `/orders/${o.id}`, { status: 'pending' })).status).toBe(409);
    expect(await stockOf(h, p.id)).toBe(6);
  });

  test('cancelling a completed or fulfilled order is 409 and keeps its stock taken', async () => {
    for (const state of ['completed', 'fulfilled']) {
      const p = await mkProduct(h, { stock_quantity: 3 });
      const id = await orderIn(h, p.id, state);
      const r = await h.call('POST', `/orders/${id}/cancel`);
      expect({ state, status: r.status, type: r.body.error?.type }).toEqual({ state, status: 409, type: 'conflict_error' });
      expect((await h.call('GET', `/orders/${id}`)).body.status).toBe(state);
      expect(await stockOf(h, p.id)).toBe(2);
    }
  });

  test('cancelling an order whose product was since archived still succeeds', async () => {
    const p = await mkProduct(h, { stock_quantity: 3 });
    const o = await placeOrder(h, lines([p.id, 1]));
    expect((await h.call('DELETE', `/products/${p.id}`)).status).toBe(200);
    const r = await h.call('POST', `/orders/${o.id}/cancel`);
    expect(r.status).toBe(200);
    expect(r.body.line_items[0].product_id).toBe(p.id);
  });
});
