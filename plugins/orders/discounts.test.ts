import { describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

const mkProduct = async (h: Harness, retail: number, over: object = {}) =>
  (await h.call('POST', '/products', product({ pricing_data: { retail }, stock_quantity: 100000, ...over }))).body.id as string;
const coupon = async (h: Harness, body: object) => {
  const r = await h.call('POST', '/coupons', body);
  expect(r.status).toBe(201);
  return r.body;
};

describe('orders with discount codes', () => {
  test('codes apply in the order given, each to what the previous left; totals and lines show it', async () => {
    const h = await setup();
    const a = await mkProduct(h, 10);
    const b = await mkProduct(h, 30);
    await coupon(h, { code: 'TENOFF', amount_off: 10, currency: 'USD' });
    await coupon(h, { code: 'HALF', percent_off: 50 });
    const line_items = [
      { product_id: a, quantity: 1 },
      { product_id: b, quantity: 1 },
    ];
    // 40 - 10 = 30, then half of that: 15 more.
    const first = await h.call('POST', '/orders', { line_items, discount_codes: ['TENOFF', 'HALF'] });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      subtotal: 40,
      discounts: [
        { code: 'TENOFF', amount: 10 },
        { code: 'HALF', amount: 15 },
      ],
      discount_total: 25,
      tax_lines: [],
      tax_total: 0,
      total: 15,
    });
    // The fixed amount is spread over the lines in proportion (2.50 and 7.50), then half of each rest.
    expect(first.body.line_items.map((l: any) => [l.total, l.discount])).toEqual([
      [10, 6.25],
      [30, 18.75],
    ]);
    // The other way round: half of 40 is 20, then 10 off: 30 in all.
    const second = await h.call('POST', '/orders', { line_items, discount_codes: ['half', 'tenoff'] });
    expect(second.body).toMatchObject({
      discount_total: 30,
      total: 10,
      discounts: [
        { code: 'HALF', amount: 20 },
        { code: 'TENOFF', amount: 10 },
      ],
    });
    expect((await h.call('GET', `/orders/${second.body.id}`)).body).toEqual(second.body);
  });

  test('a code that does not apply refuses the whole order: 409 naming discount_codes.<n>, nothing taken or counted', async () => {
    const h = await setup();
    const a = await mkProduct(h, 10);
    const ok = await coupon(h, { code: 'OK5', percent_off: 5 });
    await coupon(h, { code: 'BIGSPEND', percent_off: 5, minimum_subtotal: 100, currency: 'USD' });
    const r = await h.call('POST', '/orders', { line_items: [{ product_id: a, quantity: 1 }], discount_codes: ['OK5', 'BIGSPEND'] });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'coupon_not_applicable', param: 'discount_codes.1' });
    expect(r.body.error.message).toContain('minimum_subtotal');
    const unknown = await h.call('POST', '/orders', { line_items: [{ product_id: a, quantity: 1 }], discount_codes: ['NOPE'] });
    expect(unknown.body.error).toMatchObject({ code: 'coupon_not_applicable', param: 'discount_codes.0' });
    expect((await h.call('GET', `/coupons/${ok.id}`)).body.times_redeemed).toBe(0);
    expect((await h.call('GET', `/products/${a}`)).body.stock_quantity).toBe(100000);
    expect((await h.call('GET', '/orders')).body.data).toEqual([]);
    // The same code twice is 400; six codes are too many.
    const twice = await h.call('POST', '/orders', { line_items: [{ product_id: a, quantity: 1 }], discount_codes: ['OK5', 'ok5'] });
    expect(twice.status).toBe(400);
    expect(twice.body.error.param).toBe('discount_codes.1');
    const six = await h.call('POST', '/orders', { line_items: [{ product_id: a, quantity: 1 }], discount_codes: ['A', 'B', 'C', 'D', 'E', 'F'] });
    expect(six.status).toBe(400);
    expect(six.body.error.param).toBe('discount_codes');
  });

  test('a percentage rounds half up per line', async () => {
    const h = await setup();
    const a = await mkProduct(h, 0.05);
    const b = await mkProduct(h, 0.15);
    await coupon(h, { code: 'TEN', percent_off: 10 });
    // 10% of 0.05 is 0.005 -> 0.01; of 0.15, 0.015 -> 0.02; on the sum (0.20) it would be 0.02 only.
    const r = await h.call('POST', '/orders', {
      line_items: [
        { product_id: a, quantity: 1 },
        { product_id: b, quantity: 1 },
      ],
      discount_codes: ['TEN'],
    });
    expect(r.body).toMatchObject({ subtotal: 0.2, discount_total: 0.03, total: 0.17 });
  });

  test('up to 500 lines; 501 is 400', async () => {
    const h = await setup();
    const ids = await Promise.all(Array.from({ length: 5 }, (_, i) => mkProduct(h, i + 1)));
    const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ product_id: ids[i % 5], quantity: 1 }));
    const ok = await h.call('POST', '/orders', { line_items: lines(500) });
    expect(ok.status).toBe(201);
    expect(ok.body.subtotal).toBe(100 * (1 + 2 + 3 + 4 + 5));
    const over = await h.call('POST', '/orders', { line_items: lines(501) });
    expect(over.status).toBe(400);
    expect(over.body.error.param).toBe('line_items');
  });

  test("a refund by line gives back what the line paid after its discount; the order number takes the store's prefix", async () => {
    const h = await setup();
    await h.call('PATCH', '/settings', { order_number_prefix: 'SHOP-' });
    const a = await mkProduct(h, 10);
    await coupon(h, { code: 'THIRD', percent_off: 33.3333 });
    const o = (await h.call('POST', '/orders', { line_items: [{ product_id: a, quantity: 3 }], discount_codes: ['THIRD'] })).body;
    expect(o.order_number).toMatch(/^SHOP-\d+$/);
    expect((await h.call('GET', `/orders?q=${o.order_number}`)).body.data.map((x: any) => x.id)).toEqual([o.id]);
    expect(o).toMatchObject({ subtotal: 30, discount_total: 10, total: 20 });
    await h.call('PATCH', `/orders/${o.id}`, { status: 'paid' });
    const line = o.line_items[0].id;
    const amounts = [];
    for (let i = 0; i < 3; i++)
      amounts.push((await h.call('POST', `/orders/${o.id}/refunds`, { lines: [{ line_item_id: line, quantity: 1 }] })).body.amount);
    // Three thirds of 20.00 add up to exactly 20.00.
    expect(amounts).toEqual([6.67, 6.66, 6.67]);
    expect((await h.call('GET', `/orders/${o.id}`)).body.amount_refunded).toBe(20);
  });
});
