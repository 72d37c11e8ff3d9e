import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const mkProduct = async (h: Harness, retail: number, over: object = {}) =>
  (await h.call('POST', '/products', product({ pricing_data: { retail }, stock_quantity: 1000, ...over }))).body.id as string;
const rate = async (h: Harness, body: object) => {
  const r = await h.call('POST', '/tax/rates', body);
  expect(r.status).toBe(201);
  return r.body;
};
const CA = { line1: '1 Market St', city: 'San Francisco', region: 'CA', postal_code: '94103', country: 'US' };

describe('tax rates', () => {
  test('create, list, update, delete with commerce scopes; commerce:read reads only', async () => {
    const h = await setup();
    const as = { 'x-api-key': await h.newKey(['commerce:write']) };
    const made = await h.call('POST', '/tax/rates', { name: 'CA', country: 'US', region: 'CA', percentage: 7.25 }, as);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      object: 'tax_rate',
      name: 'CA',
      country: 'US',
      region: 'CA',
      postal_code_prefix: null,
      percentage: 7.25,
      tax_class: 'standard',
    });
    const ro = { 'x-api-key': await h.newKey(['commerce:read']) };
    expect((await h.call('GET', '/tax/rates?country=US', undefined, ro)).body.data.map((r: any) => r.id)).toEqual([made.body.id]);
    expect((await h.call('POST', '/tax/rates', { name: 'X', country: 'US', percentage: 1 }, ro)).status).toBe(403);
    expect((await h.call('GET', `/tax/rates/${made.body.id}`, undefined, ro)).body).toEqual(made.body);
    const upd = await h.call('PATCH', `/tax/rates/${made.body.id}`, { percentage: 8.875, postal_code_prefix: '941 ' }, as);
    expect(upd.body).toMatchObject({ percentage: 8.875, postal_code_prefix: '941' });
    expect((await h.call('DELETE', `/tax/rates/${made.body.id}`, undefined, as)).body).toEqual({
      id: made.body.id,
      object: 'tax_rate',
      deleted: true,
    });
    expect((await h.call('GET', '/tax/rates')).body.data).toEqual([]);
    const other = await setup();
    const mine = await rate(h, { name: 'DE', country: 'DE', percentage: 19 });
    expect((await other.call('PATCH', `/tax/rates/${mine.id}`, { percentage: 1 })).status).toBe(404);
    expect((await other.call('GET', `/tax/rates/${mine.id}`)).status).toBe(404);
  });

  test('rates never stack: a second rate for the same place and class is 409 rate_exists; bad input is 400', async () => {
    const h = await setup();
    await rate(h, { name: 'CA', country: 'US', region: 'CA', percentage: 7.25 });
    const again = await h.call('POST', '/tax/rates', { name: 'CA again', country: 'US', region: 'ca', percentage: 1 });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('rate_exists');
    // Another class at the same place is another rate.
    expect((await h.call('POST', '/tax/rates', { name: 'CA food', country: 'US', region: 'CA', percentage: 0, tax_class: 'food' })).status).toBe(201);
    for (const [body, param] of [
      [{ name: 'x', country: 'us', percentage: 1 }, 'country'],
      [{ name: 'x', country: 'US', percentage: 101 }, 'percentage'],
      [{ name: 'x', country: 'US', percentage: 1.00001 }, 'percentage'],
      [{ name: 'x', country: 'US', percentage: 1, tax_class: 'Food!' }, 'tax_class'],
    ] as const) {
      const r = await h.call('POST', '/tax/rates', body);
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe(param);
    }
  });
});

describe('calculate_tax', () => {
  test('the most specific rate wins: longest postal prefix, then region, then country; none, no tax', async () => {
    const h = await setup();
    const p = await mkProduct(h, 100);
    const us = await rate(h, { name: 'US', country: 'US', percentage: 1 });
    const ca = await rate(h, { name: 'CA', country: 'US', region: 'CA', percentage: 7.25 });
    const sf = await rate(h, { name: 'SF', country: 'US', region: 'CA', postal_code_prefix: '941', percentage: 8.625 });
    const sf03 = await rate(h, { name: 'SF 03', country: 'US', postal_code_prefix: '94103', percentage: 8.875 });
    const calc = async (shipping_address: object) =>
      (await h.call('POST', '/tax/calculate', { line_items: [{ product_id: p, quantity: 1 }], shipping_address })).body;
    expect((await calc(CA)).tax_lines).toEqual([{ rate_id: sf03.id, name: 'SF 03', percentage: 8.875, amount: 8.88 }]);
    expect((await calc({ ...CA, postal_code: '94110' })).tax_lines[0].rate_id).toBe(sf.id);
    expect((await calc({ ...CA, postal_code: '90001' })).tax_lines[0].rate_id).toBe(ca.id);
    expect((await calc({ country: 'US', region: 'NY', postal_code: '10001' })).tax_lines[0].rate_id).toBe(us.id);
    const none = await calc({ country: 'DE', postal_code: '10115' });
    expect(none).toMatchObject({ tax_lines: [], tax_total: 0, subtotal: 100, total: 100 });
  });

  test('tax is per line on its amount after discounts, half up; a tax_class takes its own rate, else the standard one', async () => {
    const h = await setup();
    const book = await mkProduct(h, 0.1, { tax_class: 'books' });
    const pen = await mkProduct(h, 0.1);
    const toy = await mkProduct(h, 10, { tax_class: 'toys' });
    const std = await rate(h, { name: 'DE', country: 'DE', percentage: 19 });
    const red = await rate(h, { name: 'DE reduced', country: 'DE', percentage: 7, tax_class: 'books' });
    await h.call('POST', '/coupons', { code: 'HALF', percent_off: 50 });
    const r = await h.call('POST', '/tax/calculate', {
      line_items: [
        { product_id: book, quantity: 1 },
        { product_id: pen, quantity: 1 },
        { product_id: toy, quantity: 1 },
      ],
      shipping_address: { country: 'DE' },
      discount_codes: ['HALF'],
    });
    expect(r.status).toBe(200);
    // book 0.05 × 7% = 0.0035 -> 0.00; pen 0.05 × 19% = 0.0095 -> 0.01; toy (no toys rate: standard) 5 × 19% = 0.95.
    expect(r.body.lines.map((l: any) => [l.taxable_amount, l.tax, l.rate_id])).toEqual([
      [0.05, 0, red.id],
      [0.05, 0.01, std.id],
      [5, 0.95, std.id],
    ]);
    expect(r.body).toMatchObject({ subtotal: 10.2, discount_total: 5.1, tax_total: 0.96, total: 6.06 });
    expect(r.body.tax_lines).toEqual([
      { rate_id: red.id, name: 'DE reduced', percentage: 7, amount: 0 },
      { rate_id: std.id, name: 'DE', percentage: 19, amount: 0.96 },
    ]);
  });

  test("a product's tax_class is set, changed and cleared (null: standard) and decides its rate", async () => {
    const h = await setup();
    const p = await mkProduct(h, 100, { tax_class: 'food' });
    expect((await h.call('GET', `/products/${p}`)).body.tax_class).toBe('food');
    await rate(h, { name: 'FR', country: 'FR', percentage: 20 });
    await rate(h, { name: 'FR food', country: 'FR', percentage: 5.5, tax_class: 'food' });
    const tax = async () =>
      (await h.call('POST', '/tax/calculate', { line_items: [{ product_id: p, quantity: 1 }], shipping_address: { country: 'FR' } })).body.tax_total;
    expect(await tax()).toBe(5.5);
    expect((await h.call('PATCH', `/products/${p}`, { tax_class: null })).body.tax_class).toBeNull();
    expect(await tax()).toBe(20);
    expect((await h.call('PATCH', `/products/${p}`, { tax_class: 'Food' })).body.error.param).toBe('tax_class');
  });

  test('prices that include tax: amount × p / (100 + p), and the total is not raised', async () => {
    const h = await setup();
    const p = await mkProduct(h, 11.9);
    await rate(h, { name: 'DE', country: 'DE', percentage: 19 });
    const body = { line_items: [{ product_id: p, quantity: 1 }], shipping_address: { country: 'DE' } };
    expect((await h.call('POST', '/tax/calculate', { ...body, prices_include_tax: true })).body).toMatchObject({
      tax_total: 1.9,
      total: 11.9,
      prices_include_tax: true,
    });
    // The store's setting is the default.
    await h.call('PATCH', '/settings', { prices_include_tax: true });
    expect((await h.call('POST', '/tax/calculate', body)).body).toMatchObject({ tax_total: 1.9, total: 11.9 });
    expect((await h.call('POST', '/tax/calculate', { ...body, prices_include_tax: false })).body).toMatchObject({ tax_total: 2.26, total: 14.16 });
  });

  test('a discount code that does not apply is 409 coupon_not_applicable naming it', async () => {
    const h = await setup();
    const p = await mkProduct(h, 10);
    const r = await h.call('POST', '/tax/calculate', {
      line_items: [{ product_id: p, quantity: 1 }],
      shipping_address: { country: 'US' },
      discount_codes: ['NOPE'],
    });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'coupon_not_applicable', param: 'discount_codes.0' });
  });

  test('calculate_tax over MCP', async () => {
    const h = await setup();
    const p = await mkProduct(h, 20);
    await rate(h, { name: 'FR', country: 'FR', percentage: 20 });
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({
      name: 'tax',
      arguments: { action: 'calculate_tax', line_items: [{ product_id: p, quantity: 1 }], shipping_address: { country: 'FR' } },
    });
    await client.close();
    expect(JSON.parse(out.content[0].text)).toMatchObject({ object: 'tax_calculation', tax_total: 4, total: 24 });
  });
});

describe('orders and tax', () => {
  test('an order is taxed at its shipping address (else billing), keeps its tax lines when rates change', async () => {
    const h = await setup();
    const p = await mkProduct(h, 50);
    const ca = await rate(h, { name: 'CA', country: 'US', region: 'CA', percentage: 7.25 });
    await rate(h, { name: 'NY', country: 'US', region: 'NY', percentage: 8 });
    await h.call('POST', '/coupons', { code: 'TEN', amount_off: 10, currency: 'USD' });
    const o = await h.call('POST', '/orders', {
      line_items: [{ product_id: p, quantity: 2 }],
      shipping_address: CA,
      billing_address: { ...CA, region: 'NY' },
      discount_codes: ['TEN'],
    });
    expect(o.status).toBe(201);
    expect(o.body).toMatchObject({
      subtotal: 100,
      discount_total: 10,
      tax_lines: [{ rate_id: ca.id, name: 'CA', percentage: 7.25, amount: 6.53 }],
      tax_total: 6.53,
      total: 96.53,
      prices_include_tax: false,
    });
    expect(o.body.line_items[0]).toMatchObject({ total: 100, discount: 10, tax: 6.53 });
    await h.call('PATCH', `/tax/rates/${ca.id}`, { percentage: 10 });
    await h.call('DELETE', `/tax/rates/${ca.id}`);
    expect((await h.call('GET', `/orders/${o.body.id}`)).body).toMatchObject({ tax_total: 6.53, tax_lines: [{ rate_id: ca.id, percentage: 7.25 }] });
    // Billing only: taxed there. Neither: no tax.
    const billed = await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }], billing_address: { ...CA, region: 'NY' } });
    expect(billed.body).toMatchObject({ tax_total: 4, total: 54 });
    const bare = await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }] });
    expect(bare.body).toMatchObject({ tax_lines: [], tax_total: 0, total: 50 });
  });

  test("an order's lines take their tax_class's rate there, else the standard one; another country's rates never apply", async () => {
    const h = await setup();
    const book = await mkProduct(h, 10, { tax_class: 'books' });
    const pen = await mkProduct(h, 10);
    const toy = await mkProduct(h, 10, { tax_class: 'toys' });
    const std = await rate(h, { name: 'DE', country: 'DE', percentage: 19 });
    const red = await rate(h, { name: 'DE reduced', country: 'DE', percentage: 7, tax_class: 'books' });
    await rate(h, { name: 'AT toys', country: 'AT', percentage: 13, tax_class: 'toys' });
    const o = await h.call('POST', '/orders', {
      line_items: [book, pen, toy].map((product_id) => ({ product_id, quantity: 1 })),
      shipping_address: { line1: 'Unter den Linden 1', city: 'Berlin', country: 'DE' },
    });
    expect(o.status).toBe(201);
    expect(o.body.line_items.map((l: any) => l.tax)).toEqual([0.7, 1.9, 1.9]);
    expect(o.body.tax_lines).toEqual([
      { rate_id: red.id, name: 'DE reduced', percentage: 7, amount: 0.7 },
      { rate_id: std.id, name: 'DE', percentage: 19, amount: 3.8 },
    ]);
    expect(o.body).toMatchObject({ tax_total: 4.5, total: 34.5 });
  });

  test('a store whose prices include tax: the order total is the price, tax shown within it', async () => {
    const h = await setup();
    await h.call('PATCH', '/settings', { prices_include_tax: true });
    const p = await mkProduct(h, 119);
    await rate(h, { name: 'DE', country: 'DE', percentage: 19 });
    const o = await h.call('POST', '/orders', {
      line_items: [{ product_id: p, quantity: 1 }],
      shipping_address: { line1: 'A 1', city: 'Berlin', country: 'DE' },
    });
    expect(o.body).toMatchObject({ subtotal: 119, tax_total: 19, total: 119, prices_include_tax: true });
  });
});

describe('get_report', () => {
  test('per rate: paid, fulfilled and completed orders by the day placed (store timezone); refunds subtract on their day', async () => {
    const h = await setup({ now: '2026-04-01T12:00:00Z' });
    await h.call('PATCH', '/settings', { timezone: 'America/New_York' });
    const p = await mkProduct(h, 100);
    const de = await rate(h, { name: 'DE', country: 'DE', percentage: 19 });
    const addr = { shipping_address: { line1: 'A 1', city: 'Berlin', country: 'DE' } };
    const place = async () => (await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }], ...addr })).body;
    const paid = await place();
    await h.call('PATCH', `/orders/${paid.id}`, { status: 'paid' });
    const fulfilled = await place();
    // Only a paid order ships (pending -> fulfilled is 409).
    await h.call('PATCH', `/orders/${fulfilled.id}`, { status: 'paid' });
    await h.call('PATCH', `/orders/${fulfilled.id}`, { status: 'fulfilled' });
    await place(); // pending: not counted
    const cancelled = await place();
    await h.call('PATCH', `/orders/${cancelled.id}`, { status: 'paid' });
    await h.call('POST', `/orders/${cancelled.id}/cancel`, {});
    // 03:00 UTC on 2 April is still 1 April in New York.
    h.clock.set(new Date('2026-04-02T03:00:00Z'));
    const late = await place();
    await h.call('PATCH', `/orders/${late.id}`, { status: 'paid' });
    const report = async (from: string, to: string) => (await h.call('GET', `/tax/report?from=${from}&to=${to}`)).body;
    expect(await report('2026-04-01', '2026-04-01')).toEqual({
      object: 'tax_report',
      from: '2026-04-01',
      to: '2026-04-01',
      timezone: 'America/New_York',
      rates: [{ rate_id: de.id, name: 'DE', currency: 'USD', taxable_amount: 300, tax_amount: 57, orders: 3 }],
    });
    // A refund of half of one order (119.00 -> 59.50) on 3 April takes back half its tax that day.
    h.clock.set(new Date('2026-04-03T15:00:00Z'));
    expect((await h.call('POST', `/orders/${paid.id}/refunds`, { amount: 59.5 })).status).toBe(201);
    expect((await report('2026-04-01', '2026-04-01')).rates[0]).toMatchObject({ tax_amount: 57, orders: 3 });
    expect((await report('2026-04-03', '2026-04-03')).rates).toEqual([
      { rate_id: de.id, name: 'DE', currency: 'USD', taxable_amount: -50, tax_amount: -9.5, orders: 0 },
    ]);
    expect((await report('2026-04-01', '2026-04-30')).rates[0]).toMatchObject({ taxable_amount: 250, tax_amount: 47.5, orders: 3 });
    const bad = await h.call('GET', '/tax/report?from=2026-02-30&to=2026-03-01');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('from');
    expect((await h.call('GET', '/tax/report?from=2026-04-02&to=2026-04-01')).body.error.param).toBe('to');
  });
});
