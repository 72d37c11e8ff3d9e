/** Variable products (issue 21): options, variants with their own SKU, price, status, metadata and stock in the ledger; orders and inventory by variant. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { setup, type Harness } from '../../test/kit/setup';

const tee = (over: Record<string, unknown> = {}) => ({
  name: 'Tee',
  type: 'variable',
  status: 'active',
  pricing_data: { retail: 20 },
  options: [
    { name: 'size', values: ['S', 'M'] },
    { name: 'colour', values: ['red', 'blue'] },
  ],
  ...over,
});
const sku = () => `V-${crypto.randomUUID().slice(0, 8)}`;

async function mkTee(h: Harness, over: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/products', tee(over));
  expect(r.status).toBe(201);
  return r.body;
}

describe('variable products', () => {
  let h: Harness;
  // The first setup of a run opens and migrates the database: slow on a busy machine.
  beforeAll(async () => {
    h = await setup();
  }, 60_000);

  test('created with variants: each has its own sku, price, status, metadata and stock; the product adds them up', async () => {
    const [a, b] = [sku(), sku()];
    const p = await mkTee(h, {
      metadata: { season: 'ss26' },
      variants: [
        { options: { size: 'S', colour: 'red' }, sku: a, price: 18.5, stock_quantity: 3, metadata: { ean: '123' } },
        { options: { colour: 'blue', size: 'M' }, sku: b, stock_quantity: 4, status: 'draft' },
      ],
    });
    expect(p).toMatchObject({ type: 'variable', stock_quantity: 7, stock_status: 'in_stock', metadata: { season: 'ss26' } });
    expect(p.options).toEqual([
      { name: 'size', values: ['S', 'M'] },
      { name: 'colour', values: ['red', 'blue'] },
    ]);
    expect(p.variants).toEqual([
      expect.objectContaining({
        object: 'product_variant',
        product_id: p.id,
        sku: a,
        options: { size: 'S', colour: 'red' },
        price: 18.5,
        status: 'active',
        stock_quantity: 3,
        metadata: { ean: '123' },
      }),
      expect.objectContaining({
        sku: b,
        options: { size: 'M', colour: 'blue' },
        price: 20,
        status: 'draft',
        stock_quantity: 4,
        stock_status: 'in_stock',
      }),
    ]);
    const listed = await h.call('GET', `/products/${p.id}/variants`);
    expect(listed.body.data.map((v: any) => v.sku)).toEqual([a, b]);
    const inv = await h.call('GET', `/inventory/${p.id}`);
    expect(inv.body.total).toBe(7);
    expect(inv.body.levels.map((l: any) => l.quantity)).toEqual([7]);
  });

  test('without variants, one per combination is made', async () => {
    const p = await mkTee(h);
    expect(p.variants.map((v: any) => v.options)).toEqual([
      { size: 'S', colour: 'red' },
      { size: 'S', colour: 'blue' },
      { size: 'M', colour: 'red' },
      { size: 'M', colour: 'blue' },
    ]);
    expect(p).toMatchObject({ stock_quantity: 0, stock_status: 'out_of_stock' });
  });

  test('shape rules are 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [tee({ options: undefined }), 'options'],
      [tee({ stock_quantity: 3 }), 'stock_quantity'],
      [
        tee({
          options: [
            { name: 'a', values: ['1'] },
            { name: 'b', values: ['1'] },
            { name: 'c', values: ['1'] },
            { name: 'd', values: ['1'] },
          ],
        }),
        'options',
      ],
      [
        tee({
          options: [
            { name: 'size', values: ['S'] },
            { name: 'Size', values: ['M'] },
          ],
        }),
        'options.1.name',
      ],
      [tee({ options: [{ name: 'size', values: ['S', 'S'] }] }), 'options.0.values'],
      [
        tee({
          options: [
            { name: 'a', values: Array.from({ length: 11 }, (_, i) => `${i}`) },
            { name: 'b', values: Array.from({ length: 10 }, (_, i) => `${i}`) },
          ],
        }),
        'options',
      ],
      [tee({ variants: [{ options: { size: 'S' } }] }), 'variants.0.options'],
      [tee({ variants: [{ options: { size: 'S', colour: 'green' } }] }), 'variants.0.options'],
      [tee({ variants: [{ options: { size: 'S', colour: 'red', fit: 'slim' } }] }), 'variants.0.options'],
      [tee({ variants: [{ options: { size: 'S', colour: 'red' } }, { options: { size: 'S', colour: 'red' } }] }), 'variants.1.options'],
      [tee({ variants: [{ options: { size: 'S', colour: 'red' }, price: -1 }] }), 'variants.0.price'],
      [tee({ variants: [{ options: { size: 'S', colour: 'red' }, metadata: { ['k'.repeat(41)]: 'v' } }] }), 'variants.0.metadata'],
      [{ name: 'Plain', options: [{ name: 'size', values: ['S'] }] }, 'options'],
      [{ name: 'Plain', variants: [] }, 'variants'],
    ];
    for (const [body, param] of cases) {
      const r = await h.call('POST', '/products', body);
      expect({ param, status: r.status, got: r.body.error?.param }).toEqual({ param, status: 400, got: param });
    }
  });

  test("SKUs are unique across the store's live products and variants; deleting frees them", async () => {
    const taken = sku();
    const p = await mkTee(h, { variants: [{ options: { size: 'S', colour: 'red' }, sku: taken }] });
    const dupes: [string, string, Record<string, unknown>, string][] = [
      ['POST', '/products', { name: 'X', sku: taken }, 'sku'],
      ['POST', '/products', tee({ variants: [{ options: { size: 'S', colour: 'red' }, sku: taken }] }), 'variants.0.sku'],
      ['POST', `/products/${p.id}/variants`, { options: { size: 'M', colour: 'red' }, sku: taken }, 'sku'],
    ];
    for (const [method, path, body, param] of dupes) {
      const r = await h.call(method, path, body);
      expect({ status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status: 409, code: 'duplicate_sku', param });
    }
    const plain = (await h.call('POST', '/products', { name: 'Plain', sku: sku() })).body;
    const r = await h.call('POST', `/products/${p.id}/variants`, { options: { size: 'M', colour: 'red' }, sku: plain.sku });
    expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 409, param: 'sku' });
    const v = p.variants[0];
    const patched = await h.call('PATCH', `/products/${plain.id}`, { sku: taken });
    expect(patched.status).toBe(409);
    expect((await h.call('DELETE', `/products/${p.id}/variants/${v.id}`)).status).toBe(200);
    expect((await h.call('PATCH', `/products/${plain.id}`, { sku: taken })).status).toBe(200);
  });

  test('a product and a variant racing for one SKU: exactly one gets it', async () => {
    const p = await mkTee(h, { variants: [{ options: { size: 'S', colour: 'red' } }] });
    for (let round = 0; round < 3; round++) {
      const contested = sku();
      const answers = await Promise.all([
        h.call('POST', '/products', { name: 'Racer', sku: contested }),
        h.call('POST', `/products/${p.id}/variants`, { options: { size: `R${round}`, colour: 'red' }, sku: contested }),
        h.call('PATCH', `/products/${p.id}/variants/${p.variants[0].id}`, { sku: contested }),
      ]);
      expect(answers.filter((a) => a.status < 300).length).toBe(1);
      expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'duplicate_sku' && a.body.error.param === 'sku')).toBe(true);
      expect(answers.filter((a) => a.status === 409).length).toBe(2);
    }
  });

  test('variant routes: add (a new value extends the option), get, update, delete; product.updated each time', async () => {
    const p = await mkTee(h, { variants: [{ options: { size: 'S', colour: 'red' }, stock_quantity: 2 }] });
    const added = await h.call('POST', `/products/${p.id}/variants`, {
      options: { size: 'XL', colour: 'red' },
      sku: sku(),
      price: 25,
      stock_quantity: 5,
      metadata: { a: '1' },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ options: { size: 'XL', colour: 'red' }, price: 25, stock_quantity: 5 });
    let product = (await h.call('GET', `/products/${p.id}`)).body;
    expect(product.options[0]).toEqual({ name: 'size', values: ['S', 'M', 'XL'] });
    expect(product.stock_quantity).toBe(7);
    const again = await h.call('POST', `/products/${p.id}/variants`, { options: { size: 'XL', colour: 'red' } });
    expect({ status: again.status, param: again.body.error?.param }).toEqual({ status: 409, param: 'options' });

    const vid = added.body.id;
    expect((await h.call('GET', `/products/${p.id}/variants/${vid}`)).body).toEqual(added.body);
    const upd = await h.call('PATCH', `/products/${p.id}/variants/${vid}`, {
      price: 30,
      status: 'draft',
      stock_quantity: 1,
      metadata: { a: '', b: '2' },
    });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ price: 30, status: 'draft', stock_quantity: 1, metadata: { b: '2' } });
    expect((await h.call('GET', `/products/${p.id}`)).body.stock_quantity).toBe(3);

    const del = await h.call('DELETE', `/products/${p.id}/variants/${vid}`);
    expect(del.body).toEqual({ object: 'product_variant', id: vid, product_id: p.id, deleted: true });
    product = (await h.call('GET', `/products/${p.id}`)).body;
    expect({ n: product.variants.length, stock: product.stock_quantity }).toEqual({ n: 1, stock: 2 });
    expect((await h.call('GET', `/products/${p.id}/variants/${vid}`)).status).toBe(404);
    expect((await h.call('GET', `/products/${p.id}/variants/${crypto.randomUUID()}`)).body.error.param).toBe('variant_id');
    // Another product's variant is not this product's.
    const other = await mkTee(h);
    expect((await h.call('GET', `/products/${other.id}/variants/${p.variants[0].id}`)).status).toBe(404);
  });

  test('a simple product has no variants: adding one is 400; its product stays as before', async () => {
    const plain = (await h.call('POST', '/products', { name: 'Plain', stock_quantity: 2 })).body;
    expect(plain).toMatchObject({ variants: [], options: [], metadata: {} });
    const r = await h.call('POST', `/products/${plain.id}/variants`, { options: { size: 'S' } });
    expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 400, param: 'id' });
    const t = await h.call('PATCH', `/products/${plain.id}`, { type: 'variable' });
    expect({ status: t.status, param: t.body.error?.param }).toEqual({ status: 400, param: 'type' });
    const p = await mkTee(h);
    const s = await h.call('PATCH', `/products/${p.id}`, { stock_quantity: 5 });
    expect({ status: s.status, param: s.body.error?.param }).toEqual({ status: 400, param: 'stock_quantity' });
  });

  test('over MCP: create a variable product, add and update a variant, search by q', async () => {
    const { client } = await mcpClient(h);
    const made: any = await client.callTool({
      name: 'products',
      arguments: { action: 'create_product', ...tee({ name: 'Mcp Tee', options: [{ name: 'size', values: ['S'] }] }) },
    });
    expect(made.isError).toBeFalsy();
    const id = made.structuredContent.id;
    const v: any = await client.callTool({
      name: 'products_create_variant',
      arguments: { id, options: { size: 'L' }, sku: 'MCP-TEE-L', stock_quantity: 2 },
    });
    expect(v.structuredContent).toMatchObject({ options: { size: 'L' }, stock_quantity: 2 });
    const u: any = await client.callTool({ name: 'products_update_variant', arguments: { id, variant_id: v.structuredContent.id, price: 9 } });
    expect(u.structuredContent.price).toBe(9);
    const found: any = await client.callTool({ name: 'products_list_products', arguments: { q: 'mcp-tee-l' } });
    expect(found.structuredContent.data.map((p: any) => p.id)).toEqual([id]);
    await client.close();
  });

  test('inventory adjust and transfer take variant_id where the product has variants', async () => {
    const p = await mkTee(h, { variants: [{ options: { size: 'S', colour: 'red' }, stock_quantity: 2 }, { options: { size: 'M', colour: 'red' } }] });
    const [s, m] = p.variants;
    const none = await h.call('POST', '/inventory/adjust', { product_id: p.id, delta: 1 });
    expect({ status: none.status, param: none.body.error?.param }).toEqual({ status: 400, param: 'variant_id' });
    const plain = (await h.call('POST', '/products', { name: 'Plain' })).body;
    const extra = await h.call('POST', '/inventory/adjust', { product_id: plain.id, variant_id: s.id, delta: 1 });
    expect({ status: extra.status, param: extra.body.error?.param }).toEqual({ status: 400, param: 'variant_id' });
    const foreign = await h.call('POST', '/inventory/adjust', { product_id: p.id, variant_id: crypto.randomUUID(), delta: 1 });
    expect({ status: foreign.status, param: foreign.body.error?.param }).toEqual({ status: 404, param: 'variant_id' });

    const ok = await h.call('POST', '/inventory/adjust', { product_id: p.id, variant_id: m.id, delta: 6, reason: 'received' });
    expect(ok.status).toBe(200);
    expect(ok.body.total).toBe(8);
    const short = await h.call('POST', '/inventory/adjust', { product_id: p.id, variant_id: s.id, delta: -3 });
    expect({ status: short.status, code: short.body.error?.code }).toEqual({ status: 409, code: 'insufficient_stock' });

    const shop = (await h.call('POST', '/locations', { name: `Shop ${crypto.randomUUID().slice(0, 6)}` })).body.id;
    const home = (await h.call('GET', '/locations?limit=100')).body.data.find((l: any) => l.is_default).id;
    const moved = await h.call('POST', '/inventory/transfer', {
      product_id: p.id,
      variant_id: m.id,
      from_location_id: home,
      to_location_id: shop,
      quantity: 4,
    });
    expect(moved.status).toBe(200);
    expect(moved.body.levels.map((l: any) => [l.location_id, l.quantity])).toEqual([
      [home, 4],
      [shop, 4],
    ]);
    const variants = (await h.call('GET', `/products/${p.id}/variants`)).body.data;
    expect(variants.map((v: any) => v.stock_quantity)).toEqual([2, 6]);
    const history = (await h.call('GET', `/inventory/${p.id}?include_adjustments=true`)).body.adjustments;
    expect(history.every((a: any) => a.variant_id === m.id)).toBe(true);
    // Only the variant's own units at the source count: S has none at the shop.
    const none2 = await h.call('POST', '/inventory/transfer', {
      product_id: p.id,
      variant_id: s.id,
      from_location_id: shop,
      to_location_id: home,
      quantity: 1,
    });
    expect(none2.status).toBe(409);
  });
});

describe('ordering variants', () => {
  let h: Harness;
  // The first setup of a run opens and migrates the database: slow on a busy machine.
  beforeAll(async () => {
    h = await setup();
  }, 60_000);

  test("a line for a variable product needs variant_id (400 line_items.N.variant_id); it takes the variant's stock and price, cancel puts it back", async () => {
    const p = await mkTee(h, {
      variants: [
        { options: { size: 'S', colour: 'red' }, sku: sku(), price: 12.5, stock_quantity: 5 },
        { options: { size: 'M', colour: 'red' }, stock_quantity: 5 },
      ],
    });
    const [s, m] = p.variants;
    const plain = (await h.call('POST', '/products', { name: 'Plain', stock_quantity: 5, pricing_data: { retail: 1 } })).body;
    const missing = await h.call('POST', '/orders', {
      line_items: [
        { product_id: plain.id, quantity: 1 },
        { product_id: p.id, quantity: 1 },
      ],
    });
    expect(missing.body.error).toMatchObject({ type: 'invalid_request_error', param: 'line_items.1.variant_id' });
    const wrong = await h.call('POST', '/orders', { line_items: [{ product_id: plain.id, variant_id: s.id, quantity: 1 }] });
    expect(wrong.body.error?.param).toBe('line_items.0.variant_id');
    const other = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, variant_id: crypto.randomUUID(), quantity: 1 }] });
    expect({ status: other.status, param: other.body.error?.param }).toEqual({ status: 404, param: 'line_items.0.variant_id' });

    const o = await h.call('POST', '/orders', {
      line_items: [
        { product_id: p.id, variant_id: s.id, quantity: 2 },
        { product_id: p.id, variant_id: m.id, quantity: 1 },
        { product_id: p.id, variant_id: s.id, quantity: 1 },
      ],
    });
    expect(o.status).toBe(201);
    expect(o.body.total).toBe(57.5);
    expect(o.body.line_items).toEqual([
      expect.objectContaining({ product_id: p.id, variant_id: s.id, sku: s.sku, name: 'Tee (S / red)', quantity: 3, unit_price: 12.5 }),
      expect.objectContaining({ variant_id: m.id, quantity: 1, unit_price: 20 }),
    ]);
    let variants = (await h.call('GET', `/products/${p.id}/variants`)).body.data;
    expect(variants.map((v: any) => v.stock_quantity)).toEqual([2, 4]);
    expect((await h.call('GET', `/products/${p.id}`)).body.stock_quantity).toBe(6);
    const short = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, variant_id: s.id, quantity: 3 }] });
    expect(short.body.error).toMatchObject({ code: 'insufficient_stock', param: 'line_items.0.variant_id' });

    expect((await h.call('POST', `/orders/${o.body.id}/cancel`)).status).toBe(200);
    variants = (await h.call('GET', `/products/${p.id}/variants`)).body.data;
    expect(variants.map((v: any) => v.stock_quantity)).toEqual([5, 5]);
    expect((await h.call('GET', `/products/${p.id}`)).body.stock_quantity).toBe(10);
  });

  test('a draft variant cannot be ordered', async () => {
    const p = await mkTee(h, { variants: [{ options: { size: 'S', colour: 'red' }, status: 'draft', stock_quantity: 5 }] });
    const r = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, variant_id: p.variants[0].id, quantity: 1 }] });
    expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 400, param: 'line_items.0.variant_id' });
  });

  test('parallel orders for the last units of one variant never oversell; other variants are untouched', async () => {
    const p = await mkTee(h, {
      variants: [
        { options: { size: 'S', colour: 'red' }, stock_quantity: 3 },
        { options: { size: 'M', colour: 'red' }, stock_quantity: 4 },
      ],
    });
    const [s, m] = p.variants;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        h.call('POST', '/orders', {
          line_items: i % 5 === 4 ? [{ product_id: p.id, variant_id: m.id, quantity: 1 }] : [{ product_id: p.id, variant_id: s.id, quantity: 1 }],
        }),
      ),
    );
    const sOrders = results.filter((_, i) => i % 5 !== 4).map((r) => r.status);
    expect(sOrders.filter((x) => x === 201).length).toBe(3);
    expect(sOrders.filter((x) => x === 409).length).toBe(5);
    expect(results.filter((_, i) => i % 5 === 4).every((r) => r.status === 201)).toBe(true);
    const variants = (await h.call('GET', `/products/${p.id}/variants`)).body.data;
    expect(variants.map((v: any) => v.stock_quantity)).toEqual([0, 2]);
    const product = (await h.call('GET', `/products/${p.id}`)).body;
    const inv = (await h.call('GET', `/inventory/${p.id}`)).body;
    expect({ product: product.stock_quantity, inventory: inv.total }).toEqual({ product: 2, inventory: 2 });
  });
});
