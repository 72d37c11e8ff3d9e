import { describe, expect, test } from 'bun:test';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const DAY = 86_400_000;
const mkProduct = async (h: Harness, retail: number) =>
  (await h.call('POST', '/products', product({ pricing_data: { retail }, stock_quantity: 1000 }))).body.id as string;
const mkAffiliate = async (h: Harness, over: object = {}, headers?: Record<string, string>) => {
  const r = await h.call(
    'POST',
    '/affiliates',
    { name: 'Ada', email: 'ada@example.com', code: `A${crypto.randomUUID().slice(0, 8)}`, commission: { type: 'percentage', value: 10 }, ...over },
    headers,
  );
  expect(r.status).toBe(201);
  return r.body;
};
const order = async (h: Harness, lines: [string, number][], extra: object = {}) =>
  (await h.call('POST', '/orders', { line_items: lines.map(([product_id, quantity]) => ({ product_id, quantity })), status: 'paid', ...extra })).body;
const attribute = (h: Harness, order_id: string, code: string) => h.call('POST', '/affiliates/attributions', { order_id, code });
const earnings = async (h: Harness, id: string) => (await h.call('GET', `/affiliates/${id}/earnings`)).body;
const react = async (h: Harness) => runJob(h, 'affiliates.on', await takeQueued(h, 'affiliates.on'));

describe('affiliates', () => {
  test('create and list with commerce scopes; the code is unique ignoring case; the link counts a click and redirects with ?ref', async () => {
    const h = await setup();
    await h.call('PATCH', '/settings', { website_url: 'https://shop.example.com/welcome?lang=en' });
    const as = { 'x-api-key': await h.newKey(['commerce:read', 'commerce:write']) };
    const a = await mkAffiliate(h, { code: 'Ada10' }, as);
    expect(a).toMatchObject({ object: 'affiliate', code: 'Ada10', commission: { type: 'percentage', value: 10 }, refund_window_days: 30, clicks: 0 });
    expect(a.link).toMatch(new RegExp(`/r/${h.store.id}/Ada10$`));
    const dup = await h.call(
      'POST',
      '/affiliates',
      { name: 'B', email: 'b@example.com', code: 'ADA10', commission: { type: 'fixed', value: 5 } },
      as,
    );
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'duplicate_code', param: 'code' });
    const click = await h.raw('GET', new URL(a.link).pathname.replace('Ada10', 'ada10'));
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('https://shop.example.com/welcome?lang=en&ref=Ada10');
    await h.raw('GET', new URL(a.link).pathname);
    expect((await h.call('GET', '/affiliates?code=ada10', undefined, as)).body.data[0].clicks).toBe(2);
    expect((await h.raw('GET', `/r/${h.store.id}/nobody`)).status).toBe(404);
    expect((await h.call('GET', '/affiliates', undefined, { 'x-api-key': await h.newKey(['orders:read']) })).status).toBe(403);
    expect(
      (await h.call('POST', '/affiliates', { name: 'C', email: 'c@example.com', code: 'C1', commission: { type: 'percentage', value: 101 } })).status,
    ).toBe(400);
  });

  test('commission: percentage of the subtotal after discounts (no tax), fixed per order, and a product rule wins for its lines', async () => {
    const h = await setup();
    const p = await mkProduct(h, 40);
    const q = await mkProduct(h, 10);
    await h.call('POST', '/coupons', { code: 'TEN', percent_off: 10 });
    const pct = await mkAffiliate(h, { commission: { type: 'percentage', value: 10 } });
    const o1 = await order(
      h,
      [
        [p, 1],
        [q, 2],
      ],
      { discount_codes: ['TEN'] },
    ); // 60 - 6 = 54
    expect((await attribute(h, o1.id, pct.code)).body).toMatchObject({ earned: 5.4, amount: 5.4, status: 'pending' });
    const fixed = await mkAffiliate(h, {
      commission: { type: 'fixed', value: 3 },
      product_commissions: [{ product_id: p, type: 'fixed', value: 2 }],
    });
    // p's rule: 2 per unit (3 units = 6); q's lines earn the order's fixed 3.
    const o2 = await order(h, [
      [p, 3],
      [q, 1],
    ]);
    expect((await attribute(h, o2.id, fixed.code)).body.earned).toBe(9);
    const mixed = await mkAffiliate(h, {
      commission: { type: 'fixed', value: 3 },
      product_commissions: [{ product_id: p, type: 'percentage', value: 25 }],
    });
    // Only p's lines: its rule (25% of 80 = 20), and no per-order amount (no other line).
    const o3 = await order(h, [[p, 2]]);
    expect((await attribute(h, o3.id, mixed.code)).body.earned).toBe(20);
  });

  test('one affiliate per order (409), cancelled orders earn nothing, unknown code or order is 404', async () => {
    const h = await setup();
    const p = await mkProduct(h, 10);
    const a = await mkAffiliate(h);
    const b = await mkAffiliate(h);
    const o = await order(h, [[p, 1]]);
    expect((await attribute(h, o.id, a.code)).status).toBe(201);
    const again = await attribute(h, o.id, b.code);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'order_already_attributed', param: 'order_id' });
    const c = await order(h, [[p, 1]], { status: 'pending' });
    await h.call('POST', `/orders/${c.id}/cancel`, {});
    expect((await attribute(h, c.id, a.code)).body.error.code).toBe('order_cancelled');
    expect((await attribute(h, o.id, 'nope')).body.error).toMatchObject({ code: 'resource_missing', param: 'code' });
    const other = await setup();
    expect((await attribute(other, o.id, (await mkAffiliate(other)).code)).status).toBe(404);
    // An attributed order cancelled later earns nothing.
    const d = await order(h, [[p, 1]]);
    await attribute(h, d.id, b.code);
    await h.call('POST', `/orders/${d.id}/cancel`, {});
    await react(h);
    expect((await earnings(h, b.id)).commissions[0]).toMatchObject({ order_id: d.id, earned: 1, amount: 0 });
  });

  test('parallel attributions of one order: exactly one succeeds', async () => {
    const h = await setup();
    const p = await mkProduct(h, 10);
    const affs = await Promise.all(Array.from({ length: 8 }, () => mkAffiliate(h)));
    const o = await order(h, [[p, 1]]);
    const results = await Promise.all(affs.map((a) => attribute(h, o.id, a.code)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'order_already_attributed')).toBe(true);
    expect(results.filter((r) => r.status !== 201 && r.status !== 409)).toHaveLength(0);
  });

  test('earnings are pending through the refund window, lowered by a refund in it, then payable; a payout pays all that is payable', async () => {
    const h = await setup({ now: '2026-03-01T00:00:00Z' });
    const p = await mkProduct(h, 50);
    const a = await mkAffiliate(h, { refund_window_days: 14 });
    const o1 = await order(h, [[p, 2]]); // earns 10
    const o2 = await order(h, [[p, 1]]); // earns 5
    await attribute(h, o1.id, a.code);
    await attribute(h, o2.id, a.code);
    expect(await earnings(h, a.id)).toMatchObject({ pending: 15, payable: 0, paid: 0, currency: 'USD' });
    expect((await h.call('POST', `/affiliates/${a.id}/payouts`, {})).body.error.code).toBe('nothing_payable');
    // Half of o1 refunded inside the window: its commission halves.
    await h.call('POST', `/orders/${o1.id}/refunds`, { amount: 50 });
    await react(h);
    expect((await earnings(h, a.id)).pending).toBe(10);
    h.clock.advance(15 * DAY);
    // After the window a refund no longer lowers it.
    await h.call('POST', `/orders/${o2.id}/refunds`, { amount: 50 });
    await react(h);
    expect(await earnings(h, a.id)).toMatchObject({ pending: 0, payable: 10 });
    const paid = await h.call('POST', `/affiliates/${a.id}/payouts`, {});
    expect(paid.status).toBe(201);
    expect(paid.body).toMatchObject({ object: 'affiliate_payout', amount: 10, currency: 'USD' });
    const e = await earnings(h, a.id);
    expect(e).toMatchObject({ pending: 0, payable: 0, paid: 10 });
    expect(e.commissions.every((c: any) => c.status === 'paid' && c.payout_id === paid.body.id)).toBe(true);
    expect(e.payouts.map((x: any) => x.id)).toEqual([paid.body.id]);
  });

  test('each affiliates tool answers one MCP call', async () => {
    const h = await setup();
    const p = await mkProduct(h, 20);
    const { client } = await mcpClient(h);
    const call = async (args: Record<string, unknown>) => {
      const out: any = await client.callTool({ name: 'affiliates', arguments: args });
      return JSON.parse(out.content[0].text);
    };
    const a = await call({
      action: 'create_affiliate',
      name: 'M',
      email: 'm@example.com',
      code: 'MCP1',
      commission: { type: 'percentage', value: 5 },
    });
    expect(a.code).toBe('MCP1');
    expect((await call({ action: 'list_affiliates' })).data).toHaveLength(1);
    const o = await order(h, [[p, 1]]);
    expect(await call({ action: 'attribute_order', order_id: o.id, code: 'mcp1' })).toMatchObject({ earned: 1 });
    expect(await call({ action: 'get_earnings', id: a.id })).toMatchObject({ pending: 1 });
    expect(JSON.stringify(await call({ action: 'create_payout', id: a.id }))).toContain('nothing_payable');
    await client.close();
  });
});
