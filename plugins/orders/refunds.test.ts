/** Refunds (issue 21): by amount, by lines, in full; restock; never more than paid, under races and retries. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

async function mkProduct(h: Harness, over: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/products', product(over));
  expect(r.status).toBe(201);
  return r.body as { id: string };
}
const stockOf = async (h: Harness, id: string) => (await h.call('GET', `/products/${id}`)).body.stock_quantity as number;

/** A paid order of `quantity` units of each product. */
async function paidOrder(h: Harness, items: [string, number][], status = 'paid') {
  const r = await h.call('POST', '/orders', { line_items: items.map(([product_id, quantity]) => ({ product_id, quantity })) });
  expect(r.status).toBe(201);
  const path = { pending: [], paid: ['paid'], fulfilled: ['paid', 'fulfilled'], completed: ['paid', 'completed'], cancelled: ['cancelled'] }[status]!;
  for (const s of path) expect((await h.call('PATCH', `/orders/${r.body.id}`, { status: s })).status).toBe(200);
  return r.body as { id: string; order_number: string; line_items: { id: string }[] };
}

describe('refunds', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
  });

  test('a partial refund by amount: 201 refund, the order shows amount_refunded and its refunds, GET lists it', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 20 } });
    const o = await paidOrder(h, [[p.id, 2]]);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 12.5, reason: 'scratched' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'refund', order_id: o.id, amount: 12.5, currency: 'USD', reason: 'scratched', restock: false, lines: [] });
    const order = (await h.call('GET', `/orders/${o.id}`)).body;
    expect(order.amount_refunded).toBe(12.5);
    expect(order.total).toBe(40);
    expect(order.refunds).toEqual([r.body]);
    const list = await h.call('GET', `/orders/${o.id}/refunds`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', data: [r.body], has_more: false, url: `${h.base}/orders/${o.id}/refunds` });
  });

  test('more than is left is 409 refund_exceeds_paid naming the amount left, and nothing changes', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 20 } });
    const o = await paidOrder(h, [[p.id, 2]]);
    expect((await h.call('POST', `/orders/${o.id}/refunds`, { amount: 30 })).status).toBe(201);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 10.01 });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'refund_exceeds_paid', param: 'amount' });
    expect(r.body.error.message).toContain('10.00 USD');
    expect((await h.call('GET', `/orders/${o.id}`)).body.amount_refunded).toBe(30);
    // the rest, exactly, is fine; then nothing is left
    expect((await h.call('POST', `/orders/${o.id}/refunds`, {})).body.amount).toBe(10);
    const none = await h.call('POST', `/orders/${o.id}/refunds`, {});
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('refund_exceeds_paid');
    expect(none.body.error.message).toStartWith('Nothing');
  });

  test('by lines: the amount is what the units sold for; units refunded per line are shown and capped (409 refund_exceeds_quantity)', async () => {
    const a = await mkProduct(h, { pricing_data: { retail: 3.5 } });
    const b = await mkProduct(h, { pricing_data: { retail: 10 } });
    const o = await paidOrder(h, [
      [a.id, 4],
      [b.id, 1],
    ]);
    const [la, lb] = o.line_items;
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: la.id, quantity: 3 }] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ amount: 10.5, lines: [{ line_item_id: la.id, quantity: 3, amount: 10.5 }] });
    const over = await h.call('POST', `/orders/${o.id}/refunds`, {
      lines: [
        { line_item_id: lb.id, quantity: 1 },
        { line_item_id: la.id, quantity: 2 },
      ],
    });
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'refund_exceeds_quantity', param: 'lines.1.quantity' });
    const order = (await h.call('GET', `/orders/${o.id}`)).body;
    expect(order.line_items.map((l: any) => l.quantity_refunded)).toEqual([3, 0]);
    expect(order.amount_refunded).toBe(10.5);
  });

  test('a line id of another order is 404 naming lines.0.line_item_id', async () => {
    const p = await mkProduct(h);
    const o = await paidOrder(h, [[p.id, 1]]);
    const other = await paidOrder(h, [[p.id, 1]]);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: other.line_items[0].id, quantity: 1 }] });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'resource_missing', param: 'lines.0.line_item_id' });
  });

  test('lines with an amount: the amount is refunded (e.g. less a fee) and the units are marked', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 10 } });
    const o = await paidOrder(h, [[p.id, 2]]);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 8, lines: [{ line_item_id: o.line_items[0].id, quantity: 1 }] });
    expect(r.status).toBe(201);
    expect(r.body.amount).toBe(8);
    expect((await h.call('GET', `/orders/${o.id}`)).body.line_items[0].quantity_refunded).toBe(1);
  });

  test('restock puts the refunded units back once; a later cancel does not put them back again', async () => {
    const p = await mkProduct(h, { stock_quantity: 10 });
    const o = await paidOrder(h, [[p.id, 4]]);
    expect(await stockOf(h, p.id)).toBe(6);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: o.line_items[0].id, quantity: 3 }], restock: true });
    expect(r.status).toBe(201);
    expect(r.body.restock).toBe(true);
    expect(await stockOf(h, p.id)).toBe(9);
    expect((await h.call('POST', `/orders/${o.id}/cancel`)).status).toBe(200);
    expect(await stockOf(h, p.id)).toBe(10);
  });

  test('a full refund with restock returns every unit; without restock stock stays', async () => {
    const p = await mkProduct(h, { stock_quantity: 10, pricing_data: { retail: 2 } });
    const o = await paidOrder(h, [[p.id, 5]], 'completed');
    const keep = await paidOrder(h, [[p.id, 1]], 'fulfilled');
    expect(await stockOf(h, p.id)).toBe(4);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { restock: true });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ amount: 10, lines: [{ quantity: 5, amount: 10 }] });
    expect(await stockOf(h, p.id)).toBe(9);
    expect((await h.call('POST', `/orders/${keep.id}/refunds`, {})).status).toBe(201);
    expect(await stockOf(h, p.id)).toBe(9);
  });

  test('restock with an amount and no lines is 400 naming restock', async () => {
    const p = await mkProduct(h);
    const o = await paidOrder(h, [[p.id, 1]]);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 1, restock: true });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_failed', param: 'restock' });
  });

  test('pending and cancelled orders are 409 order_not_refundable; fulfilled and completed are refundable', async () => {
    const p = await mkProduct(h);
    for (const status of ['pending', 'cancelled']) {
      const o = await paidOrder(h, [[p.id, 1]], status);
      const r = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 1 });
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'order_not_refundable', param: 'id' });
      expect(r.body.error.message).toContain(status);
    }
    for (const status of ['fulfilled', 'completed']) {
      const o = await paidOrder(h, [[p.id, 1]], status);
      expect((await h.call('POST', `/orders/${o.id}/refunds`, { amount: 1 })).status).toBe(201);
    }
  });

  test('amounts: more decimals than the currency has is 400 naming amount; zero-decimal currencies are exact', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 1500, currency: 'JPY' } });
    const o = await paidOrder(h, [[p.id, 1]]);
    const bad = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 0.5 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'amount' });
    for (const amount of [0, -1]) expect((await h.call('POST', `/orders/${o.id}/refunds`, { amount })).body.error.param).toBe('amount');
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 499 });
    expect(r.body).toMatchObject({ amount: 499, currency: 'JPY' });
    const over = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 1002 });
    expect(over.body.error.message).toContain('1001 JPY');
  });

  test('cents add up exactly: 0.1 + 0.2 refunded of 0.30 leaves nothing', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 0.3 } });
    const o = await paidOrder(h, [[p.id, 1]]);
    expect((await h.call('POST', `/orders/${o.id}/refunds`, { amount: 0.1 })).status).toBe(201);
    expect((await h.call('POST', `/orders/${o.id}/refunds`, { amount: 0.2 })).status).toBe(201);
    expect((await h.call('GET', `/orders/${o.id}`)).body.amount_refunded).toBe(0.3);
    expect((await h.call('POST', `/orders/${o.id}/refunds`, { amount: 0.01 })).status).toBe(409);
  });

  test("an unknown or another store's order is 404", async () => {
    const other = await setup();
    const p = await mkProduct(other);
    const o = await paidOrder(other, [[p.id, 1]]);
    for (const id of [crypto.randomUUID(), o.id]) {
      expect((await h.call('POST', `/orders/${id}/refunds`, { amount: 1 })).status).toBe(404);
      expect((await h.call('GET', `/orders/${id}/refunds`)).status).toBe(404);
    }
  });

  test('10 parallel partial refunds that together exceed the total: the sum refunded never exceeds it', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 25 } });
    const o = await paidOrder(h, [[p.id, 1]]);
    const results = await Promise.all(Array.from({ length: 10 }, () => h.call('POST', `/orders/${o.id}/refunds`, { amount: 3 })));
    const ok = results.filter((r) => r.status === 201);
    expect(ok.length).toBe(8);
    for (const r of results.filter((r) => r.status !== 201)) expect(r.body.error.code).toBe('refund_exceeds_paid');
    const order = (await h.call('GET', `/orders/${o.id}`)).body;
    expect(order.amount_refunded).toBe(24);
    expect(order.refunds.length).toBe(8);
  });

  test('10 parallel restocking refunds of one unit each of a 6-unit line: 6 succeed, stock back by exactly 6', async () => {
    const p = await mkProduct(h, { stock_quantity: 6 });
    const o = await paidOrder(h, [[p.id, 6]]);
    const line = o.line_items[0].id;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: line, quantity: 1 }], restock: true })),
    );
    expect(results.filter((r) => r.status === 201).length).toBe(6);
    expect(await stockOf(h, p.id)).toBe(6);
  });

  test('a restocking refund racing a cancel: whichever goes first, every unit comes back exactly once', async () => {
    for (let round = 0; round < 3; round++) {
      const p = await mkProduct(h, { stock_quantity: 10 });
      const o = await paidOrder(h, [[p.id, 4]]);
      const [refund, cancel] = await Promise.all([
        h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: o.line_items[0].id, quantity: 2 }], restock: true }),
        h.call('POST', `/orders/${o.id}/cancel`),
      ]);
      expect(cancel.status).toBe(200);
      expect([201, 409]).toContain(refund.status);
      expect(await stockOf(h, p.id)).toBe(10);
    }
  });

  test('Idempotency-Key: a retried refund answers the first refund and gives back nothing more', async () => {
    const p = await mkProduct(h, { pricing_data: { retail: 10 } });
    const o = await paidOrder(h, [[p.id, 1]]);
    const key = { 'Idempotency-Key': `refund-${crypto.randomUUID()}` };
    const first = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 4 }, key);
    const again = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 4 }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await h.call('GET', `/orders/${o.id}`)).body.amount_refunded).toBe(4);
  });

  test('refund.created and order.updated are written with the refund', async () => {
    expect((await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/svc', events: ['refund.created', 'order.updated'] })).status).toBe(
      201,
    );
    const p = await mkProduct(h, { pricing_data: { retail: 10 } });
    const o = await paidOrder(h, [[p.id, 1]]);
    const r = await h.call('POST', `/orders/${o.id}/refunds`, { amount: 2 });
    const events = await h.db.query<{ type: string; body: string }>(
      "SELECT type, body FROM events WHERE store_id = $1 AND type IN ('refund.created', 'order.updated') ORDER BY created_at, type",
      [h.store.id],
    );
    const mine = events.map((e) => ({ type: e.type, data: JSON.parse(e.body).data }));
    expect(mine.find((e) => e.type === 'refund.created' && e.data.id === r.body.id)).toBeTruthy();
    expect(mine.find((e) => e.type === 'order.updated' && e.data.id === o.id && e.data.amount_refunded === 2)).toBeTruthy();
  });
});
