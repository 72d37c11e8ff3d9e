import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const customer = async (h: Harness, body: Record<string, unknown>) => {
  const r = await h.call('POST', '/customers', body);
  expect(r.status).toBe(201);
  return r.body.id as string;
};
async function paidOrder(h: Harness, productId: string, quantity: number, customer_id: string, status = 'paid') {
  const o = await h.call('POST', '/orders', { line_items: [{ product_id: productId, quantity }], customer_id });
  expect(o.status).toBe(201);
  if (status !== 'pending') expect((await h.call('PATCH', `/orders/${o.body.id}`, { status })).status).toBe(200);
  return o.body.id as string;
}
const segment = async (h: Harness, match: string, conditions: object[]) => {
  const r = await h.call('POST', '/segments', { name: 'S', rules: { match, conditions } });
  expect(r.status).toBe(201);
  return r.body.id as string;
};
const members = async (h: Harness, id: string) => {
  const r = await h.call('GET', `/segments/${id}/members?limit=100`);
  expect(r.status).toBe(200);
  return (r.body.data as { email: string }[]).map((m) => m.email).sort();
};

/** Ada: VIP, marketing, two paid orders (30 + 20, one 100 days ago); Bo: one cancelled, one pending; Cy: none. */
async function seed() {
  const h = await setup({ now: '2026-01-01T00:00:00Z' });
  const p = (await h.call('POST', '/products', product({ pricing_data: { retail: 10 }, stock_quantity: 100 }))).body.id;
  const ada = await customer(h, {
    email: 'ada@example.com',
    first_name: 'Ada',
    tags: ['vip', 'wholesale'],
    accepts_marketing: true,
    metadata: { tier: 'gold' },
  });
  const bo = await customer(h, { email: 'bo@shop.test', first_name: 'Bo', tags: ['new'] });
  await customer(h, { email: 'cy@example.com' });
  await paidOrder(h, p, 3, ada);
  h.clock.set('2026-04-01T00:00:00Z');
  await paidOrder(h, p, 2, ada, 'fulfilled');
  await paidOrder(h, p, 5, bo, 'cancelled');
  await paidOrder(h, p, 4, bo, 'pending');
  return { h, ada, bo };
}

describe('segments', () => {
  test('profile fields, tags, metadata and counted order figures select the members now', async () => {
    const { h } = await seed();
    const cases: [string, object[], string[]][] = [
      ['all', [{ field: 'email', operator: 'contains', value: 'EXAMPLE' }], ['ada@example.com', 'cy@example.com']],
      ['all', [{ field: 'tags', operator: 'contains', value: 'vip' }], ['ada@example.com']],
      ['all', [{ field: 'tags', operator: 'in', value: ['new', 'x'] }], ['bo@shop.test']],
      ['all', [{ field: 'accepts_marketing', operator: 'eq', value: true }], ['ada@example.com']],
      ['all', [{ field: 'metadata.tier', operator: 'eq', value: 'gold' }], ['ada@example.com']],
      ['all', [{ field: 'first_name', operator: 'exists', value: false }], ['cy@example.com']],
      ['all', [{ field: 'first_name', operator: 'in', value: ['ada', 'bo'] }], ['ada@example.com', 'bo@shop.test']],
      // Cancelled and pending orders never count: Bo has none.
      ['all', [{ field: 'orders_count', operator: 'gte', value: 1 }], ['ada@example.com']],
      ['all', [{ field: 'total_spent', operator: 'eq', value: 50 }], ['ada@example.com']],
      ['all', [{ field: 'total_spent', operator: 'gt', value: 20, within_days: 30 }], []],
      ['all', [{ field: 'total_spent', operator: 'eq', value: 20, within_days: 30 }], ['ada@example.com']],
      ['all', [{ field: 'average_order_value', operator: 'eq', value: 25 }], ['ada@example.com']],
      ['all', [{ field: 'last_order_at', operator: 'gte', value: '2026-03-01' }], ['ada@example.com']],
      ['all', [{ field: 'orders_count', operator: 'eq', value: 0 }], ['bo@shop.test', 'cy@example.com']],
      [
        'any',
        [
          { field: 'tags', operator: 'contains', value: 'new' },
          { field: 'orders_count', operator: 'gt', value: 1 },
        ],
        ['ada@example.com', 'bo@shop.test'],
      ],
      [
        'all',
        [
          { field: 'tags', operator: 'exists', value: true },
          { field: 'email', operator: 'neq', value: 'ADA@example.com' },
        ],
        ['bo@shop.test'],
      ],
      ['all', [{ field: 'created_at', operator: 'lt', value: '2026-02-01T00:00:00Z' }], ['ada@example.com', 'bo@shop.test', 'cy@example.com']],
    ];
    for (const [match, conditions, expected] of cases)
      expect([JSON.stringify(conditions), await members(h, await segment(h, match, conditions))]).toEqual([JSON.stringify(conditions), expected]);
    // Evaluated when read: a new customer is a member at once.
    const vip = await segment(h, 'all', [{ field: 'tags', operator: 'contains', value: 'vip' }]);
    await customer(h, { email: 'di@example.com', tags: ['vip'] });
    expect(await members(h, vip)).toEqual(['ada@example.com', 'di@example.com']);
  });

  test('an invalid rule is 400 naming the wrong part; values never reach SQL as text', async () => {
    const { h } = await seed();
    const bad: [object, string][] = [
      [{ field: 'password', operator: 'eq', value: 'x' }, 'rules.conditions.1.field'],
      [{ field: 'tags', operator: 'gt', value: 'x' }, 'rules.conditions.1.operator'],
      [{ field: 'orders_count', operator: 'gt', value: 'many' }, 'rules.conditions.1.value'],
      [{ field: 'email', operator: 'eq', value: 'a', within_days: 3 }, 'rules.conditions.1.within_days'],
      [{ field: 'email', operator: 'in', value: [] }, 'rules.conditions.1.value'],
      [{ field: 'last_order_at', operator: 'gt', value: '2026-02-30' }, 'rules.conditions.1.value'],
      [{ field: 'email', operator: 'exists', value: 'yes' }, 'rules.conditions.1.value'],
      [{ field: "metadata.x') OR 1=1 --", operator: 'eq', value: 'a' }, 'rules.conditions.1.field'],
    ];
    for (const [c, param] of bad) {
      const r = await h.call('POST', '/segments', {
        name: 'Bad',
        rules: { match: 'all', conditions: [{ field: 'email', operator: 'exists', value: true }, c] },
      });
      expect([r.status, r.body.error?.param]).toEqual([400, param]);
    }
    // A value that looks like SQL is only a value.
    const s = await segment(h, 'all', [{ field: 'email', operator: 'eq', value: "x' OR '1'='1" }]);
    expect(await members(h, s)).toEqual([]);
  });

  test('members come in cursor pages; another store sees neither the segment nor its members', async () => {
    const { h } = await seed();
    const all = await segment(h, 'all', [{ field: 'email', operator: 'exists', value: true }]);
    const first = await h.call('GET', `/segments/${all}/members?limit=2`);
    expect(first.body.data.map((m: any) => m.email)).toEqual(['cy@example.com', 'bo@shop.test']);
    expect(first.body.has_more).toBe(true);
    const next = await h.call('GET', `/segments/${all}/members?limit=2&starting_after=${first.body.data[1].id}`);
    expect([next.body.data.map((m: any) => m.email), next.body.has_more]).toEqual([['ada@example.com'], false]);
    const other = await setup();
    expect((await other.call('GET', `/segments/${all}/members`)).status).toBe(404);
    expect((await h.call('GET', '/segments')).body.data.map((x: any) => x.id)).toContain(all);
    // customers:read reads segments; it cannot make one.
    const ro = { 'x-api-key': await h.newKey(['customers:read']) };
    expect((await h.call('GET', `/segments/${all}/members`, undefined, ro)).status).toBe(200);
    expect(
      (
        await h.call(
          'POST',
          '/segments',
          { name: 'x', rules: { match: 'all', conditions: [{ field: 'email', operator: 'exists', value: true }] } },
          ro,
        )
      ).status,
    ).toBe(403);
  });

  test('get_members over MCP', async () => {
    const { h } = await seed();
    const s = await segment(h, 'all', [{ field: 'tags', operator: 'contains', value: 'vip' }]);
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'segments', arguments: { action: 'get_members', id: s } });
    await client.close();
    expect(JSON.parse(out.content[0].text).data.map((m: any) => m.email)).toEqual(['ada@example.com']);
  });
});
