/** Loyalty (issue 46): the ledger, earning on paid orders, taking back on refunds, rewards and their coupons. */
import { describe, expect, test } from 'bun:test';
import { backend } from '../../test/kit/db';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const mkProduct = async (h: Harness, retail: number) =>
  (await h.call('POST', '/products', product({ pricing_data: { retail }, stock_quantity: 1000 }))).body.id as string;
const mkCustomer = async (h: Harness) =>
  (await h.call('POST', '/customers', { email: `c${crypto.randomUUID().slice(0, 8)}@example.com`, first_name: 'Ada' })).body.id as string;
const balance = async (h: Harness, customer_id: string) => (await h.call('GET', `/loyalty/balance?customer_id=${customer_id}`)).body.points;
/** Runs the reactions queued so far, as a worker would. */
const react = async (h: Harness) => {
  const jobs = await takeQueued(h, 'loyalty.on');
  if (jobs.length) await runJob(h, 'loyalty.on', jobs);
  return jobs;
};
const give = (h: Harness, customer_id: string, points: number) => h.call('POST', '/loyalty/points', { customer_id, points, reason: 'test' });

describe('earning and taking back', () => {
  test('a paid order earns points_per_unit per whole 1.00 of its subtotal after discounts, rounded down, once, naming the order', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const p = await mkProduct(h, 12.99);
    await h.call('POST', '/coupons', { code: 'TENOFF', percent_off: 10 });
    // 3 × 12.99 = 38.97, less 10% (3.90) = 35.07: 35 points; tax and shipping do not count.
    const o = (
      await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 3 }], discount_codes: ['TENOFF'], status: 'paid' })
    ).body;
    const jobs = await react(h);
    expect(jobs).toHaveLength(1);
    await runJob(h, 'loyalty.on', jobs); // run again, as after a crash before the acknowledgement
    expect(await balance(h, c)).toBe(35);
    const entries = (await h.call('GET', `/loyalty/entries?customer_id=${c}`)).body;
    expect(entries.data).toEqual([
      expect.objectContaining({ object: 'loyalty_entry', points: 35, kind: 'earn', order_id: o.id, reason: `Order ${o.order_number}` }),
    ]);
    // A pending order earns when it becomes paid; an order without a customer earns nothing.
    const pending = (await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 1 }] })).body;
    expect(await react(h)).toHaveLength(0);
    await h.call('PATCH', `/orders/${pending.id}`, { status: 'paid' });
    await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }], status: 'paid' });
    await react(h);
    expect(await balance(h, c)).toBe(47);
  });

  test('update_program changes points_per_unit for orders paid after it; get_program shows the default 1 and the currency', async () => {
    const h = await setup();
    expect((await h.call('GET', '/loyalty/program')).body).toEqual({
      object: 'loyalty_program',
      points_per_unit: 1,
      currency: 'USD',
      updated_at: null,
    });
    expect((await h.call('PATCH', '/loyalty/program', { points_per_unit: 3 })).body.points_per_unit).toBe(3);
    expect((await h.call('PATCH', '/loyalty/program', { points_per_unit: -1 })).body.error.param).toBe('points_per_unit');
    const c = await mkCustomer(h);
    await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: await mkProduct(h, 9.99), quantity: 1 }], status: 'paid' });
    await react(h);
    expect(await balance(h, c)).toBe(27);
  });

  test('a refund takes back what it earned, in proportion, all of it on a full refund, never below zero', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const p = await mkProduct(h, 25);
    const o = (await h.call('POST', '/orders', { customer_id: c, line_items: [{ product_id: p, quantity: 4 }], status: 'paid' })).body;
    await react(h);
    expect(await balance(h, c)).toBe(100);
    await h.call('POST', `/orders/${o.id}/refunds`, { amount: 30 });
    await react(h);
    expect(await balance(h, c)).toBe(70);
    // The customer spends 60 of the 70; the rest of the refund would take 70: only the 10 left go.
    expect((await give(h, c, -60)).status).toBe(201);
    await h.call('POST', `/orders/${o.id}/refunds`, {});
    const jobs = await react(h);
    await runJob(h, 'loyalty.on', jobs); // again: still taken once
    expect(await balance(h, c)).toBe(0);
    const kinds = (await h.call('GET', `/loyalty/entries?customer_id=${c}`)).body.data.map((e: any) => [e.kind, e.points]);
    expect(kinds).toEqual([
      ['refund', -10],
      ['manual', -60],
      ['refund', -30],
      ['earn', 100],
    ]);
  });
});

describe('the ledger by hand', () => {
  test('add_points needs a reason; taking away past the balance is 409 insufficient_points; entries page newest first', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    expect((await h.call('POST', '/loyalty/points', { customer_id: c, points: 5 })).body.error.param).toBe('reason');
    expect((await give(h, c, 0)).body.error.param).toBe('points');
    for (const n of [10, 20, 30]) expect((await give(h, c, n)).status).toBe(201);
    const over = await give(h, c, -61);
    expect(over.status).toBe(409);
    expect(over.body.error).toMatchObject({ code: 'insufficient_points', param: 'customer_id' });
    expect(over.body.error.message).toContain('60 points');
    expect((await give(h, c, -60)).status).toBe(201);
    expect(await balance(h, c)).toBe(0);
    const page1 = (await h.call('GET', `/loyalty/entries?customer_id=${c}&limit=2`)).body;
    expect(page1.data.map((e: any) => e.points)).toEqual([-60, 30]);
    expect(page1.has_more).toBe(true);
    const page2 = (await h.call('GET', `/loyalty/entries?customer_id=${c}&limit=2&starting_after=${page1.data[1].id}`)).body;
    expect(page2.data.map((e: any) => e.points)).toEqual([20, 10]);
  });

  test("another store's customer is 404 naming customer_id everywhere", async () => {
    const h = await setup();
    const other = await setup();
    const theirs = await mkCustomer(other);
    await give(other, theirs, 50);
    for (const r of [
      await h.call('GET', `/loyalty/balance?customer_id=${theirs}`),
      await h.call('GET', `/loyalty/entries?customer_id=${theirs}`),
      await give(h, theirs, 5),
    ])
      expect({ status: r.status, param: r.body.error.param }).toEqual({ status: 404, param: 'customer_id' });
    const reward = (await other.call('POST', '/loyalty/rewards', { name: 'Theirs', points_cost: 10, percent_off: 5 })).body;
    const mine = await mkCustomer(h);
    await give(h, mine, 50);
    expect((await h.call('POST', '/loyalty/redeem', { customer_id: mine, reward_id: reward.id })).body.error).toMatchObject({ param: 'reward_id' });
    expect((await h.call('GET', '/loyalty/rewards')).body.data).toEqual([]);
  });
});

describe('rewards', () => {
  test('redeem spends the points and answers a single-use coupon only that customer can use; past the balance is 409', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const someoneElse = await mkCustomer(h);
    const reward = (await h.call('POST', '/loyalty/rewards', { name: '5 off', points_cost: 50, amount_off: 5 })).body;
    expect(reward).toMatchObject({ object: 'loyalty_reward', name: '5 off', points_cost: 50, amount_off: 5, currency: 'USD', percent_off: null });
    expect((await h.call('POST', '/loyalty/rewards', { name: 'Both', points_cost: 5, amount_off: 5, percent_off: 5 })).status).toBe(400);
    expect((await h.call('GET', '/loyalty/rewards')).body.data).toEqual([reward]);
    await give(h, c, 70);
    const r = await h.call('POST', '/loyalty/redeem', { customer_id: c, reward_id: reward.id });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ object: 'loyalty_redemption', customer_id: c, reward_id: reward.id, points_spent: 50, balance: 20 });
    expect(r.body.entry).toMatchObject({ points: -50, kind: 'redeem', reward_id: reward.id, coupon_id: r.body.coupon_id });
    expect(await balance(h, c)).toBe(20);
    const coupon = (await h.call('GET', `/coupons/${r.body.coupon_id}`)).body;
    expect(coupon).toMatchObject({ code: r.body.coupon_code, amount_off: 5, currency: 'USD', usage_limit: 1, customer_id: c });
    const again = await h.call('POST', '/loyalty/redeem', { customer_id: c, reward_id: reward.id });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('insufficient_points');
    // The code: not for another customer, nor for an order without one; once for its customer.
    const p = await mkProduct(h, 20);
    const order = (customer_id?: string) =>
      h.call('POST', '/orders', {
        ...(customer_id ? { customer_id } : {}),
        line_items: [{ product_id: p, quantity: 1 }],
        discount_codes: [r.body.coupon_code],
      });
    for (const who of [someoneElse, undefined]) {
      const refused = await order(who);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ code: 'coupon_not_applicable', param: 'discount_codes.0' });
    }
    const used = await order(c);
    expect(used.status).toBe(201);
    expect(used.body).toMatchObject({ discount_total: 5, total: 15 });
    expect((await order(c)).body.error.message).toContain('usage_limit_reached');
  });

  test('a percent_off reward gives a percent_off coupon; scopes: commerce:write redeems, commerce:read reads only', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    const reward = (await h.call('POST', '/loyalty/rewards', { name: '10%', points_cost: 10, percent_off: 10 })).body;
    await give(h, c, 10);
    const writer = { 'x-api-key': await h.newKey(['commerce:write']) };
    const reader = { 'x-api-key': await h.newKey(['commerce:read']) };
    expect((await h.call('POST', '/loyalty/redeem', { customer_id: c, reward_id: reward.id }, reader)).status).toBe(403);
    const r = await h.call('POST', '/loyalty/redeem', { customer_id: c, reward_id: reward.id }, writer);
    expect(r.status).toBe(201);
    expect((await h.call('GET', `/coupons/${r.body.coupon_id}`)).body).toMatchObject({ percent_off: 10, amount_off: null });
    expect((await h.call('GET', `/loyalty/balance?customer_id=${c}`, undefined, reader)).body.points).toBe(0);
    expect((await h.call('GET', `/loyalty/balance?customer_id=${c}`, undefined, { 'x-api-key': await h.newKey(['orders']) })).status).toBe(403);
  });

  test('over MCP: loyalty tool answers a balance', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    await give(h, c, 42);
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'loyalty', arguments: { action: 'get_balance', customer_id: c } });
    await client.close();
    expect(JSON.parse(out.content[0].text)).toEqual({ object: 'loyalty_balance', customer_id: c, points: 42 });
  });
});

describe('loyalty under concurrency', () => {
  test.skipIf(backend !== 'postgres')(
    'on PostgreSQL (skipped on the embedded database: one transaction at a time): 50 parallel redeems against a balance for 5 spend exactly 5',
    async () => {
      const h = await setup();
      const c = await mkCustomer(h);
      const reward = (await h.call('POST', '/loyalty/rewards', { name: '1 off', points_cost: 20, amount_off: 1 })).body;
      await give(h, c, 110);
      const results = await Promise.all(
        Array.from({ length: 50 }, () => h.call('POST', '/loyalty/redeem', { customer_id: c, reward_id: reward.id })),
      );
      expect(results.filter((r) => r.status === 201).length).toBe(5);
      for (const r of results.filter((r) => r.status !== 201))
        expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 409, code: 'insufficient_points' });
      expect(await balance(h, c)).toBe(10);
      const codes = new Set(results.filter((r) => r.status === 201).map((r) => r.body.coupon_code));
      expect(codes.size).toBe(5);
      expect((await h.call('GET', '/coupons?limit=100')).body.data.length).toBe(5);
    },
  );

  test.skipIf(backend !== 'postgres')('on PostgreSQL (skipped on the embedded database): 50 parallel manual deductions never overdraw', async () => {
    const h = await setup();
    const c = await mkCustomer(h);
    await give(h, c, 100);
    const results = await Promise.all(Array.from({ length: 50 }, () => give(h, c, -7)));
    expect(results.filter((r) => r.status === 201).length).toBe(14);
    expect(await balance(h, c)).toBe(2);
  });
});
