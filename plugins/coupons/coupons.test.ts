import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const mkProduct = async (h: Harness, retail = 10, over: object = {}) =>
  (await h.call('POST', '/products', product({ pricing_data: { retail }, stock_quantity: 1000, ...over }))).body.id as string;
const coupon = async (h: Harness, body: object) => {
  const r = await h.call('POST', '/coupons', body);
  expect(r.status).toBe(201);
  return r.body;
};
const check = async (h: Harness, code: string, line_items: object[], extra: object = {}) =>
  (await h.call('POST', '/coupons/validate', { code, line_items, ...extra })).body;

describe('coupons', () => {
  test('create, list, validate and deactivate with only commerce scopes', async () => {
    const h = await setup();
    const p = await mkProduct(h, 20);
    const as = { 'x-api-key': await h.newKey(['commerce:read', 'commerce:write']) };
    const made = await h.call('POST', '/coupons', { code: 'Summer10', percent_off: 10 }, as);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: 'coupon', code: 'Summer10', percent_off: 10, amount_off: null, times_redeemed: 0, active: true });
    expect((await h.call('GET', '/coupons?code=SUMMER10', undefined, as)).body.data.map((c: any) => c.id)).toEqual([made.body.id]);
    // Codes ignore case when shoppers type them.
    const v = await h.call('POST', '/coupons/validate', { code: 'summer10', line_items: [{ product_id: p, quantity: 2 }] }, as);
    expect(v.body).toEqual({
      object: 'coupon_validation',
      code: 'summer10',
      coupon_id: made.body.id,
      valid: true,
      discount_amount: 4,
      currency: 'USD',
      reason_code: null,
      reason: null,
    });
    const off = await h.call('POST', `/coupons/${made.body.id}/deactivate`, {}, as);
    expect(off.body.active).toBe(false);
    // Again: the same answer, still inactive.
    expect((await h.call('POST', `/coupons/${made.body.id}/deactivate`, {}, as)).body).toEqual(off.body);
    expect(await check(h, 'SUMMER10', [{ product_id: p, quantity: 1 }])).toMatchObject({ valid: false, reason_code: 'inactive', discount_amount: 0 });
    expect((await h.call('GET', '/coupons?active=false', undefined, as)).body.data.map((c: any) => c.id)).toEqual([made.body.id]);
    // commerce:read alone cannot create.
    const ro = { 'x-api-key': await h.newKey(['commerce:read']) };
    expect((await h.call('POST', '/coupons', { code: 'X1', percent_off: 5 }, ro)).status).toBe(403);
  });

  test('a code is unique per store ignoring case: 409 duplicate_code; another store may use it', async () => {
    const h = await setup();
    await coupon(h, { code: 'WELCOME', percent_off: 5 });
    const again = await h.call('POST', '/coupons', { code: 'welcome', amount_off: 5, currency: 'USD' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'duplicate_code', param: 'code' });
    const other = await setup();
    expect((await other.call('POST', '/coupons', { code: 'WELCOME', percent_off: 5 })).status).toBe(201);
  });

  test('bad coupons are 400 naming the field; unknown product or collection ids are 404 naming the element', async () => {
    const h = await setup();
    for (const [body, param] of [
      [{ code: 'A' }, 'percent_off'],
      [{ code: 'A', percent_off: 10, amount_off: 5, currency: 'USD' }, 'amount_off'],
      [{ code: 'A', percent_off: 0 }, 'percent_off'],
      [{ code: 'A', percent_off: 101 }, 'percent_off'],
      [{ code: 'A', amount_off: 5 }, 'currency'],
      [{ code: 'A', amount_off: 5, currency: 'XYZ' }, 'currency'],
      [{ code: 'A', amount_off: 5.001, currency: 'USD' }, 'amount_off'],
      [{ code: 'A', percent_off: 5, minimum_subtotal: 10 }, 'currency'],
      [{ code: 'A', percent_off: 5, starts_at: 'soon' }, 'starts_at'],
      [{ code: 'A', percent_off: 5, starts_at: '2026-05-01', ends_at: '2026-04-01' }, 'ends_at'],
      [{ code: 'has space', percent_off: 5 }, 'code'],
    ] as const) {
      const r = await h.call('POST', '/coupons', body);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
    const p = await mkProduct(h);
    const r = await h.call('POST', '/coupons', { code: 'A', percent_off: 5, product_ids: [p, crypto.randomUUID()] });
    expect(r.status).toBe(404);
    expect(r.body.error.param).toBe('product_ids.1');
    const c = await h.call('POST', '/coupons', { code: 'A', percent_off: 5, collection_ids: [crypto.randomUUID()] });
    expect(c.body.error.param).toBe('collection_ids.0');
  });

  test('validate answers each reason code', async () => {
    const h = await setup(); // the clock stands at 2026-04-01T00:00:00Z
    const p = await mkProduct(h, 10);
    const q = await mkProduct(h, 10);
    const line = [{ product_id: p, quantity: 1 }];
    await coupon(h, { code: 'LATER', percent_off: 10, starts_at: '2026-04-02T00:00:00Z' });
    await coupon(h, { code: 'PAST', percent_off: 10, ends_at: '2026-04-01T00:00:00Z' });
    await coupon(h, { code: 'BIG', percent_off: 10, minimum_subtotal: 50, currency: 'USD' });
    await coupon(h, { code: 'ONLYQ', percent_off: 10, product_ids: [q] });
    await coupon(h, { code: 'EUROS', amount_off: 5, currency: 'EUR' });
    await coupon(h, { code: 'MINE', percent_off: 10, usage_limit_per_customer: 1 });
    const expected: Record<string, string> = {
      NOPE: 'unknown_code',
      LATER: 'not_started',
      PAST: 'expired',
      BIG: 'minimum_subtotal',
      ONLYQ: 'no_eligible_items',
      EUROS: 'no_eligible_items',
      MINE: 'customer_limit_reached',
    };
    for (const [code, reason_code] of Object.entries(expected)) {
      const v = await check(h, code, line);
      expect(v).toMatchObject({ valid: false, reason_code, discount_amount: 0 });
      expect(v.reason.length).toBeGreaterThan(10);
    }
    // A minimum reached, and the product it names: valid.
    expect(await check(h, 'BIG', [{ product_id: p, quantity: 5 }])).toMatchObject({ valid: true, discount_amount: 5 });
    expect(await check(h, 'ONLYQ', [...line, { product_id: q, quantity: 3 }])).toMatchObject({ valid: true, discount_amount: 3 });
    // Time moves on: LATER starts; a day later still, nothing has expired but PAST.
    h.clock.set(new Date('2026-04-02T00:00:00Z'));
    expect(await check(h, 'LATER', line)).toMatchObject({ valid: true });
  });

  test('usage limits: the total and per customer, counted by orders; validate never counts', async () => {
    const h = await setup();
    const p = await mkProduct(h, 10);
    const ada = (await h.call('POST', '/customers', { email: 'ada@example.com', first_name: 'Ada' })).body.id;
    const bo = (await h.call('POST', '/customers', { email: 'bo@example.com', first_name: 'Bo' })).body.id;
    const c = await coupon(h, { code: 'TWICE', percent_off: 10, usage_limit: 2, usage_limit_per_customer: 1 });
    const line = [{ product_id: p, quantity: 1 }];
    expect(await check(h, 'TWICE', line, { customer_id: ada })).toMatchObject({ valid: true });
    expect(await check(h, 'TWICE', line, { customer_id: ada })).toMatchObject({ valid: true });
    const order = (customer_id: string) => h.call('POST', '/orders', { line_items: line, customer_id, discount_codes: ['twice'] });
    expect((await order(ada)).status).toBe(201);
    expect(await check(h, 'TWICE', line, { customer_id: ada })).toMatchObject({ valid: false, reason_code: 'customer_limit_reached' });
    const second = await order(ada);
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({ code: 'coupon_not_applicable', param: 'discount_codes.0' });
    expect(second.body.error.message).toContain('customer');
    expect((await order(bo)).status).toBe(201);
    expect((await h.call('GET', `/coupons/${c.id}`)).body.times_redeemed).toBe(2);
    const carl = (await h.call('POST', '/customers', { email: 'carl@example.com', first_name: 'Carl' })).body.id;
    expect(await check(h, 'TWICE', line, { customer_id: carl })).toMatchObject({ valid: false, reason_code: 'usage_limit_reached' });
  });

  test('a restricted coupon discounts only its eligible lines: products and collections', async () => {
    const h = await setup();
    const a = await mkProduct(h, 10);
    const b = await mkProduct(h, 30);
    const c = await mkProduct(h, 50);
    const col = (await h.call('POST', '/collections', { title: 'Sale' })).body.id;
    expect((await h.call('POST', `/collections/${col}/products`, { product_ids: [b] })).status).toBe(200);
    await coupon(h, { code: 'HALF', percent_off: 50, product_ids: [a], collection_ids: [col] });
    const lines = [
      { product_id: a, quantity: 1 },
      { product_id: b, quantity: 1 },
      { product_id: c, quantity: 1 },
    ];
    expect(await check(h, 'HALF', lines)).toMatchObject({ valid: true, discount_amount: 20 });
    // An amount off is capped at what the eligible lines come to.
    await coupon(h, { code: 'FIFTY', amount_off: 50, currency: 'USD', product_ids: [a] });
    expect(await check(h, 'FIFTY', lines)).toMatchObject({ valid: true, discount_amount: 10 });
  });

  test("a coupon of one customer: only that customer's orders may use it; another store's customer is 404 naming customer_id", async () => {
    const h = await setup();
    const other = await setup();
    const customer = async (x: Harness) => (await x.call('POST', '/customers', { email: `k${crypto.randomUUID().slice(0, 6)}@example.com` })).body.id;
    const mine = await customer(h);
    const theirs = await customer(other);
    const refused = await h.call('POST', '/coupons', { code: 'THEIRS', percent_off: 5, customer_id: theirs });
    expect({ status: refused.status, param: refused.body.error.param }).toEqual({ status: 404, param: 'customer_id' });
    expect((await coupon(h, { code: 'MINE', percent_off: 10, customer_id: mine })).customer_id).toBe(mine);
    const p = await mkProduct(h);
    const line = [{ product_id: p, quantity: 1 }];
    expect(await check(h, 'MINE', line, { customer_id: mine })).toMatchObject({ valid: true, discount_amount: 1 });
    expect(await check(h, 'MINE', line, { customer_id: await customer(h) })).toMatchObject({ valid: false, reason_code: 'customer_limit_reached' });
    expect(await check(h, 'MINE', line)).toMatchObject({ valid: false, reason_code: 'customer_limit_reached' });
  });

  test('validate over MCP answers the same', async () => {
    const h = await setup();
    const p = await mkProduct(h, 8);
    await coupon(h, { code: 'MCP5', amount_off: 5, currency: 'USD' });
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({
      name: 'coupons',
      arguments: { action: 'validate', code: 'MCP5', line_items: [{ product_id: p, quantity: 1 }] },
    });
    await client.close();
    expect(JSON.parse(out.content[0].text)).toMatchObject({ object: 'coupon_validation', valid: true, discount_amount: 5 });
  });

  test('another store cannot see, validate or deactivate this store’s coupons', async () => {
    const h = await setup();
    const other = await setup();
    const c = await coupon(h, { code: 'MINE10', percent_off: 10 });
    expect((await other.call('GET', `/coupons/${c.id}`)).status).toBe(404);
    expect((await other.call('POST', `/coupons/${c.id}/deactivate`, {})).status).toBe(404);
    const p = await mkProduct(other);
    expect(await check(other, 'MINE10', [{ product_id: p, quantity: 1 }])).toMatchObject({ valid: false, reason_code: 'unknown_code' });
  });
});

describe('coupons under concurrency', () => {
  test('50 parallel orders against a usage_limit of 10: exactly 10 succeed, the rest are 409 usage_limit_reached', async () => {
    const h = await setup();
    const p = await mkProduct(h, 5);
    const c = await coupon(h, { code: 'TEN', percent_off: 20, usage_limit: 10 });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }], discount_codes: ['TEN'] })),
    );
    const made = results.filter((r) => r.status === 201);
    expect(made.length).toBe(10);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error).toMatchObject({ code: 'coupon_not_applicable', param: 'discount_codes.0' });
      expect(r.body.error.message).toContain('usage_limit_reached');
    }
    for (const r of made) expect(r.body).toMatchObject({ subtotal: 5, discounts: [{ code: 'TEN', amount: 1 }], discount_total: 1, total: 4 });
    expect((await h.call('GET', `/coupons/${c.id}`)).body.times_redeemed).toBe(10);
    // The refused orders took no stock.
    expect((await h.call('GET', `/products/${p}`)).body.stock_quantity).toBe(990);
  });
});
