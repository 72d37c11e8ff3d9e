/** Inventory (SPEC 4.10 inventory, 5.4, 6.1, 7): levels per location, adjustments, transfers, listing and access. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';
import { adjust, defaultLocationId, expectConsistent, item, levelsOf, mkLocation, mkProduct, transfer, type Level } from '../../test/kit/inventory';

describe('adjusting stock', () => {
  let h: Harness;
  let home: string;
  beforeAll(async () => {
    h = await setup();
    home = await defaultLocationId(h);
  });

  test("a product's initial stock sits at the default location", async () => {
    const p = await mkProduct(h, { stock_quantity: 7 });
    const inv = await item(h, p.id);
    expect(inv).toMatchObject({ object: 'inventory_item', product_id: p.id, sku: p.sku, name: p.name, total: 7 });
    expect(inv.levels).toEqual([expect.objectContaining({ object: 'inventory_level', location_id: home, location_name: 'Default', quantity: 7 })]);
  });

  test('adjusting up adds units, at the default location when location_id is left out', async () => {
    const p = await mkProduct(h, { stock_quantity: 10 });
    const r = await adjust(h, { product_id: p.id, delta: 5, reason: 'received' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'inventory_item', product_id: p.id, total: 15 });
    expect(await levelsOf(h, p.id)).toEqual({ [home]: 15 });
    await expectConsistent(h, p.id, 15);
  });

  test('adjusting down removes units', async () => {
    const p = await mkProduct(h, { stock_quantity: 10 });
    expect((await adjust(h, { product_id: p.id, delta: -4, reason: 'damaged' })).body.total).toBe(6);
    await expectConsistent(h, p.id, 6);
  });

  test('adjusting at a named location stocks the product there and adds to the total', async () => {
    const p = await mkProduct(h, { stock_quantity: 2 });
    const shop = await mkLocation(h, 'Corner shop');
    const r = await adjust(h, { product_id: p.id, location_id: shop, delta: 3 });
    expect(r.body.total).toBe(5);
    expect(r.body.levels.map((l: Level) => [l.location_name, l.quantity])).toEqual([
      ['Default', 2],
      ['Corner shop', 3],
    ]);
    await expectConsistent(h, p.id, 5);
  });

  test('stock never goes negative: removing more than a location holds is 409 insufficient_stock and changes nothing', async () => {
    const p = await mkProduct(h, { stock_quantity: 3 });
    const shop = await mkLocation(h, 'Kiosk');
    await adjust(h, { product_id: p.id, location_id: shop, delta: 4 });
    // 7 units in total, but only 3 at the default location: the adjustment is per location.
    const r = await adjust(h, { product_id: p.id, delta: -4 });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'insufficient_stock', param: 'delta' });
    expect(await levelsOf(h, p.id)).toEqual({ [home]: 3, [shop]: 4 });
    expect((await item(h, p.id)).total).toBe(7);
    const history = (await h.call('GET', `/inventory/${p.id}?include_adjustments=true`)).body.adjustments;
    expect(history.length).toBe(1);
    await expectConsistent(h, p.id, 7);
  });

  test('the history records delta, reason and resulting quantity, newest first, only when asked for', async () => {
    const p = await mkProduct(h, { stock_quantity: 0 });
    await adjust(h, { product_id: p.id, delta: 12, reason: 'received' });
    await adjust(h, { product_id: p.id, delta: -2, reason: 'shrinkage' });
    expect((await item(h, p.id)).adjustments).toBeUndefined();
    const r = await h.call('GET', `/inventory/${p.id}?include_adjustments=true`);
    expect(r.body.adjustments).toEqual([
      expect.objectContaining({
        object: 'inventory_adjustment',
        type: 'adjustment',
        location_id: home,
        delta: -2,
        quantity_after: 10,
        reason: 'shrinkage',
        transfer_id: null,
      }),
      expect.objectContaining({ delta: 12, quantity_after: 12, reason: 'received', created_at: '2026-04-01T00:00:00.000Z' }),
    ]);
  });

  test("an inactive location cannot receive stock; a cancelled order's units from it go to the default location", async () => {
    const p = await mkProduct(h, { stock_quantity: 0 });
    const closed = await mkLocation(h, 'Closed store');
    await adjust(h, { product_id: p.id, location_id: closed, delta: 3 });
    const order = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 3 }] });
    expect((await h.call('PATCH', `/locations/${closed}`, { active: false })).status).toBe(200);
    expect((await h.call('POST', `/orders/${order.body.id}/cancel`)).status).toBe(200);
    expect(await levelsOf(h, p.id)).toEqual({ [closed]: 0, [home]: 3 });

    const r = await adjust(h, { product_id: p.id, location_id: closed, delta: 1 });
    expect({ status: r.status, param: r.body.error.param }).toEqual({ status: 400, param: 'location_id' });
    await expectConsistent(h, p.id, 3);
  });

  test('a total beyond the product stock limit is refused naming delta', async () => {
    const p = await mkProduct(h, { stock_quantity: 2_000_000_000 });
    const r = await adjust(h, { product_id: p.id, delta: 1 });
    expect({ status: r.status, param: r.body.error.param }).toEqual({ status: 400, param: 'delta' });
  });

  test('validation errors name the param', async () => {
    const p = await mkProduct(h);
    const cases: [Record<string, unknown>, string][] = [
      [{ product_id: p.id, delta: 0 }, 'delta'],
      [{ product_id: p.id, delta: 1.5 }, 'delta'],
      [{ product_id: p.id, delta: '3' }, 'delta'],
      [{ product_id: p.id }, 'delta'],
      [{ delta: 1 }, 'product_id'],
      [{ product_id: 'nope', delta: 1 }, 'product_id'],
      [{ product_id: p.id, location_id: 'x', delta: 1 }, 'location_id'],
      [{ product_id: p.id, delta: 1, reason: '' }, 'reason'],
      [{ product_id: p.id, delta: 1, quantity: 1 }, 'quantity'],
    ];
    for (const [body, param] of cases) {
      const r = await adjust(h, body);
      expect({ body, status: r.status, type: r.body.error?.type, param: r.body.error?.param }).toEqual({
        body,
        status: 400,
        type: 'invalid_request_error',
        param,
      });
    }
    await expectConsistent(h, p.id, 10);
  });

  test('unknown and archived products are 404 naming product_id', async () => {
    const p = await mkProduct(h);
    expect((await h.call('DELETE', `/products/${p.id}`)).status).toBe(200);
    for (const id of [p.id, crypto.randomUUID()]) {
      expect((await h.call('GET', `/inventory/${id}`)).status).toBe(404);
      const r = await adjust(h, { product_id: id, delta: 1 });
      expect(r.body.error).toMatchObject({ type: 'not_found_error', code: 'resource_missing', param: 'product_id' });
    }
    const r = await adjust(h, { product_id: (await mkProduct(h)).id, location_id: crypto.randomUUID(), delta: 1 });
    expect({ status: r.status, param: r.body.error.param }).toEqual({ status: 404, param: 'location_id' });
  });
});

describe('transferring stock', () => {
  let h: Harness;
  let home: string;
  let east: string;
  beforeAll(async () => {
    h = await setup();
    home = await defaultLocationId(h);
    east = await mkLocation(h, 'East warehouse');
  });

  test('a transfer moves units between locations and keeps the total', async () => {
    const p = await mkProduct(h, { stock_quantity: 10 });
    const r = await transfer(h, { product_id: p.id, from_location_id: home, to_location_id: east, quantity: 4 });
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(10);
    expect(await levelsOf(h, p.id)).toEqual({ [home]: 6, [east]: 4 });
    await expectConsistent(h, p.id, 10);
    await transfer(h, { product_id: p.id, from_location_id: east, to_location_id: home, quantity: 4 });
    expect(await levelsOf(h, p.id)).toEqual({ [home]: 10, [east]: 0 });
    await expectConsistent(h, p.id, 10);
  });

  test('a transfer is recorded as a pair sharing one transfer_id', async () => {
    const p = await mkProduct(h, { stock_quantity: 5 });
    await transfer(h, { product_id: p.id, from_location_id: home, to_location_id: east, quantity: 2 });
    const [into, out] = (await h.call('GET', `/inventory/${p.id}?include_adjustments=true`)).body.adjustments;
    expect(out).toMatchObject({ type: 'transfer', location_id: home, delta: -2, quantity_after: 3 });
    expect(into).toMatchObject({ type: 'transfer', location_id: east, delta: 2, quantity_after: 2 });
    expect(out.transfer_id).toBe(into.transfer_id);
  });

  test('short stock at the source is 409 insufficient_stock and moves nothing', async () => {
    const p = await mkProduct(h, { stock_quantity: 3 });
    const r = await transfer(h, { product_id: p.id, from_location_id: home, to_location_id: east, quantity: 4 });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'insufficient_stock', param: 'quantity' });
    expect(await levelsOf(h, p.id)).toEqual({ [home]: 3 });
    await expectConsistent(h, p.id, 3);
  });

  test('bad locations and quantities are refused naming the param', async () => {
    const p = await mkProduct(h, { stock_quantity: 3 });
    const shut = await mkLocation(h, 'Shut');
    expect((await h.call('PATCH', `/locations/${shut}`, { active: false })).status).toBe(200);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ from_location_id: home, to_location_id: home, quantity: 1 }, 400, 'to_location_id'],
      [{ from_location_id: home, to_location_id: home.toUpperCase(), quantity: 1 }, 400, 'to_location_id'],
      [{ from_location_id: crypto.randomUUID(), to_location_id: east, quantity: 1 }, 404, 'from_location_id'],
      [{ from_location_id: home, to_location_id: crypto.randomUUID(), quantity: 1 }, 404, 'to_location_id'],
      [{ from_location_id: home, to_location_id: shut, quantity: 1 }, 400, 'to_location_id'],
      [{ from_location_id: home, to_location_id: east, quantity: 0 }, 400, 'quantity'],
      [{ from_location_id: home, to_location_id: east, quantity: -1 }, 400, 'quantity'],
      [{ from_location_id: home, to_location_id: east }, 400, 'quantity'],
      [{ to_location_id: east, quantity: 1 }, 400, 'from_location_id'],
    ];
    for (const [body, status, param] of cases) {
      const r = await transfer(h, { product_id: p.id, ...body });
      expect({ body, status: r.status, param: r.body.error?.param }).toEqual({ body, status, param });
    }
    await expectConsistent(h, p.id, 3);
    expect(await levelsOf(h, p.id)).toEqual({ [home]: 3 });
  });
});

describe('listing inventory', () => {
  let h: Harness;
  let ids: string[];
  let shop: string;
  beforeAll(async () => {
    h = await setup();
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await mkProduct(h, { name: `P${i}`, stock_quantity: i })).id);
    shop = await mkLocation(h, 'Shop');
    await adjust(h, { product_id: ids[1], location_id: shop, delta: 9 });
    await adjust(h, { product_id: ids[3], location_id: shop, delta: 1 });
  });

  test('lists every live product newest first, paginated with starting_after and ending_before', async () => {
    const first = await h.call('GET', '/inventory?limit=2');
    expect(first.body).toMatchObject({ object: 'list', has_more: true, url: `${h.base}/inventory` });
    expect(first.body.data.map((i: any) => i.product_id)).toEqual([ids[4], ids[3]]);
    const next = await h.call('GET', `/inventory?limit=2&starting_after=${ids[3]}`);
    expect(next.body.data.map((i: any) => i.product_id)).toEqual([ids[2], ids[1]]);
    const back = await h.call('GET', `/inventory?limit=2&ending_before=${ids[2]}`);
    expect(back.body.data.map((i: any) => i.product_id)).toEqual([ids[4], ids[3]]);
    const all = (await h.call('GET', '/inventory?limit=100')).body;
    expect(all.has_more).toBe(false);
    expect(all.data.find((i: any) => i.product_id === ids[1])).toMatchObject({
      total: 10,
      levels: [{ quantity: 1 }, { location_id: shop, quantity: 9 }],
    });
    expect(all.data.find((i: any) => i.product_id === ids[0])).toMatchObject({ total: 0 });
  });

  test('location_id lists only products stocked there, with only that level', async () => {
    const r = await h.call('GET', `/inventory?location_id=${shop}`);
    expect(r.body.data.map((i: any) => [i.product_id, i.total, i.levels.map((l: Level) => l.quantity)])).toEqual([
      [ids[3], 4, [1]],
      [ids[1], 10, [9]],
    ]);
  });

  test('product_id narrows to one product; unknown filters are 404 naming the param', async () => {
    const r = await h.call('GET', `/inventory?product_id=${ids[2]}`);
    expect(r.body.data.map((i: any) => i.product_id)).toEqual([ids[2]]);
    for (const param of ['product_id', 'location_id']) {
      const miss = await h.call('GET', `/inventory?${param}=${crypto.randomUUID()}`);
      expect({ status: miss.status, param: miss.body.error.param }).toEqual({ status: 404, param });
    }
    const bad = await h.call('GET', '/inventory?limit=0');
    expect({ status: bad.status, param: bad.body.error.param }).toEqual({ status: 400, param: 'limit' });
  });

  test('archived products leave the list', async () => {
    const p = await mkProduct(h, { stock_quantity: 1 });
    await h.call('DELETE', `/products/${p.id}`);
    const all = (await h.call('GET', '/inventory?limit=100')).body.data.map((i: any) => i.product_id);
    expect(all).not.toContain(p.id);
  });
});

describe('access', () => {
  let h: Harness;
  let other: Harness;
  beforeAll(async () => {
    h = await setup();
    other = await setup();
  });

  test('inventory:read can look but not adjust or transfer (403 insufficient_scope); inventory:write can adjust', async () => {
    const p = await mkProduct(h);
    const home = await defaultLocationId(h);
    const shop = await mkLocation(h, 'Shop');
    const reader = { 'x-api-key': await h.newKey(['inventory:read']) };
    expect((await h.call('GET', '/inventory', undefined, reader)).status).toBe(200);
    expect((await h.call('GET', `/inventory/${p.id}`, undefined, reader)).status).toBe(200);
    for (const [path, body] of [
      ['/inventory/adjust', { product_id: p.id, delta: 1 }],
      ['/inventory/transfer', { product_id: p.id, from_location_id: home, to_location_id: shop, quantity: 1 }],
    ] as const) {
      const r = await h.call('POST', path, body, reader);
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    }
    const writer = { 'x-api-key': await h.newKey(['inventory:write']) };
    expect((await h.call('POST', '/inventory/adjust', { product_id: p.id, delta: 1 }, writer)).status).toBe(200);
    const productsOnly = { 'x-api-key': await h.newKey(['products:read', 'products:write']) };
    expect((await h.call('GET', '/inventory', undefined, productsOnly)).status).toBe(403);
    await expectConsistent(h, p.id, 11);
  });

  test("another store's products and locations are 404", async () => {
    const theirs = await mkProduct(other, { stock_quantity: 5 });
    const theirLoc = await mkLocation(other, 'Theirs');
    const mine = await mkProduct(h, { stock_quantity: 5 });
    const home = await defaultLocationId(h);
    expect((await h.call('GET', `/inventory/${theirs.id}`)).status).toBe(404);
    expect((await h.call('GET', `/inventory?product_id=${theirs.id}`)).status).toBe(404);
    expect((await h.call('GET', `/inventory?location_id=${theirLoc}`)).status).toBe(404);
    const cases: [string, Record<string, unknown>, string][] = [
      ['/inventory/adjust', { product_id: theirs.id, delta: -1 }, 'product_id'],
      ['/inventory/adjust', { product_id: mine.id, location_id: theirLoc, delta: 1 }, 'location_id'],
      ['/inventory/transfer', { product_id: theirs.id, from_location_id: home, to_location_id: theirLoc, quantity: 1 }, 'product_id'],
      ['/inventory/transfer', { product_id: mine.id, from_location_id: home, to_location_id: theirLoc, quantity: 1 }, 'to_location_id'],
      ['/inventory/transfer', { product_id: mine.id, from_location_id: theirLoc, to_location_id: home, quantity: 1 }, 'from_location_id'],
    ];
    for (const [path, body, param] of cases) {
      const r = await h.call('POST', path, body);
      expect({ body, status: r.status, param: r.body.error?.param }).toEqual({ body, status: 404, param });
    }
    await expectConsistent(other, theirs.id, 5);
    await expectConsistent(h, mine.id, 5);
  });
});
