import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const NOW = '2026-03-20T12:00:00Z';

const mk = async (h: Harness, name: string, retail: number, over: Record<string, unknown> = {}) => {
  const r = await h.call('POST', '/products', product({ name, pricing_data: { retail }, stock_quantity: 100, ...over }));
  expect(r.status).toBe(201);
  return r.body.id as string;
};
const customer = async (h: Harness) =>
  (await h.call('POST', '/customers', { email: `c.${crypto.randomUUID().slice(0, 8)}@example.com` })).body.id as string;

/** An order placed `ageDays` days before NOW, moved through `statuses` (default paid). */
async function order(h: Harness, ageDays: number, lines: [string, number][], opts: { statuses?: string[]; customer_id?: string } = {}) {
  h.clock.set(new Date(Date.parse(NOW) - ageDays * 86_400_000).toISOString());
  const r = await h.call('POST', '/orders', {
    line_items: lines.map(([product_id, quantity]) => ({ product_id, quantity })),
    ...(opts.customer_id ? { customer_id: opts.customer_id } : {}),
  });
  expect(r.status).toBe(201);
  for (const s of opts.statuses ?? ['paid']) expect((await h.call('PATCH', `/orders/${r.body.id}`, { status: s })).status).toBe(200);
  return r.body.id as string;
}

/**
 * The seeded set. Apple 10.00 {material: cotton}, Banana 12, Cherry 20, Date 11 {material:
 * cotton}, Elder 11 (its only unit sold: out of stock), Fig 10 (deleted after its sale), Grape 50,
 * Honeydew 9.50, Ivy 10 (draft). Collections: Summer {Apple, Cherry, Grape, Ivy}, Tops {Apple, Grape}.
 *   age 1  ada: Apple, Banana, Cherry     paid
 *   age 2  bo:  Apple, Banana             paid
 *   age 3       Apple, Fig                paid
 *   age 5       Apple, Elder              paid
 *   age 7       Apple x2, Date            paid, fulfilled
 *   age 8       Apple, Cherry, Date x5    pending (not counted)
 *   age 9       Apple, Date x5            cancelled (not counted)
 *   age 47      Date x10                  paid (outside trending's 30 days)
 *   another store: its own product, paid at age 1
 */
async function seed() {
  const h = await setup({ now: '2026-01-01T00:00:00Z' });
  const cotton = { metadata: { material: 'cotton' } };
  const p = {
    apple: await mk(h, 'Apple', 10, cotton),
    banana: await mk(h, 'Banana', 12),
    cherry: await mk(h, 'Cherry', 20),
    date: await mk(h, 'Date', 11, cotton),
    elder: await mk(h, 'Elder', 11, { stock_quantity: 1 }),
    fig: await mk(h, 'Fig', 10),
    grape: await mk(h, 'Grape', 50),
    honeydew: await mk(h, 'Honeydew', 9.5),
    ivy: await mk(h, 'Ivy', 10, { status: 'draft' }),
  };
  for (const [title, ids] of [
    ['Summer', [p.apple, p.cherry, p.grape, p.ivy]],
    ['Tops', [p.apple, p.grape]],
  ] as const) {
    const c = await h.call('POST', '/collections', { title });
    expect(c.status).toBe(201);
    expect((await h.call('POST', `/collections/${c.body.id}/products`, { product_ids: ids })).status).toBe(200);
  }
  const ada = await customer(h);
  const bo = await customer(h);
  await order(h, 47, [[p.date, 10]]);
  await order(
    h,
    9,
    [
      [p.apple, 1],
      [p.date, 5],
    ],
    { statuses: ['cancelled'] },
  );
  await order(
    h,
    8,
    [
      [p.apple, 1],
      [p.cherry, 1],
      [p.date, 5],
    ],
    { statuses: [] },
  );
  await order(
    h,
    7,
    [
      [p.apple, 2],
      [p.date, 1],
    ],
    { statuses: ['paid', 'fulfilled'] },
  );
  await order(h, 5, [
    [p.apple, 1],
    [p.elder, 1],
  ]);
  await order(h, 3, [
    [p.apple, 1],
    [p.fig, 1],
  ]);
  await order(
    h,
    2,
    [
      [p.apple, 1],
      [p.banana, 1],
    ],
    { customer_id: bo },
  );
  await order(
    h,
    1,
    [
      [p.apple, 1],
      [p.banana, 1],
      [p.cherry, 1],
    ],
    { customer_id: ada },
  );
  h.clock.set(NOW);
  expect((await h.call('DELETE', `/products/${p.fig}`)).status).toBe(200);
  const other = await setup({ now: NOW });
  const theirs = await mk(other, 'Theirs', 10);
  await order(other, 1, [[theirs, 3]]);
  other.clock.set(NOW);
  return { h, p, ada, bo, other, theirs };
}

const names = (body: any) => body.data.map((d: any) => d.product.name);
const w = (age: number) => 0.5 ** (age / 7);
const round = (n: number) => Math.round(n * 10000) / 10000;

describe('discovery', () => {
  test('rankings, exclusions and store walls', async () => {
    const { h, p, ada, other, theirs } = await seed();
    const as = { 'x-api-key': await h.newKey(['catalog:read']) };
    const get = (path: string) => h.call('GET', path, undefined, as);

    // Co-purchase of Apple: Banana in 2 counted orders, Cherry and Date in 1 (name breaks the tie);
    // Elder is out of stock, Fig deleted, the pending and cancelled orders do not count.
    let r = await get(`/discovery/recommendations?product_id=${p.apple}`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: any) => [d.product.name, d.score])).toEqual([
      ['Banana', 2],
      ['Cherry', 1],
      ['Date', 1],
    ]);
    expect(r.body.data[0].product_id).toBe(p.banana);
    expect(r.body.has_more).toBe(false);
    r = await get(`/discovery/recommendations?product_id=${p.apple}&include_out_of_stock=true&limit=3`);
    expect(names(r.body)).toEqual(['Banana', 'Cherry', 'Date']);
    expect(r.body.has_more).toBe(true);
    r = await get(`/discovery/recommendations?product_id=${p.apple}&include_out_of_stock=true`);
    expect(names(r.body)).toEqual(['Banana', 'Cherry', 'Date', 'Elder']);

    // Ada bought Apple, Banana, Cherry: what was bought with those, minus them.
    r = await get(`/discovery/recommendations?customer_id=${ada}`);
    expect(r.body.data.map((d: any) => [d.product.name, d.score])).toEqual([['Date', 1]]);

    // Similar to Apple: Grape shares 2 collections (6); Cherry 1 collection (3); Date the metadata
    // and the price band (2 + 1); Banana and Honeydew the band (1). Ivy is a draft, Fig deleted.
    r = await get(`/discovery/similar?product_id=${p.apple}`);
    expect(r.body.data.map((d: any) => [d.product.name, d.score])).toEqual([
      ['Grape', 6],
      ['Cherry', 3],
      ['Date', 3],
      ['Banana', 1],
      ['Honeydew', 1],
    ]);
    r = await get(`/discovery/similar?product_id=${p.apple}&include_out_of_stock=true`);
    expect(names(r.body)).toEqual(['Grape', 'Cherry', 'Date', 'Banana', 'Elder', 'Honeydew']);

    // Trending: units weighted by 0.5^(age/7); Date's sale 47 days ago is outside the window.
    r = await get('/discovery/trending');
    expect(r.body.data.map((d: any) => [d.product.name, d.score])).toEqual([
      ['Apple', round(w(1) + w(2) + w(3) + w(5) + 2 * w(7))],
      ['Banana', round(w(1) + w(2))],
      ['Cherry', round(w(1))],
      ['Date', round(w(7))],
    ]);
    r = await get('/discovery/trending?limit=2');
    expect(names(r.body)).toEqual(['Apple', 'Banana']);
    expect(r.body.has_more).toBe(true);

    // Another store sees only its own sales, and our ids are 404 there.
    const o = await other.call('GET', '/discovery/trending');
    expect(o.body.data.map((d: any) => [d.product_id, d.score])).toEqual([[theirs, round(3 * w(1))]]);
    expect((await other.call('GET', `/discovery/recommendations?product_id=${p.apple}`)).body.error).toMatchObject({ param: 'product_id' });
    expect((await other.call('GET', `/discovery/similar?product_id=${p.apple}`)).status).toBe(404);
    expect((await other.call('GET', `/discovery/recommendations?customer_id=${ada}`)).status).toBe(404);

    // Bad input: neither id, a limit over 50.
    expect((await get('/discovery/recommendations')).status).toBe(400);
    const big = await get('/discovery/trending?limit=51');
    expect(big.status).toBe(400);
    expect(big.body.error.param).toBe('limit');
  });

  test('over MCP', async () => {
    const { h, p } = await seed();
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'discovery', arguments: { action: 'get_recommendations', product_id: p.apple, limit: 1 } });
    await client.close();
    const body = JSON.parse(out.content[0].text);
    expect(body.data.map((d: any) => [d.product.name, d.score])).toEqual([['Banana', 2]]);
    expect(body.has_more).toBe(true);
  });
});
