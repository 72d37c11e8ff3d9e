/** Products (SPEC 2.2, 4.1, 7): create, validation, duplicate SKU, get/patch/delete, cursor pagination, store isolation. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function create(h: Harness, over: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/products', product(over));
  expect(r.status).toBe(201);
  return r.body;
}

/** Every live product of the store, walking all pages. */
async function allProducts(h: Harness, query = '') {
  const out: any[] = [];
  let after = '';
  for (;;) {
    const r = await h.call('GET', `/products?limit=100${query}${after ? `&starting_after=${after}` : ''}`);
    expect(r.status).toBe(200);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    after = r.body.data.at(-1).id;
  }
}

function expectError(r: { status: number; body: any }, status: number, type: string, code: string, param: string | null) {
  expect({ status: r.status, type: r.body.error?.type, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status, type, code, param });
}

describe('create', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup({ now: '2026-04-01T12:34:56.789Z' });
  });

  test('create answers 201 with the SPEC 2.2 fields and an ISO 8601 UTC created_at', async () => {
    const r = await h.call('POST', '/products', {
      name: 'Desk lamp',
      sku: 'LAMP-1',
      type: 'simple',
      status: 'active',
      pricing_data: { retail: 19.99 },
      stock_quantity: 7,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      object: 'product',
      name: 'Desk lamp',
      sku: 'LAMP-1',
      type: 'simple',
      status: 'active',
      pricing_data: { retail: 19.99 },
      stock_quantity: 7,
      stock_status: 'in_stock',
    });
    expect(r.body.id).toMatch(UUID);
    expect(r.body.created_at).toMatch(ISO_UTC);
    expect(r.body.created_at).toBe('2026-04-01T12:34:56.789Z');
    expect(r.headers.get('x-request-id')).toBeTruthy();
    // The stored product reads back identically.
    const got = await h.call('GET', `/products/${r.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
  });

  test('only name is required: a bare product is a simple, active product at 0.00 with no stock', async () => {
    const r = await h.call('POST', '/products', { name: 'Bare' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: 'Bare',
      sku: null,
      type: 'simple',
      status: 'active',
      pricing_data: { retail: 0 },
      stock_quantity: 0,
      stock_status: 'out_of_stock',
    });
  });

  test('a product without name is 400 validation_failed with param name, and nothing is created', async () => {
    const before = (await allProducts(h)).length;
    const { name, ...rest } = product();
    expectError(await h.call('POST', '/products', rest), 400, 'invalid_request_error', 'validation_failed', 'name');
    expect((await allProducts(h)).length).toBe(before);
  });

  test('a duplicate SKU in the same store is 409 duplicate_sku with param sku, and the original is untouched', async () => {
    const first = await create(h, { sku: 'DUP-1', name: 'First' });
    const before = (await allProducts(h)).length;
    const r = await h.call('POST', '/products', product({ sku: 'DUP-1', name: 'Second' }));
    expectError(r, 409, 'conflict_error', 'duplicate_sku', 'sku');
    expect((await allProducts(h)).length).toBe(before);
    expect((await h.call('GET', `/products/${first.id}`)).body.name).toBe('First');
  });

  test("PATCH onto another product's SKU is 409 duplicate_sku with param sku", async () => {
    await create(h, { sku: 'TAKEN-1' });
    const p = await create(h, { sku: 'FREE-1' });
    expectError(await h.call('PATCH', `/products/${p.id}`, { sku: 'TAKEN-1' }), 409, 'conflict_error', 'duplicate_sku', 'sku');
    expect((await h.call('GET', `/products/${p.id}`)).body.sku).toBe('FREE-1');
  });

  test("a new store's first products created at once all succeed, sharing one default location", async () => {
    const fresh = await setup();
    const made = await Promise.all(Array.from({ length: 20 }, () => fresh.call('POST', '/products', product({ stock_quantity: 3 }))));
    expect(made.map((r) => r.status)).toEqual(Array(20).fill(201));
    const locations = await fresh.call('GET', '/locations');
    expect(locations.body.data.filter((l: any) => l.is_default)).toHaveLength(1);
  });

  test('SKUs are unique per store: another store may use the same SKU', async () => {
    await create(h, { sku: 'SHARED-1' });
    const other = await setup();
    const r = await other.call('POST', '/products', product({ sku: 'SHARED-1' }));
    expect(r.status).toBe(201);
  });

  test('deleting a product frees its SKU for a new product', async () => {
    const p = await create(h, { sku: 'REUSE-1' });
    expect((await h.call('DELETE', `/products/${p.id}`)).status).toBe(200);
    expect((await h.call('POST', '/products', product({ sku: 'REUSE-1' }))).status).toBe(201);
  });

  test('a negative price is 400 with param pricing_data.retail (and compare_at likewise)', async () => {
    expectError(
      await h.call('POST', '/products', product({ pricing_data: { retail: -0.01 } })),
      400,
      'invalid_request_error',
      'validation_failed',
      'pricing_data.retail',
    );
    expectError(
      await h.call('POST', '/products', product({ pricing_data: { retail: 5, compare_at: -1 } })),
      400,
      'invalid_request_error',
      'validation_failed',
      'pricing_data.compare_at',
    );
  });

  test('a price with more than two decimals is 400 with param pricing_data.retail', async () => {
    for (const retail of [19.999, 0.001, 1.005, 100.125]) {
      expectError(
        await h.call('POST', '/products', product({ pricing_data: { retail } })),
        400,
        'invalid_request_error',
        'validation_failed',
        'pricing_data.retail',
      );
    }
    const p = await create(h);
    expectError(
      await h.call('PATCH', `/products/${p.id}`, { pricing_data: { retail: 2.555 } }),
      400,
      'invalid_request_error',
      'validation_failed',
      'pricing_data.retail',
    );
  });

  test('prices with up to two decimals are kept exactly (no float drift)', async () => {
    for (const retail of [0.1, 0.2, 0.3, 1.1, 19.99, 0.07, 1.15, 4.35, 1000000.01, 0]) {
      const r = await h.call('POST', '/products', product({ pricing_data: { retail } }));
      expect(r.status).toBe(201);
      expect(r.body.pricing_data.retail).toBe(retail);
    }
  });

  test('a price beyond what cents can count exactly is 400, not a 500', async () => {
    expectError(
      await h.call('POST', '/products', product({ pricing_data: { retail: 1e17 } })),
      400,
      'invalid_request_error',
      'validation_failed',
      'pricing_data.retail',
    );
  });

  test('text with a NUL character is 400 naming the field, not a 500', async () => {
    for (const field of ['name', 'sku', 'description']) {
      expectError(await h.call('POST', '/products', product({ [field]: 'a\u0000b' })), 400, 'invalid_request_error', 'validation_failed', field);
    }
  });
});

describe('get, patch, delete', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
  });

  test('GET by id returns the product; an unknown id is 404 not_found_error with param id', async () => {
    const p = await create(h, { name: 'Kettle' });
    const r = await h.call('GET', `/products/${p.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'product', id: p.id, name: 'Kettle' });
    expectError(await h.call('GET', `/products/${crypto.randomUUID()}`), 404, 'not_found_error', 'resource_missing', 'id');
  });

  test('PATCH changes only the fields sent and the change is visible on GET', async () => {
    const p = await create(h, { name: 'Mug', sku: 'MUG-1', pricing_data: { retail: 8.5, compare_at: 10 }, stock_quantity: 4 });
    const r = await h.call('PATCH', `/products/${p.id}`, { name: 'Big mug', pricing_data: { retail: 9.25 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: p.id,
      name: 'Big mug',
      sku: 'MUG-1',
      status: 'active',
      pricing_data: { retail: 9.25, compare_at: 10, currency: 'USD' },
      stock_quantity: 4,
      created_at: p.created_at,
    });
    expect((await h.call('GET', `/products/${p.id}`)).body).toEqual(r.body);
  });

  test('PATCH stock_quantity 0 makes the product out_of_stock; null clears the SKU', async () => {
    const p = await create(h, { stock_quantity: 3 });
    const r = await h.call('PATCH', `/products/${p.id}`, { stock_quantity: 0, sku: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ stock_quantity: 0, stock_status: 'out_of_stock', sku: null });
  });

  test('a rejected PATCH changes nothing, not even the fields that were valid', async () => {
    const p = await create(h, { name: 'Stable', stock_quantity: 5 });
    const r = await h.call('PATCH', `/products/${p.id}`, { name: 'Changed', stock_quantity: 9, pricing_data: { retail: -1 } });
    expectError(r, 400, 'invalid_request_error', 'validation_failed', 'pricing_data.retail');
    expect((await h.call('GET', `/products/${p.id}`)).body).toEqual(p);
  });

  test('PATCH with an unknown field is 400 naming that field', async () => {
    const p = await create(h);
    expectError(await h.call('PATCH', `/products/${p.id}`, { colour: 'red' }), 400, 'invalid_request_error', 'validation_failed', 'colour');
  });

  test('DELETE archives: 404 on get, patch and delete afterwards, gone from the list, listed with ?status=archived', async () => {
    const p = await create(h, { name: 'Old stock' });
    const del = await h.call('DELETE', `/products/${p.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ object: 'product', id: p.id, deleted: true });
    expectError(await h.call('GET', `/products/${p.id}`), 404, 'not_found_error', 'resource_missing', 'id');
    expectError(await h.call('PATCH', `/products/${p.id}`, { name: 'Back' }), 404, 'not_found_error', 'resource_missing', 'id');
    expectError(await h.call('DELETE', `/products/${p.id}`), 404, 'not_found_error', 'resource_missing', 'id');
    expect((await allProducts(h)).map((x) => x.id)).not.toContain(p.id);
    for (const status of ['active', 'draft']) expect((await allProducts(h, `&status=${status}`)).map((x) => x.id)).not.toContain(p.id);
    const archived = await allProducts(h, '&status=archived');
    expect(archived.map((x) => x.id)).toContain(p.id);
    expect(archived.every((x) => x.status === 'archived')).toBe(true);
    expect(archived.find((x) => x.id === p.id).name).toBe('Old stock');
  });

  test('?status=draft lists only drafts and ?status=active only active products', async () => {
    const d = await create(h, { status: 'draft' });
    const a = await create(h, { status: 'active' });
    const drafts = await allProducts(h, '&status=draft');
    const actives = await allProducts(h, '&status=active');
    expect(drafts.map((x) => x.id)).toContain(d.id);
    expect(drafts.map((x) => x.id)).not.toContain(a.id);
    expect(drafts.every((x) => x.status === 'draft')).toBe(true);
    expect(actives.map((x) => x.id)).toContain(a.id);
    expect(actives.every((x) => x.status === 'active')).toBe(true);
    expectError(await h.call('GET', '/products?status=deleted'), 400, 'invalid_request_error', 'validation_failed', 'status');
  });
});

describe('store isolation', () => {
  test("another store's product id is 404 on get, patch and delete, and that product is untouched", async () => {
    const h = await setup();
    const other = await setup();
    const theirs = (await other.call('POST', '/products', product({ name: 'Theirs' }))).body;
    expectError(await h.call('GET', `/products/${theirs.id}`), 404, 'not_found_error', 'resource_missing', 'id');
    expectError(await h.call('PATCH', `/products/${theirs.id}`, { name: 'Mine now' }), 404, 'not_found_error', 'resource_missing', 'id');
    expectError(await h.call('DELETE', `/products/${theirs.id}`), 404, 'not_found_error', 'resource_missing', 'id');
    expect((await other.call('GET', `/products/${theirs.id}`)).body).toEqual(theirs);
    expect((await allProducts(h)).map((x) => x.id)).not.toContain(theirs.id);
    // Nor can it serve as a cursor into this store's list.
    const r = await h.call('GET', `/products?starting_after=${theirs.id}`);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('starting_after');
  });
});

describe('cursor pagination', () => {
  let h: Harness;
  let ids: string[]; // newest first
  beforeAll(async () => {
    h = await setup();
    const made: string[] = [];
    for (let i = 0; i < 25; i++) made.push((await create(h, { name: `P${i}` })).id);
    ids = made.reverse();
  });
  const list = (q = '') => h.call('GET', `/products${q}`);

  test('the list envelope is {object: list, data, has_more, url} with url the list path', async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['data', 'has_more', 'object', 'url']);
    expect(r.body.object).toBe('list');
    expect(r.body.url).toBe(`/v1/stores/${h.store.id}/products`);
    expect(r.body.data.every((p: any) => p.object === 'product')).toBe(true);
  });

  test('limit defaults to 10, newest first, with has_more', async () => {
    const r = await list();
    expect(r.body.data.map((p: any) => p.id)).toEqual(ids.slice(0, 10));
    expect(r.body.has_more).toBe(true);
  });

  test('limit accepts 1 to 100; 0, 101, negatives and words are 400 with param limit', async () => {
    expect((await list('?limit=1')).body.data.length).toBe(1);
    const all = await list('?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.data.map((p: any) => p.id)).toEqual(ids);
    expect(all.body.has_more).toBe(false);
    for (const bad of ['0', '101', 'ten', '-1', '']) {
      expectError(await list(`?limit=${bad}`), 400, 'invalid_request_error', 'validation_failed', 'limit');
    }
  });

  test('starting_after walks every product once, newest first, has_more false only on the last page', async () => {
    const seen: string[] = [];
    const hasMore: boolean[] = [];
    let q = '?limit=10';
    for (;;) {
      const r = await list(q);
      expect(r.status).toBe(200);
      seen.push(...r.body.data.map((p: any) => p.id));
      hasMore.push(r.body.has_more);
      if (!r.body.has_more) break;
      q = `?limit=10&starting_after=${r.body.data.at(-1).id}`;
    }
    expect(seen).toEqual(ids);
    expect(hasMore).toEqual([true, true, false]);
  });

  test('a page that ends exactly at the last product has has_more false', async () => {
    const r = await list(`?limit=5&starting_after=${ids[19]}`);
    expect(r.body.data.map((p: any) => p.id)).toEqual(ids.slice(20));
    expect(r.body.has_more).toBe(false);
    const empty = await list(`?starting_after=${ids[24]}`);
    expect(empty.body).toMatchObject({ data: [], has_more: false });
  });

  test('ending_before walks back to the newest page, in the same order, has_more telling whether newer ones remain', async () => {
    const back1 = await list(`?limit=10&ending_before=${ids[20]}`);
    expect(back1.body.data.map((p: any) => p.id)).toEqual(ids.slice(10, 20));
    expect(back1.body.has_more).toBe(true);
    const back2 = await list(`?limit=10&ending_before=${ids[10]}`);
    expect(back2.body.data.map((p: any) => p.id)).toEqual(ids.slice(0, 10));
    expect(back2.body.has_more).toBe(false);
    const partial = await list(`?limit=10&ending_before=${ids[3]}`);
    expect(partial.body.data.map((p: any) => p.id)).toEqual(ids.slice(0, 3));
    expect(partial.body.has_more).toBe(false);
  });

  test('starting_after and ending_before together are 400', async () => {
    const r = await list(`?starting_after=${ids[5]}&ending_before=${ids[1]}`);
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe('invalid_request_error');
    expect(['starting_after', 'ending_before']).toContain(r.body.error.param);
  });

  test('an unknown or malformed cursor is 400 naming the cursor parameter', async () => {
    const unknown = await list(`?starting_after=${crypto.randomUUID()}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('starting_after');
    const malformed = await list('?ending_before=not-an-id');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.param).toBe('ending_before');
  });

  test('an unknown query parameter is 400 naming it', async () => {
    expectError(await list('?page=2'), 400, 'invalid_request_error', 'validation_failed', 'page');
  });
});
