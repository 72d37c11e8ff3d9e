/** POST /products/bulk (issue 21): up to 1,000 creates, updates and archives, all or nothing, the failing item named, one event per product. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

const sku = () => `B-${crypto.randomUUID().slice(0, 8)}`;
const bulk = (h: Harness, items: unknown[]) => h.call('POST', '/products/bulk', { items });
const countProducts = async (h: Harness) =>
  Number((await h.db.query<{ n: string }>('SELECT count(*) AS n FROM products WHERE store_id = $1', [h.store.id]))[0].n);

describe('bulk product operations', () => {
  let h: Harness;
  // The first setup of a run opens and migrates the database: slow on a busy machine.
  beforeAll(async () => {
    h = await setup();
    expect(
      (await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/svc', events: ['product.created', 'product.updated', 'product.deleted'] }))
        .status,
    ).toBe(201);
  }, 60_000);

  test('creates, updates price, status and stock, and archives in one request, in order; one event per product', async () => {
    const a = (await h.call('POST', '/products', product({ stock_quantity: 2 }))).body;
    const b = (await h.call('POST', '/products', product())).body;
    // Without ORDER BY PostgreSQL returns rows in any order: new events are told apart by id.
    const before = new Set((await h.db.query<{ id: string }>('SELECT id FROM events WHERE store_id = $1', [h.store.id])).map((e) => e.id));
    const r = await bulk(h, [
      { action: 'create', name: 'New one', sku: sku(), pricing_data: { retail: 5 }, stock_quantity: 3, metadata: { src: 'bulk' } },
      { action: 'update', id: a.id, pricing_data: { retail: 7.25 }, status: 'draft', stock_quantity: 9 },
      { action: 'archive', id: b.id },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.object).toBe('list');
    expect(r.body.data).toEqual([
      expect.objectContaining({ object: 'product', name: 'New one', stock_quantity: 3, metadata: { src: 'bulk' } }),
      expect.objectContaining({ id: a.id, status: 'draft', stock_quantity: 9, pricing_data: expect.objectContaining({ retail: 7.25 }) }),
      { object: 'product', id: b.id, deleted: true, status: 'archived' },
    ]);
    expect((await h.call('GET', `/products/${b.id}`)).status).toBe(404);
    expect((await h.call('GET', `/inventory/${a.id}`)).body.total).toBe(9);
    const after = await h.db.query<{ id: string; type: string }>('SELECT id, type FROM events WHERE store_id = $1', [h.store.id]);
    expect(
      after
        .filter((e) => !before.has(e.id))
        .map((e) => e.type)
        .sort(),
    ).toEqual(['product.created', 'product.deleted', 'product.updated']);
  });

  test('one failing item leaves nothing behind and is named: items.N.field', async () => {
    const taken = (await h.call('POST', '/products', product())).body;
    const keep = (await h.call('POST', '/products', product({ stock_quantity: 4 }))).body;
    const n = await countProducts(h);
    const cases: [unknown[], number, string, string?][] = [
      [
        [
          { action: 'create', name: 'ok', sku: sku() },
          { action: 'update', id: keep.id, stock_quantity: 1 },
          { action: 'create', name: 'dup', sku: taken.sku },
        ],
        409,
        'items.2.sku',
        'duplicate_sku',
      ],
      [
        [
          { action: 'update', id: keep.id, stock_quantity: 1 },
          { action: 'create', sku: sku() },
        ],
        400,
        'items.1.name',
      ],
      [
        [
          { action: 'archive', id: keep.id },
          { action: 'update', id: crypto.randomUUID(), status: 'draft' },
        ],
        404,
        'items.1.id',
      ],
      [[{ action: 'update', id: keep.id, pricing_data: { retail: -1 } }], 400, 'items.0.pricing_data.retail'],
      [[{ action: 'update', id: keep.id, status: 'draft' }, { action: 'update' }], 400, 'items.1.id'],
      [[{ action: 'create', name: 'x', id: keep.id }], 400, 'items.0.id'],
      [[{ action: 'archive', id: keep.id, status: 'draft' }], 400, 'items.0.status'],
      [[{ action: 'update', id: keep.id, type: 'variable' }], 400, 'items.0.type'],
      [[{ action: 'explode', id: keep.id }], 400, 'items.0.action'],
      [[{ action: 'create', name: 'x', pricing_data: { compare_at: 3 } }], 400, 'items.0.pricing_data.retail'],
      [[], 400, 'items'],
    ];
    for (const [items, status, param, code] of cases) {
      const r = await bulk(h, items);
      expect({ param, status: r.status, got: r.body.error?.param }).toEqual({ param, status, got: param });
      if (code) expect(r.body.error.code).toBe(code);
    }
    expect(await countProducts(h)).toBe(n);
    const kept = (await h.call('GET', `/products/${keep.id}`)).body;
    expect(kept).toMatchObject({ status: 'active', stock_quantity: 4 });
  });

  test('1,000 items in one request; 1,001 is refused', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ action: 'create', name: `Bulk ${i}`, sku: `${sku()}-${i}`, stock_quantity: 1 }));
    const n = await countProducts(h);
    const r = await bulk(h, items);
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBe(1000);
    expect(await countProducts(h)).toBe(n + 1000);
    const over = await bulk(h, [...items, items[0]]);
    expect({ status: over.status, param: over.body.error?.param }).toEqual({ status: 400, param: 'items' });
  }, 60_000);

  test('two concurrent bulks, one with a failing last item: the good one lands whole, the other leaves nothing', async () => {
    const n = await countProducts(h);
    const dup = sku();
    const good = Array.from({ length: 30 }, (_, i) => ({ action: 'create', name: `Good ${i}`, sku: i === 29 ? dup : sku() }));
    const bad = [
      ...Array.from({ length: 30 }, (_, i) => ({ action: 'create', name: `Bad ${i}`, sku: sku() })),
      { action: 'create', name: 'clash', sku: sku(), pricing_data: { retail: 1.234 } },
    ];
    const [g, b] = await Promise.all([bulk(h, good), bulk(h, bad)]);
    expect(g.status).toBe(200);
    expect({ status: b.status, param: b.body.error?.param }).toEqual({ status: 400, param: 'items.30.pricing_data.retail' });
    expect(await countProducts(h)).toBe(n + 30);
    // Two bulks racing for one SKU: exactly one lands, the other changes nothing.
    const race = sku();
    const both = await Promise.all(
      [0, 1].map((k) =>
        bulk(h, [
          { action: 'create', name: `R${k}a`, sku: sku() },
          { action: 'create', name: `R${k}`, sku: race },
        ]),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(both.find((r) => r.status === 409)!.body.error.param).toBe('items.1.sku');
    expect(await countProducts(h)).toBe(n + 32);
  });

  test('a variable product can be created in bulk', async () => {
    const r = await bulk(h, [{ action: 'create', name: 'Tee', type: 'variable', options: [{ name: 'size', values: ['S', 'M'] }] }]);
    expect(r.status).toBe(200);
    expect(r.body.data[0].variants.length).toBe(2);
  });
});
