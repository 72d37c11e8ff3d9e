/** Collections (SPEC 4.10 collections tool, 5.4 catalog scopes, 7 errors): create, handles, list, add_products atomically. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectError(r: { status: number; body: any }, status: number, type: string, code: string, param: string | null) {
  expect({ status: r.status, type: r.body.error?.type, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status, type, code, param });
}
const expect400 = (r: { status: number; body: any }, param: string | null) =>
  expectError(r, 400, 'invalid_request_error', 'validation_failed', param);
const expect404 = (r: { status: number; body: any }, param: string) => expectError(r, 404, 'not_found_error', 'resource_missing', param);

/** A store whose test key also holds `catalog` (the default all-scopes key covers SPEC 5.1's list, which has no catalog scope). */
async function catalogStore(now?: string) {
  const h = await setup({ now });
  const key = await h.newKey(['catalog', 'products']);
  const call = (method: string, path: string, body?: unknown) => h.call(method, path, body, { 'x-api-key': key });
  const mkProduct = async () => {
    const r = await h.call('POST', '/products', product());
    expect(r.status).toBe(201);
    return r.body.id as string;
  };
  const mkCollection = async (body: Record<string, unknown> = {}) => {
    const r = await call('POST', '/collections', { title: `Collection ${crypto.randomUUID().slice(0, 8)}`, ...body });
    expect(r.status).toBe(201);
    return r.body;
  };
  const all = async () => (await call('GET', '/collections?limit=100')).body.data as any[];
  return { h, call, mkProduct, mkCollection, all };
}
type Store = Awaited<ReturnType<typeof catalogStore>>;

describe('creating a collection', () => {
  let s: Store;
  beforeAll(async () => {
    s = await catalogStore('2026-04-01T09:30:00.000Z');
  });

  test('create answers 201 with an empty collection and a handle derived from the title', async () => {
    const r = await s.call('POST', '/collections', { title: 'Summer Sale', description: 'Hot deals' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      object: 'collection',
      id: expect.stringMatching(UUID),
      title: 'Summer Sale',
      handle: 'summer-sale',
      description: 'Hot deals',
      product_count: 0,
      product_ids: [],
      created_at: '2026-04-01T09:30:00.000Z',
      updated_at: '2026-04-01T09:30:00.000Z',
    });
    expect((await s.all()).find((c) => c.id === r.body.id)).toEqual(r.body);
  });

  test('derived handles fold accents and punctuation; a title with no ASCII letters gets a generated handle', async () => {
    expect((await s.mkCollection({ title: '  Été 2026 — Sale!!  ' })).handle).toBe('ete-2026-sale');
    expect((await s.mkCollection({ title: '夏のセール' })).handle).toMatch(/^collection-[0-9a-f]{8}$/);
    expect((await s.mkCollection({ title: 'x'.repeat(255) })).handle).toBe('x'.repeat(100));
  });

  test('an explicit handle is kept as given', async () => {
    const c = await s.mkCollection({ title: 'Winter', handle: 'cold-2026' });
    expect(c).toMatchObject({ title: 'Winter', handle: 'cold-2026', description: null });
  });

  test('a duplicate handle, given or derived, is 409 duplicate_handle with param handle, and nothing is created', async () => {
    await s.mkCollection({ title: 'Gifts', handle: 'gifts' });
    const before = (await s.all()).length;
    expectError(await s.call('POST', '/collections', { title: 'Other', handle: 'gifts' }), 409, 'conflict_error', 'duplicate_handle', 'handle');
    expectError(await s.call('POST', '/collections', { title: 'GIFTS!' }), 409, 'conflict_error', 'duplicate_handle', 'handle');
    expect((await s.all()).length).toBe(before);
    const other = await catalogStore();
    expect((await other.call('POST', '/collections', { title: 'Gifts', handle: 'gifts' })).status).toBe(201);
  });

  test('invalid input is 400 naming the field', async () => {
    expect400(await s.call('POST', '/collections', { description: 'no title' }), 'title');
    expect400(await s.call('POST', '/collections', { title: '' }), 'title');
    expect400(await s.call('POST', '/collections', { title: '   ' }), 'title');
    expect400(await s.call('POST', '/collections', { title: 'x'.repeat(256) }), 'title');
    for (const handle of ['Summer', 'summer sale', 'a--b', '-a', 'a-', 'é', '', 'x'.repeat(101)])
      expect400(await s.call('POST', '/collections', { title: 'T', handle }), 'handle');
    expect400(await s.call('POST', '/collections', { title: 'T', slug: 't' }), 'slug');
  });

  test('text PostgreSQL cannot store (U+0000, a lone surrogate) is a 400, never a 500', async () => {
    expect400(await s.call('POST', '/collections', { title: 'A\u0000B' }), 'title');
    expect400(await s.call('POST', '/collections', { title: 'T', description: '\u0000' }), 'description');
    expect400(await s.call('POST', '/collections', { title: '\ud800' }), 'title');
    expect400(await s.call('GET', '/collections?handle=a%00b'), 'handle');
  });
});

describe('listing collections', () => {
  let s: Store;
  let ids: string[];
  beforeAll(async () => {
    s = await catalogStore();
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await s.mkCollection({ handle: `list-${i}` })).id);
  });

  test('the list is newest first in the list envelope, and pages with cursors', async () => {
    const r = await s.call('GET', '/collections');
    expect(r.body).toMatchObject({ object: 'list', has_more: false, url: `${s.h.base}/collections` });
    expect(r.body.data.map((c: any) => c.id)).toEqual([...ids].reverse());
    const p1 = await s.call('GET', '/collections?limit=2');
    expect([p1.body.data.map((c: any) => c.id), p1.body.has_more]).toEqual([[ids[4], ids[3]], true]);
    const p2 = await s.call('GET', `/collections?limit=2&starting_after=${ids[3]}`);
    expect([p2.body.data.map((c: any) => c.id), p2.body.has_more]).toEqual([[ids[2], ids[1]], true]);
    const p3 = await s.call('GET', `/collections?limit=2&starting_after=${ids[1]}`);
    expect([p3.body.data.map((c: any) => c.id), p3.body.has_more]).toEqual([[ids[0]], false]);
    expect400(await s.call('GET', '/collections?limit=101'), 'limit');
  });

  test('handle filters to one collection, which carries its product_ids', async () => {
    const p = await s.mkProduct();
    expect((await s.call('POST', `/collections/${ids[2]}/products`, { product_ids: [p] })).status).toBe(200);
    const r = await s.call('GET', '/collections?handle=list-2');
    expect(r.body.data.map((c: any) => [c.id, c.product_ids, c.product_count])).toEqual([[ids[2], [p], 1]]);
    expect((await s.call('GET', '/collections?handle=nope')).body.data).toEqual([]);
  });

  test("another store's collections are not listed", async () => {
    const other = await catalogStore();
    const theirs = await other.mkCollection({ handle: 'list-0' });
    expect((await s.all()).map((c) => c.id)).not.toContain(theirs.id);
    expect((await s.call('GET', '/collections?handle=list-0')).body.data.map((c: any) => c.id)).toEqual([ids[0]]);
  });
});

describe('add_products', () => {
  let s: Store;
  beforeAll(async () => {
    s = await catalogStore('2026-04-01T00:00:00.000Z');
  });

  test('adds products in the order given and returns the collection with product_count and product_ids', async () => {
    const c = await s.mkCollection();
    const [a, b, d] = [await s.mkProduct(), await s.mkProduct(), await s.mkProduct()];
    s.h.clock.advance(1000);
    const r = await s.call('POST', `/collections/${c.id}/products`, { product_ids: [b, a] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...c, product_count: 2, product_ids: [b, a], updated_at: '2026-04-01T00:00:01.000Z' });
    const more = await s.call('POST', `/collections/${c.id}/products`, { product_ids: [d] });
    expect(more.body.product_ids).toEqual([b, a, d]);
  });

  test('adding a product twice is a no-op (also twice in one call), and updated_at stays put', async () => {
    const c = await s.mkCollection();
    const [a, b] = [await s.mkProduct(), await s.mkProduct()];
    const first = await s.call('POST', `/collections/${c.id}/products`, { product_ids: [a, a.toUpperCase()] });
    expect(first.body.product_ids).toEqual([a]);
    s.h.clock.advance(5000);
    const again = await s.call('POST', `/collections/${c.id}/products`, { product_ids: [a] });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const mixed = await s.call('POST', `/collections/${c.id}/products`, { product_ids: [a, b] });
    expect([mixed.body.product_ids, mixed.body.product_count]).toEqual([[a, b], 2]);
  });

  test('one unknown, other-store or deleted product id is 404 naming product_ids.N, and nothing is added', async () => {
    const c = await s.mkCollection();
    const good = await s.mkProduct();
    const other = await catalogStore();
    const foreign = await other.mkProduct();
    const archived = await s.mkProduct();
    expect((await s.h.call('DELETE', `/products/${archived}`)).status).toBe(200);
    expect404(await s.call('POST', `/collections/${c.id}/products`, { product_ids: [good, crypto.randomUUID()] }), 'product_ids.1');
    expect404(await s.call('POST', `/collections/${c.id}/products`, { product_ids: [good, good, foreign] }), 'product_ids.2');
    expect404(await s.call('POST', `/collections/${c.id}/products`, { product_ids: [archived, good] }), 'product_ids.0');
    const [now] = (await s.all()).filter((x) => x.id === c.id);
    expect([now.product_count, now.product_ids, now.updated_at]).toEqual([0, [], c.updated_at]);
  });

  test("a product deleted after being added leaves the collection's product_ids and count", async () => {
    const c = await s.mkCollection();
    const [a, b] = [await s.mkProduct(), await s.mkProduct()];
    await s.call('POST', `/collections/${c.id}/products`, { product_ids: [a, b] });
    expect((await s.h.call('DELETE', `/products/${a}`)).status).toBe(200);
    const [now] = (await s.all()).filter((x) => x.id === c.id);
    expect([now.product_count, now.product_ids]).toEqual([1, [b]]);
  });

  test('an unknown or other-store collection is 404 with param id', async () => {
    const p = await s.mkProduct();
    expect404(await s.call('POST', `/collections/${crypto.randomUUID()}/products`, { product_ids: [p] }), 'id');
    const other = await catalogStore();
    const theirs = await other.mkCollection();
    expect404(await s.call('POST', `/collections/${theirs.id}/products`, { product_ids: [p] }), 'id');
    expect((await other.all())[0].product_ids).toEqual([]);
  });

  test('product_ids must be 1 to 100 well-formed ids', async () => {
    const c = await s.mkCollection();
    expect400(await s.call('POST', `/collections/${c.id}/products`, {}), 'product_ids');
    expect400(await s.call('POST', `/collections/${c.id}/products`, { product_ids: [] }), 'product_ids');
    expect400(await s.call('POST', `/collections/${c.id}/products`, { product_ids: ['nope'] }), 'product_ids.0');
    const many = Array.from({ length: 101 }, () => crypto.randomUUID());
    expect400(await s.call('POST', `/collections/${c.id}/products`, { product_ids: many }), 'product_ids');
  });

  test('100 products in one call, and concurrent overlapping adds, leave each product in once', async () => {
    const c = await s.mkCollection();
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push(await s.mkProduct());
    const [r1, r2] = await Promise.all([
      s.call('POST', `/collections/${c.id}/products`, { product_ids: ids.slice(0, 60) }),
      s.call('POST', `/collections/${c.id}/products`, { product_ids: ids.slice(40, 100) }),
    ]);
    expect([r1.status, r2.status]).toEqual([200, 200]);
    const [now] = (await s.all()).filter((x) => x.id === c.id);
    expect(now.product_count).toBe(100);
    expect([...now.product_ids].sort()).toEqual([...ids].sort());
    expect((await s.call('POST', `/collections/${c.id}/products`, { product_ids: ids })).body.product_count).toBe(100);
  });
});

describe('scopes (SPEC 5.4: catalog, catalog:write; catalog:read for reads)', () => {
  test('catalog:read lists but cannot create or add (403); catalog:write can; customers or products keys cannot', async () => {
    const s = await catalogStore();
    const c = await s.mkCollection();
    const p = await s.mkProduct();
    const as = async (scopes: string[]) => ({ 'x-api-key': await s.h.newKey(scopes) });
    const reader = await as(['catalog:read']);
    expect((await s.h.call('GET', '/collections', undefined, reader)).status).toBe(200);
    expectError(await s.h.call('POST', '/collections', { title: 'X' }, reader), 403, 'permission_error', 'insufficient_scope', null);
    expectError(
      await s.h.call('POST', `/collections/${c.id}/products`, { product_ids: [p] }, reader),
      403,
      'permission_error',
      'insufficient_scope',
      null,
    );
    const writer = await as(['catalog:write']);
    expect((await s.h.call('POST', '/collections', { title: 'By writer' }, writer)).status).toBe(201);
    expect((await s.h.call('POST', `/collections/${c.id}/products`, { product_ids: [p] }, writer)).status).toBe(200);
    // A key with only SPEC 5.1 scopes (none of which is catalog) cannot read collections.
    expectError(
      await s.h.call('GET', '/collections', undefined, await as(['products:read', 'orders:read'])),
      403,
      'permission_error',
      'insufficient_scope',
      null,
    );
    expectError(
      await s.h.call('POST', '/collections', { title: 'X' }, await as(['customers', 'products'])),
      403,
      'permission_error',
      'insufficient_scope',
      null,
    );
  });
});
