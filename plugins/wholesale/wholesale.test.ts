import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product, setup, type Harness } from '../../test/kit/setup';

const mkProduct = async (h: Harness, retail: number, over: object = {}) =>
  (await h.call('POST', '/products', product({ pricing_data: { retail }, stock_quantity: 1000, ...over }))).body as { id: string; sku: string };
const customer = async (h: Harness, tags: string[]) =>
  (await h.call('POST', '/customers', { email: `c.${crypto.randomUUID().slice(0, 8)}@example.com`, tags })).body.id as string;

describe('wholesale', () => {
  test('set_pricing and list_prices with commerce scopes; a second set replaces that product’s price', async () => {
    const h = await setup();
    const p = await mkProduct(h, 20);
    const as = { 'x-api-key': await h.newKey(['commerce:write']) };
    const set = await h.call(
      'POST',
      '/wholesale/pricing',
      {
        customer_group: 'wholesale',
        prices: [
          {
            product_id: p.id,
            price: 15,
            quantity_breaks: [
              { min_quantity: 100, price: 10 },
              { min_quantity: 10, price: 12 },
            ],
          },
        ],
      },
      as,
    );
    expect(set.status).toBe(200);
    expect(set.body.prices).toMatchObject([
      {
        object: 'wholesale_price',
        customer_group: 'wholesale',
        product_id: p.id,
        variant_id: null,
        price: 15,
        currency: 'USD',
        quantity_breaks: [
          { min_quantity: 10, price: 12 },
          { min_quantity: 100, price: 10 },
        ],
      },
    ]);
    await h.call('POST', '/wholesale/pricing', { customer_group: 'wholesale', prices: [{ product_id: p.id, price: 14 }] }, as);
    const list = (await h.call('GET', '/wholesale/prices?customer_group=wholesale', undefined, as)).body.data;
    expect(list).toMatchObject([{ price: 14, quantity_breaks: [] }]);
    expect((await h.call('GET', '/wholesale/prices?customer_group=vip')).body.data).toEqual([]);
    const ro = { 'x-api-key': await h.newKey(['commerce:read']) };
    expect((await h.call('POST', '/wholesale/pricing', { customer_group: 'x', prices: [{ product_id: p.id, price: 1 }] }, ro)).status).toBe(403);
    const bad = await h.call('POST', '/wholesale/pricing', {
      customer_group: 'x',
      prices: [
        { product_id: p.id, price: 1 },
        { product_id: crypto.randomUUID(), price: 1 },
      ],
    });
    expect(bad.status).toBe(404);
    expect(bad.body.error.param).toBe('prices.1.product_id');
    expect((await h.call('GET', '/wholesale/prices?customer_group=x')).body.data).toEqual([]);
  });

  test("a line pays the lowest of retail, its groups' prices and the best break reached; other customers pay retail", async () => {
    const h = await setup();
    const p = await mkProduct(h, 20);
    await h.call('POST', '/wholesale/pricing', {
      customer_group: 'wholesale',
      prices: [
        {
          product_id: p.id,
          price: 15,
          quantity_breaks: [
            { min_quantity: 10, price: 12 },
            { min_quantity: 50, price: 9 },
          ],
        },
      ],
    });
    await h.call('POST', '/wholesale/pricing', { customer_group: 'vip', prices: [{ product_id: p.id, price: 13 }] });
    const trade = await customer(h, ['wholesale']);
    const both = await customer(h, ['wholesale', 'vip']);
    const retail = await customer(h, ['newsletter']);
    const unit = async (customer_id: string | undefined, quantity: number) =>
      (await h.call('POST', '/orders', { ...(customer_id ? { customer_id } : {}), line_items: [{ product_id: p.id, quantity }] })).body.line_items[0]
        .unit_price;
    expect(await unit(trade, 1)).toBe(15);
    expect(await unit(trade, 10)).toBe(12);
    expect(await unit(trade, 60)).toBe(9);
    expect(await unit(both, 1)).toBe(13);
    expect(await unit(retail, 100)).toBe(20);
    expect(await unit(undefined, 100)).toBe(20);
    // A group price above retail never raises it.
    await h.call('POST', '/wholesale/pricing', { customer_group: 'wholesale', prices: [{ product_id: p.id, price: 25 }] });
    expect(await unit(trade, 1)).toBe(20);
  });

  test("a variant's own group price beats its product's; the customer named in capitals is the same one; erased, retail", async () => {
    const h = await setup();
    const sku = () => `W-${crypto.randomUUID().slice(0, 8)}`;
    const tee = (
      await h.call('POST', '/products', {
        name: 'Tee',
        type: 'variable',
        status: 'active',
        pricing_data: { retail: 20 },
        options: [{ name: 'size', values: ['S', 'M'] }],
        variants: [
          { options: { size: 'S' }, sku: sku(), stock_quantity: 50 },
          { options: { size: 'M' }, sku: sku(), stock_quantity: 50 },
        ],
      })
    ).body;
    const [small, medium] = tee.variants.map((v: { id: string }) => v.id);
    await h.call('POST', '/wholesale/pricing', {
      customer_group: 'wholesale',
      prices: [
        { product_id: tee.id, price: 16 },
        { product_id: tee.id, variant_id: medium, price: 14 },
      ],
    });
    const trade = await customer(h, ['wholesale']);
    const order = async (customer_id: string) =>
      await h.call('POST', '/orders', {
        customer_id,
        line_items: [
          { product_id: tee.id, variant_id: small, quantity: 1 },
          { product_id: tee.id, variant_id: medium, quantity: 1 },
        ],
      });
    const placed = await order(trade.toUpperCase());
    expect(placed.status).toBe(201);
    expect(placed.body.customer_id).toBe(trade);
    expect(placed.body.line_items.map((l: { unit_price: number }) => l.unit_price)).toEqual([16, 14]);
    // Erasure removes the customer's tags, and with them its groups; the order still names the customer.
    expect((await h.call('DELETE', `/customers/${trade}`)).status).toBe(200);
    const after = await order(trade);
    expect(after.status).toBe(201);
    expect(after.body).toMatchObject({ customer_id: trade, subtotal: 40 });
  });

  test('create_bulk_order: one order from SKUs at group prices; a bad SKU or short stock refuses it all, naming line_items.<n>.sku', async () => {
    const h = await setup();
    const a = await mkProduct(h, 10);
    const b = await mkProduct(h, 5, { stock_quantity: 3 });
    await h.call('POST', '/wholesale/pricing', { customer_group: 'wholesale', prices: [{ product_id: a.id, price: 8 }] });
    const c = await customer(h, ['wholesale']);
    const as = { 'x-api-key': await h.newKey(['commerce:write']) };
    const ok = await h.call(
      'POST',
      '/wholesale/orders',
      {
        customer_id: c,
        line_items: [
          { sku: a.sku, quantity: 10 },
          { sku: b.sku, quantity: 2 },
        ],
      },
      as,
    );
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ object: 'order', customer_id: c, subtotal: 90, total: 90 });
    const unknown = await h.call('POST', '/wholesale/orders', {
      customer_id: c,
      line_items: [
        { sku: a.sku, quantity: 1 },
        { sku: 'NOPE-1', quantity: 1 },
      ],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.param).toBe('line_items.1.sku');
    const short = await h.call('POST', '/wholesale/orders', {
      customer_id: c,
      line_items: [
        { sku: a.sku, quantity: 1 },
        { sku: b.sku, quantity: 2 },
      ],
    });
    expect(short.status).toBe(409);
    expect(short.body.error).toMatchObject({ code: 'insufficient_stock', param: 'line_items.1.sku' });
    expect((await h.call('GET', `/products/${a.id}`)).body.stock_quantity).toBe(990);
    expect((await h.call('GET', '/orders')).body.data.length).toBe(1);
    const nobody = await h.call('POST', '/wholesale/orders', { customer_id: crypto.randomUUID(), line_items: [{ sku: a.sku, quantity: 1 }] });
    expect(nobody.body.error).toMatchObject({ code: 'resource_missing', param: 'customer_id' });
  });

  test('set_pricing over MCP', async () => {
    const h = await setup();
    const p = await mkProduct(h, 20);
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({
      name: 'wholesale',
      arguments: { action: 'set_pricing', customer_group: 'wholesale', prices: [{ product_id: p.id, price: 11 }] },
    });
    await client.close();
    expect(JSON.parse(out.content[0].text)).toMatchObject({ object: 'wholesale_pricing', prices: [{ price: 11 }] });
  });
});
