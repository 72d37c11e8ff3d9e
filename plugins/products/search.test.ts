/** Finding products (issue 21): q (name or SKU), sku, status, type, collection_id, created range and metadata; index-backed, cursor pagination intact. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';

const names = (r: { body: any }) => r.body.data.map((p: any) => p.name);

describe('filtering the product list', () => {
  let h: Harness;
  const ids: Record<string, string> = {};
  // The first setup of a run opens and migrates the database: slow on a busy machine.
  beforeAll(async () => {
    h = await setup();
    const make = async (body: Record<string, unknown>) => {
      const r = await h.call('POST', '/products', body);
      expect(r.status).toBe(201);
      ids[body.name as string] = r.body.id;
    };
    await make({ name: 'Blue Mug', sku: 'MUG-BLU', metadata: { supplier: 'acme' } });
    h.clock.advance(86_400_000);
    await make({ name: 'Red Mug', sku: 'MUG-RED', status: 'draft', metadata: { supplier: 'acme', colour: 'red' } });
    h.clock.advance(86_400_000);
    await make({ name: 'E-book', sku: 'EBOOK-1', type: 'digital' });
    await make({
      name: 'Tee',
      type: 'variable',
      options: [{ name: 'size', values: ['S'] }],
      variants: [{ options: { size: 'S' }, sku: 'TEE-S-100%' }],
    });
    await make({ name: 'Gone Mug', sku: 'MUG-GONE' });
    expect((await h.call('DELETE', `/products/${ids['Gone Mug']}`)).status).toBe(200);
  }, 60_000);
  const list = (query: string) => h.call('GET', `/products?${query}`);

  test("q matches part of the name or SKU, or a variant's SKU, ignoring case; % and _ are plain", async () => {
    expect(names(await list('q=mug'))).toEqual(['Red Mug', 'Blue Mug']);
    expect(names(await list('q=mug-b'))).toEqual(['Blue Mug']);
    expect(names(await list('q=BOOK'))).toEqual(['E-book']);
    expect(names(await list('q=tee-s'))).toEqual(['Tee']);
    expect(names(await list(`q=${encodeURIComponent('100%')}`))).toEqual(['Tee']);
    expect(names(await list('q=_'))).toEqual([]);
    expect((await list('q=zebra')).body).toMatchObject({ object: 'list', data: [], has_more: false });
  });

  test("sku is exact (a variant's SKU finds its product); status, type; archived only when asked for", async () => {
    expect(names(await list('sku=MUG-RED'))).toEqual(['Red Mug']);
    expect(names(await list('sku=mug-red'))).toEqual([]);
    expect(names(await list(`sku=${encodeURIComponent('TEE-S-100%')}`))).toEqual(['Tee']);
    expect(names(await list('status=draft'))).toEqual(['Red Mug']);
    expect(names(await list('type=digital'))).toEqual(['E-book']);
    expect(names(await list('type=variable'))).toEqual(['Tee']);
    expect(names(await list('status=archived&q=mug'))).toEqual(['Gone Mug']);
  });

  test('created[gte]/[lt] and metadata[key]=value', async () => {
    expect(names(await list('created[gte]=2026-04-02'))).toEqual(['Tee', 'E-book', 'Red Mug']);
    expect(names(await list('created[lt]=2026-04-02'))).toEqual(['Blue Mug']);
    expect(names(await list('created[gte]=2026-04-02&created[lte]=2026-04-02T23:59:59Z'))).toEqual(['Red Mug']);
    expect(names(await list('metadata[supplier]=acme'))).toEqual(['Red Mug', 'Blue Mug']);
    expect(names(await list('metadata[supplier]=acme&metadata[colour]=red'))).toEqual(['Red Mug']);
    const bad = await list('created[gte]=yesterday');
    expect({ status: bad.status, param: bad.body.error?.param }).toEqual({ status: 400, param: 'created.gte' });
  });

  test("collection_id lists the collection's products", async () => {
    const c = await h.call('POST', '/collections', { title: `Mugs ${crypto.randomUUID().slice(0, 6)}` });
    expect(c.status).toBe(201);
    expect((await h.call('POST', `/collections/${c.body.id}/products`, { product_ids: [ids['Blue Mug'], ids['E-book']] })).status).toBe(200);
    expect(names(await list(`collection_id=${c.body.id}`))).toEqual(['E-book', 'Blue Mug']);
    expect(names(await list(`collection_id=${c.body.id}&q=mug`))).toEqual(['Blue Mug']);
    expect((await list('collection_id=nope')).status).toBe(400);
    // Membership is asked of collections (ctx.call): an unknown or another store's collection is
    // 404 naming the filter, and a key that may read products needs no collections scope for it.
    const unknown = await list(`collection_id=${crypto.randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('collection_id');
    const productsOnly = await h.newKey(['products:read']);
    const asProducts = await h.call('GET', `/products?collection_id=${c.body.id}`, undefined, { 'x-api-key': productsOnly });
    expect(asProducts.body.data.map((p: { name: string }) => p.name)).toEqual(['E-book', 'Blue Mug']);
  });

  test('cursor pagination holds under a filter', async () => {
    const first = await list('q=mug&limit=1');
    expect(first.body).toMatchObject({ has_more: true });
    expect(names(first)).toEqual(['Red Mug']);
    const next = await list(`q=mug&limit=1&starting_after=${first.body.data[0].id}`);
    expect(names(next)).toEqual(['Blue Mug']);
    expect(next.body.has_more).toBe(false);
    const back = await list(`q=mug&limit=1&ending_before=${next.body.data[0].id}`);
    expect(names(back)).toEqual(['Red Mug']);
  });

  test('metadata on products follows Stripe\'s rules: merge on update, "" removes, limits are 400', async () => {
    const id = ids['Blue Mug'];
    const r = await h.call('PATCH', `/products/${id}`, { metadata: { supplier: '', shelf: 'A3' } });
    expect(r.body.metadata).toEqual({ shelf: 'A3' });
    const tooMany = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    const over = await h.call('PATCH', `/products/${id}`, { metadata: tooMany });
    expect({ status: over.status, param: over.body.error?.param }).toEqual({ status: 400, param: 'metadata' });
    const long = await h.call('POST', '/products', { name: 'x', metadata: { k: 'v'.repeat(501) } });
    expect(long.status).toBe(400);
    expect(long.body.error.param).toMatch(/^metadata/);
  });

  test('the indexes exist and the planner uses them for q, sku and metadata', async () => {
    const indexes = (
      await h.db.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename IN ('products', 'product_variants')")
    ).map((r) => r.indexname);
    expect(indexes).toEqual(
      expect.arrayContaining([
        'products_search',
        'product_variants_search',
        'products_metadata',
        'products_store_created',
        'products_store_type_seq',
        'product_variants_store_sku',
      ]),
    );
    const plan = (sql: string, params: unknown[]) =>
      h.db.transaction(async (tx) => {
        // Few rows in a test database: tell the planner scans are dear, as they are at scale.
        await tx.exec('SET LOCAL enable_seqscan = off');
        return (await tx.query<Record<string, string>>(`EXPLAIN ${sql}`, params)).map((r) => Object.values(r)[0]).join('\n');
      });
    expect(await plan("SELECT id FROM products WHERE lower(name || ' ' || coalesce(sku, '')) LIKE $1", ['%mug%'])).toContain('products_search');
    expect(await plan("SELECT product_id FROM product_variants WHERE lower(coalesce(sku, '')) LIKE $1", ['%tee%'])).toContain(
      'product_variants_search',
    );
    expect(await plan('SELECT id FROM products WHERE metadata @> $1::text::jsonb', ['{"supplier":"acme"}'])).toContain('products_metadata');
  });
});
