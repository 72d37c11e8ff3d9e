import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const mkProduct = async (h: Harness, retail: number, stock = 100, name = 'P') =>
  (await h.call('POST', '/products', product({ name, pricing_data: { retail }, stock_quantity: stock }))).body.id as string;
const customer = async (h: Harness) =>
  (await h.call('POST', '/customers', { email: `c.${crypto.randomUUID().slice(0, 8)}@example.com` })).body.id as string;

/** An order placed at `at` (the clock is set there) and moved through `statuses`. */
async function order(h: Harness, at: string, lines: [string, number][], opts: { statuses?: string[]; customer_id?: string; codes?: string[] } = {}) {
  h.clock.set(at);
  const r = await h.call('POST', '/orders', {
    line_items: lines.map(([product_id, quantity]) => ({ product_id, quantity })),
    ...(opts.customer_id ? { customer_id: opts.customer_id } : {}),
    ...(opts.codes ? { discount_codes: opts.codes } : {}),
  });
  expect(r.status).toBe(201);
  for (const s of opts.statuses ?? ['paid']) expect((await h.call('PATCH', `/orders/${r.body.id}`, { status: s })).status).toBe(200);
  return r.body.id as string;
}

/**
 * The seeded set, figures worked out by hand below. UTC store. A (10.00) and B (25.00).
 *   2026-02-20  A x1 paid                        (previous period)
 *   2026-03-02  A x2 paid (o1)                   gross 20
 *   2026-03-03  B x1 + A x1 paid, fulfilled      gross 35
 *   2026-03-10  A x3 with SAVE10 (10%) paid      gross 30, discount 3
 *   2026-03-10  A x5 pending; B x4 cancelled     not counted
 *   2026-03-12  refund of 5.00 on o1             refunds 5 on 03-12
 *   another store: B x1 paid on 2026-03-03      not counted
 */
async function seed() {
  const h = await setup({ now: '2026-02-01T00:00:00Z' });
  const a = await mkProduct(h, 10, 100, 'Apple');
  const b = await mkProduct(h, 25, 100, 'Banana');
  expect((await h.call('POST', '/coupons', { code: 'SAVE10', percent_off: 10 })).status).toBe(201);
  const ada = await customer(h);
  const bo = await customer(h);
  await order(h, '2026-02-20T12:00:00Z', [[a, 1]], { customer_id: ada });
  const o1 = await order(h, '2026-03-02T09:00:00Z', [[a, 2]], { customer_id: ada });
  await order(
    h,
    '2026-03-03T23:30:00Z',
    [
      [b, 1],
      [a, 1],
    ],
    { statuses: ['paid', 'fulfilled'], customer_id: bo },
  );
  await order(h, '2026-03-10T10:00:00Z', [[a, 3]], { codes: ['SAVE10'], customer_id: bo });
  await order(h, '2026-03-10T11:00:00Z', [[a, 5]], { statuses: [] });
  await order(h, '2026-03-10T12:00:00Z', [[b, 4]], { statuses: ['cancelled'] });
  h.clock.set('2026-03-12T08:00:00Z');
  expect((await h.call('POST', `/orders/${o1}/refunds`, { amount: 5 })).status).toBe(201);
  const other = await setup({ now: '2026-03-03T10:00:00Z' });
  await order(other, '2026-03-03T10:00:00Z', [[await mkProduct(other, 25), 1]]);
  h.clock.set('2026-03-20T12:00:00Z');
  return { h, a, b, ada, bo };
}

const zero = { gross_sales: 0, discounts: 0, refunds: 0, net_sales: 0, tax: 0, shipping: 0, total_sales: 0, orders: 0, average_order_value: 0 };

describe('analytics', () => {
  test('sales: hand-computed figures, weekly series adding up to them, and the previous period', async () => {
    const { h, a, b } = await seed();
    const as = { 'x-api-key': await h.newKey(['analytics:read']) };
    const r = await h.call('GET', '/analytics/sales?from=2026-03-01&to=2026-03-14&group_by=week&compare=true', undefined, as);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: 'sales_report',
      from: '2026-03-01',
      to: '2026-03-14',
      currency: 'USD',
      group_by: 'week',
      gross_sales: 85,
      discounts: 3,
      refunds: 5,
      net_sales: 77,
      tax: 0,
      shipping: 0,
      total_sales: 77,
      orders: 3,
      average_order_value: 27.33,
    });
    // Weeks start on Monday: 2026-03-01 is a Sunday, in the week of 02-23.
    expect(r.body.series).toEqual([
      { bucket: '2026-02-23', ...zero },
      { bucket: '2026-03-02', ...zero, gross_sales: 55, net_sales: 55, total_sales: 55, orders: 2, average_order_value: 27.5 },
      {
        bucket: '2026-03-09',
        ...zero,
        gross_sales: 30,
        discounts: 3,
        refunds: 5,
        net_sales: 22,
        total_sales: 22,
        orders: 1,
        average_order_value: 27,
      },
    ]);
    const sum = (k: string) => r.body.series.reduce((s: number, x: any) => s + x[k], 0);
    for (const k of ['gross_sales', 'discounts', 'refunds', 'net_sales', 'orders']) expect(sum(k)).toBe(r.body[k]);
    expect(r.body.top_products).toEqual([
      { product_id: a, name: 'Apple', units: 6, net_sales: 57 },
      { product_id: b, name: 'Banana', units: 1, net_sales: 25 },
    ]);
    // The 14 days before: 02-15 to 02-28, one order of 10.
    expect(r.body.previous).toMatchObject({ from: '2026-02-15', to: '2026-02-28', gross_sales: 10, orders: 1, net_sales: 10 });
    // Daily buckets: one per date of the period.
    const daily = (await h.call('GET', '/analytics/sales?from=2026-03-01&to=2026-03-14', undefined, as)).body;
    expect(daily.series.length).toBe(14);
    expect(daily.series.find((x: any) => x.bucket === '2026-03-12')).toMatchObject({ refunds: 5, orders: 0, net_sales: -5 });
    // Monthly.
    const monthly = (await h.call('GET', '/analytics/sales?from=2026-02-01&to=2026-03-31&group_by=month', undefined, as)).body;
    expect(monthly.series.map((x: any) => [x.bucket, x.orders, x.gross_sales])).toEqual([
      ['2026-02-01', 1, 10],
      ['2026-03-01', 3, 85],
    ]);
  });

  test("dates are the store's time zone; the default is the last 30 days; end before start is 400", async () => {
    const { h } = await seed();
    // Default: 30 days up to today (2026-03-20): 02-19 to 03-20, all four counted orders.
    const d = (await h.call('GET', '/analytics/sales')).body;
    expect(d).toMatchObject({ from: '2026-02-19', to: '2026-03-20', orders: 4, gross_sales: 95 });
    // 2026-03-03T23:30Z is already 03-04 in Berlin.
    expect((await h.call('PATCH', '/settings', { timezone: 'Europe/Berlin' })).status).toBe(200);
    const berlin = (await h.call('GET', '/analytics/sales?from=2026-03-04&to=2026-03-04')).body;
    expect(berlin).toMatchObject({ orders: 1, gross_sales: 35 });
    const bad = await h.call('GET', '/analytics/sales?from=2026-03-10&to=2026-03-01');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('to');
    expect((await h.call('GET', '/analytics/sales?from=2026-02-30')).status).toBe(400);
    expect((await h.call('GET', '/analytics/sales?group_by=year')).body.error.param).toBe('group_by');
    // A key without analytics scopes is refused.
    expect((await h.call('GET', '/analytics/sales', undefined, { 'x-api-key': await h.newKey(['products:read']) })).status).toBe(403);
  });

  test('inventory: stock value, low stock, sell-through and days of cover', async () => {
    const { h, a, b } = await seed();
    const low = await mkProduct(h, 4, 3, 'Cherry');
    const r = await h.call('GET', '/analytics/inventory?from=2026-03-01&to=2026-03-14');
    expect(r.status).toBe(200);
    // On hand: A 100-1-2-1-3-5 = 88 (the pending order holds its units), B 100-1 = 99 (cancelled ones go back), Cherry 3.
    expect(r.body.stock_value).toBe(88 * 10 + 99 * 25 + 3 * 4);
    expect(r.body.low_stock).toEqual([{ product_id: low, name: 'Cherry', on_hand: 3 }]);
    const byId = Object.fromEntries(r.body.products.map((p: any) => [p.product_id, p]));
    expect(byId[a]).toEqual({
      product_id: a,
      name: 'Apple',
      on_hand: 88,
      units_sold: 6,
      sell_through_rate: Math.round((6 / 94) * 10000) / 10000,
      days_of_cover: Math.round((88 / (7 / 30)) * 10) / 10,
    });
    // (days of cover: the 30 days to 03-14 also hold February's 20th, 7 units of A.)
    expect(byId[b]).toMatchObject({ units_sold: 1, days_of_cover: 99 * 30 });
    expect(byId[low]).toMatchObject({ units_sold: 0, sell_through_rate: 0, days_of_cover: null });
    expect((await h.call('GET', '/analytics/inventory?low_stock_threshold=99')).body.low_stock.map((p: any) => p.name).sort()).toEqual([
      'Apple',
      'Banana',
      'Cherry',
    ]);
  });

  test('customers: new, returning, lifetime value, top customers and cohorts', async () => {
    const { h, ada, bo } = await seed();
    const r = await h.call('GET', '/analytics/customers?from=2026-03-01&to=2026-03-31&compare=true');
    expect(r.status).toBe(200);
    // Ada first ordered in February (returning); Bo's first order is in March (new).
    // Lifetime: Ada 10 + 20 - 5 = 25; Bo 35 + 27 = 62; average 43.5.
    expect(r.body).toMatchObject({ customers: 2, new_customers: 1, returning_customers: 1, average_lifetime_value: 43.5 });
    expect(r.body.top_customers).toEqual([
      { customer_id: bo, orders: 2, lifetime_value: 62 },
      { customer_id: ada, orders: 2, lifetime_value: 25 },
    ]);
    expect(r.body.cohorts).toEqual([{ cohort: '2026-03', customers: 1, retained: [] }]);
    // February's cohort (Ada) came back in March.
    const feb = (await h.call('GET', '/analytics/customers?from=2026-02-01&to=2026-03-31')).body;
    expect(feb.cohorts).toEqual([
      { cohort: '2026-02', customers: 1, retained: [1] },
      { cohort: '2026-03', customers: 1, retained: [] },
    ]);
    expect(r.body.previous).toMatchObject({ from: '2026-01-29', to: '2026-02-28', customers: 1, new_customers: 1 });
  });

  test('sales_report over MCP', async () => {
    const { h } = await seed();
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'analytics', arguments: { action: 'sales_report', from: '2026-03-01', to: '2026-03-14' } });
    await client.close();
    expect(JSON.parse(out.content[0].text)).toMatchObject({ object: 'sales_report', net_sales: 77, orders: 3 });
  });
});
