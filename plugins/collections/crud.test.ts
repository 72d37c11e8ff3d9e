/** The rest of the collections CRUD (issue 21): get, update, delete, a collection's products (cursor), removing a product. */
import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

async function catalog() {
  const h = await setup();
  const mkProduct = async (over: Record<string, unknown> = {}) => {
    const r = await h.call('POST', '/products', product(over));
    expect(r.status).toBe(201);
    return r.body;
  };
  const mkCollection = async (body: Record<string, unknown> = {}) => {
    const r = await h.call('POST', '/collections', { title: `Collection ${crypto.randomUUID().slice(0, 8)}`, ...body });
    expect(r.status).toBe(201);
    return r.body;
  };
  const add = async (id: string, productIds: string[]) =>
    expect((await h.call('POST', `/collections/${id}/products`, { product_ids: productIds })).status).toBe(200);
  return { h, mkProduct, mkCollection, add };
}

const expectError = (r: { status: number; body: any }, status: number, code: string, param: string | null) =>
  expect({ status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status, code, param });

describe('get and update', () => {
  test("get answers the collection as listed; unknown, malformed and other stores' ids are 404 naming id", async () => {
    const { h, mkProduct, mkCollection, add } = await catalog();
    const c = await mkCollection({ title: 'Summer' });
    await add(c.id, [(await mkProduct()).id]);
    const got = await h.call('GET', `/collections/${c.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual((await h.call('GET', '/collections')).body.data[0]);
    expect(got.body.product_count).toBe(1);
    for (const id of [crypto.randomUUID(), 'nope']) expectError(await h.call('GET', `/collections/${id}`), 404, 'resource_missing', 'id');
    const other = await setup();
    expectError(await other.call('GET', `/collections/${c.id}`), 404, 'resource_missing', 'id');
  });

  test('update changes the fields given, keeps the rest; a new title keeps the handle; null clears the description', async () => {
    const { h, mkCollection } = await catalog();
    const c = await mkCollection({ title: 'Summer Sale', description: 'Hot' });
    h.clock.advance(1000);
    const r = await h.call('PATCH', `/collections/${c.id}`, { title: 'Summer Sale 2026', description: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: c.id, title: 'Summer Sale 2026', handle: 'summer-sale', description: null, created_at: c.created_at });
    expect(r.body.updated_at).not.toBe(c.updated_at);
    const moved = await h.call('PATCH', `/collections/${c.id}`, { handle: 'summer-2026' });
    expect(moved.body).toMatchObject({ title: 'Summer Sale 2026', handle: 'summer-2026', description: null });
    expect((await h.call('GET', '/collections?handle=summer-2026')).body.data.map((x: any) => x.id)).toEqual([c.id]);
  });

  test('update refuses a taken handle (409 duplicate_handle), a bad handle or blank title (400), an unknown field', async () => {
    const { h, mkCollection } = await catalog();
    await mkCollection({ handle: 'taken' });
    const c = await mkCollection({ handle: 'mine' });
    expectError(await h.call('PATCH', `/collections/${c.id}`, { handle: 'taken' }), 409, 'duplicate_handle', 'handle');
    expectError(await h.call('PATCH', `/collections/${c.id}`, { handle: 'Not A Handle' }), 400, 'validation_failed', 'handle');
    expectError(await h.call('PATCH', `/collections/${c.id}`, { title: '   ' }), 400, 'validation_failed', 'title');
    expectError(await h.call('PATCH', `/collections/${c.id}`, { colour: 'red' }), 400, 'validation_failed', 'colour');
    expect((await h.call('PATCH', `/collections/${c.id}`, { handle: 'mine' })).status).toBe(200);
    expectError(await h.call('PATCH', `/collections/${crypto.randomUUID()}`, { title: 'x' }), 404, 'resource_missing', 'id');
  });
});

describe('delete', () => {
  test('delete answers the id; the collection is gone, its handle free, its products untouched', async () => {
    const { h, mkProduct, mkCollection, add } = await catalog();
    const p = await mkProduct();
    const c = await mkCollection({ handle: 'gone-soon' });
    await add(c.id, [p.id]);
    const r = await h.call('DELETE', `/collections/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ object: 'collection', id: c.id, deleted: true });
    for (const [method, path] of [
      ['GET', `/collections/${c.id}`],
      ['GET', `/collections/${c.id}/products`],
      ['DELETE', `/collections/${c.id}`],
    ])
      expectError(await h.call(method, path), 404, 'resource_missing', 'id');
    expect((await h.call('GET', `/products/${p.id}`)).status).toBe(200);
    expect((await h.call('POST', '/collections', { title: 'Again', handle: 'gone-soon' })).status).toBe(201);
    const [{ n }] = await h.db.query<{ n: string }>('SELECT count(*) AS n FROM collection_products WHERE collection_id = $1', [c.id]);
    expect(Number(n)).toBe(0);
  });

  test('deletion racing add_products: no membership outlives its collection', async () => {
    const { h, mkProduct, mkCollection } = await catalog();
    const products = [await mkProduct(), await mkProduct(), await mkProduct()];
    for (let round = 0; round < 5; round++) {
      const c = await mkCollection();
      const adds = products.map((p) => () => h.call('POST', `/collections/${c.id}/products`, { product_ids: [p.id] }));
      const at = round % 4;
      const calls = [...adds.slice(0, at), () => h.call('DELETE', `/collections/${c.id}`), ...adds.slice(at)];
      const answers = await Promise.all(calls.map((call) => call()));
      expect(answers[at].status).toBe(200);
      for (const a of answers.filter((_, i) => i !== at)) expect([200, 404]).toContain(a.status);
      const [{ n }] = await h.db.query<{ n: string }>('SELECT count(*) AS n FROM collection_products WHERE collection_id = $1', [c.id]);
      expect(Number(n)).toBe(0);
    }
  });
});

describe("a collection's products", () => {
  test('listed as full products in the order they were added, archived ones hidden', async () => {
    const { h, mkProduct, mkCollection, add } = await catalog();
    const [a, b, c] = [await mkProduct({ name: 'A' }), await mkProduct({ name: 'B' }), await mkProduct({ name: 'C' })];
    const col = await mkCollection();
    await add(col.id, [b.id, a.id]);
    await add(col.id, [c.id]);
    const r = await h.call('GET', `/collections/${col.id}/products`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'list', has_more: false, url: `${h.base}/collections/${col.id}/products` });
    expect(r.body.data.map((p: any) => p.name)).toEqual(['B', 'A', 'C']);
    expect(r.body.data[0]).toEqual((await h.call('GET', `/products/${b.id}`)).body);
    await h.call('DELETE', `/products/${a.id}`);
    expect((await h.call('GET', `/collections/${col.id}/products`)).body.data.map((p: any) => p.name)).toEqual(['B', 'C']);
  });

  test('cursor pagination walks every product once, forwards and backwards', async () => {
    const { h, mkProduct, mkCollection, add } = await catalog();
    const col = await mkCollection();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await mkProduct({ name: `P${i}` })).id);
    await add(col.id, ids);
    const seen: string[] = [];
    let page = await h.call('GET', `/collections/${col.id}/products?limit=3`);
    for (;;) {
      seen.push(...page.body.data.map((p: any) => p.id));
      if (!page.body.has_more) break;
      page = await h.call('GET', `/collections/${col.id}/products?limit=3&starting_after=${seen.at(-1)}`);
    }
    expect(seen).toEqual(ids);
    const before = await h.call('GET', `/collections/${col.id}/products?limit=3&ending_before=${ids[5]}`);
    expect(before.body.data.map((p: any) => p.id)).toEqual(ids.slice(2, 5));
    expect(before.body.has_more).toBe(true);
  });

  test('a cursor that is not a product of this collection is 400 invalid_cursor; both cursors at once is 400', async () => {
    const { h, mkProduct, mkCollection } = await catalog();
    const col = await mkCollection();
    const outsider = await mkProduct();
    expectError(await h.call('GET', `/collections/${col.id}/products?starting_after=${outsider.id}`), 400, 'invalid_cursor', 'starting_after');
    expectError(await h.call('GET', `/collections/${col.id}/products?ending_before=${outsider.id}`), 400, 'invalid_cursor', 'ending_before');
    const both = await h.call('GET', `/collections/${col.id}/products?starting_after=${outsider.id}&ending_before=${outsider.id}`);
    expectError(both, 400, 'validation_failed', 'ending_before');
  });
});

describe('removing a product', () => {
  test('takes the product out (it stays a product), answers the collection; a product not in it is 404 naming product_id', async () => {
    const { h, mkProduct, mkCollection, add } = await catalog();
    const [a, b] = [await mkProduct(), await mkProduct()];
    const col = await mkCollection();
    await add(col.id, [a.id, b.id]);
    h.clock.advance(1000);
    const r = await h.call('DELETE', `/collections/${col.id}/products/${a.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'collection', id: col.id, product_ids: [b.id], product_count: 1 });
    expect(r.body.updated_at).not.toBe(col.updated_at);
    expect((await h.call('GET', `/products/${a.id}`)).status).toBe(200);
    expectError(await h.call('DELETE', `/collections/${col.id}/products/${a.id}`), 404, 'resource_missing', 'product_id');
    expectError(await h.call('DELETE', `/collections/${col.id}/products/not-a-uuid`), 404, 'resource_missing', 'product_id');
    expectError(await h.call('DELETE', `/collections/${crypto.randomUUID()}/products/${b.id}`), 404, 'resource_missing', 'id');
    // Added back, it goes to the end.
    await add(col.id, [a.id]);
    expect((await h.call('GET', `/collections/${col.id}`)).body.product_ids).toEqual([b.id, a.id]);
  });

  test('parallel removals of one product: exactly one 200, the rest 404', async () => {
    const { h, mkProduct, mkCollection, add } = await catalog();
    const p = await mkProduct();
    const col = await mkCollection();
    await add(col.id, [p.id]);
    const answers = await Promise.all(Array.from({ length: 5 }, () => h.call('DELETE', `/collections/${col.id}/products/${p.id}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404, 404, 404]);
  });
});

describe('scopes and tools', () => {
  test('catalog:read reads but cannot update, delete or remove (403); a key without catalog scopes cannot read', async () => {
    const { h, mkProduct, mkCollection, add } = await catalog();
    const p = await mkProduct();
    const col = await mkCollection();
    await add(col.id, [p.id]);
    const reader = await h.newKey(['catalog:read']);
    const as = (key: string) => ({ 'x-api-key': key });
    expect((await h.call('GET', `/collections/${col.id}`, undefined, as(reader))).status).toBe(200);
    expect((await h.call('GET', `/collections/${col.id}/products`, undefined, as(reader))).status).toBe(200);
    for (const [method, path, body] of [
      ['PATCH', `/collections/${col.id}`, { title: 'x' }],
      ['DELETE', `/collections/${col.id}`],
      ['DELETE', `/collections/${col.id}/products/${p.id}`],
    ] as const)
      expectError(await h.call(method, path, body, as(reader)), 403, 'insufficient_scope', null);
    const stranger = await h.newKey(['orders']);
    expectError(await h.call('GET', `/collections/${col.id}`, undefined, as(stranger)), 403, 'insufficient_scope', null);
  });

  test('the new actions are MCP tools: get, list products and remove over the collections tool', async () => {
    const { h, mkProduct, mkCollection, add } = await catalog();
    const p = await mkProduct({ name: 'Over MCP' });
    const col = await mkCollection();
    await add(col.id, [p.id]);
    const { client } = await mcpClient(h);
    try {
      const listed: any = await client.callTool({ name: 'collections_list_collection_products', arguments: { id: col.id } });
      expect(listed.structuredContent.data.map((x: any) => x.name)).toEqual(['Over MCP']);
      const removed: any = await client.callTool({ name: 'collections', arguments: { action: 'remove_product', id: col.id, product_id: p.id } });
      expect(removed.structuredContent.product_ids).toEqual([]);
      const got: any = await client.callTool({ name: 'collections_get_collection', arguments: { id: col.id } });
      expect(got.structuredContent.product_count).toBe(0);
    } finally {
      await client.close();
    }
  });
});
