/** Locations (SPEC 4.10 locations, 5.4, 7): the default location, unique names, addresses, and safe deactivation. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

async function mkLocation(h: Harness, body: Record<string, unknown>) {
  const r = await h.call('POST', '/locations', body);
  expect(r.status).toBe(201);
  return r.body;
}

async function listAll(h: Harness, query = '') {
  const r = await h.call('GET', `/locations?limit=100${query}`);
  expect(r.status).toBe(200);
  expect(r.body.has_more).toBe(false);
  return r.body.data as any[];
}

const defaultOf = async (h: Harness) => (await listAll(h)).find((l) => l.is_default);

describe('the default location', () => {
  test('a new store lists exactly one location: the active default', async () => {
    const h = await setup();
    const r = await h.call('GET', '/locations');
    expect(r.body).toMatchObject({ object: 'list', has_more: false, url: `${h.base}/locations` });
    expect(r.body.data).toEqual([
      {
        object: 'location',
        id: expect.any(String),
        name: 'Default',
        is_default: true,
        active: true,
        address: null,
        created_at: expect.stringMatching(ISO_UTC),
        updated_at: expect.stringMatching(ISO_UTC),
      },
    ]);
    // Listing again does not make another one.
    expect((await listAll(h)).length).toBe(1);
  });

  test("the default is the location that holds a product's first stock", async () => {
    const h = await setup();
    const p = (await h.call('POST', '/products', product({ stock_quantity: 4 }))).body;
    const home = await defaultOf(h);
    expect((await h.call('GET', `/inventory/${p.id}`)).body.levels).toEqual([expect.objectContaining({ location_id: home.id, quantity: 4 })]);
  });

  test('creating a location first still leaves the store with its default, and the name Default stays taken', async () => {
    const h = await setup();
    const r = await h.call('POST', '/locations', { name: 'default' });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', param: 'name' });
    await mkLocation(h, { name: 'Warehouse' });
    expect((await listAll(h)).map((l) => [l.name, l.is_default])).toEqual([
      ['Warehouse', false],
      ['Default', true],
    ]);
  });

  test('the default location cannot be deactivated (409 naming active) but can be renamed', async () => {
    const h = await setup();
    const home = await defaultOf(h);
    const r = await h.call('PATCH', `/locations/${home.id}`, { active: false });
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', param: 'active' });
    const renamed = await h.call('PATCH', `/locations/${home.id}`, { name: 'Main warehouse' });
    expect(renamed.body).toMatchObject({ name: 'Main warehouse', is_default: true, active: true });
  });
});

describe('creating and updating locations', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
  });

  test('create answers 201 with the address in full, every field present', async () => {
    const loc = await mkLocation(h, { name: 'Berlin', address: { line1: 'Alexanderplatz 1', city: 'Berlin', postal_code: '10178', country: 'DE' } });
    expect(loc).toMatchObject({
      object: 'location',
      name: 'Berlin',
      is_default: false,
      active: true,
      address: { line1: 'Alexanderplatz 1', line2: null, city: 'Berlin', region: null, postal_code: '10178', country: 'DE' },
    });
    expect(loc.created_at).toMatch(ISO_UTC);
    expect((await listAll(h)).map((l) => l.id)).toContain(loc.id);
  });

  test('names are unique in the store ignoring case and surrounding spaces (409 conflict_error naming name)', async () => {
    await mkLocation(h, { name: 'Warehouse' });
    for (const name of ['warehouse', 'WAREHOUSE', '  Warehouse ']) {
      const r = await h.call('POST', '/locations', { name });
      expect({ name, status: r.status, type: r.body.error?.type, param: r.body.error?.param }).toEqual({
        name,
        status: 409,
        type: 'conflict_error',
        param: 'name',
      });
    }
    const other = await mkLocation(h, { name: 'Outlet' });
    const r = await h.call('PATCH', `/locations/${other.id}`, { name: 'WareHouse' });
    expect({ status: r.status, param: r.body.error?.param }).toEqual({ status: 409, param: 'name' });
    // The same name in another store is fine.
    await mkLocation(await setup(), { name: 'Warehouse' });
  });

  test('validation errors name the param', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'A', address: { city: 'Paris' } }, 'address.country'],
      [{ name: 'A', address: { country: 'usa' } }, 'address.country'],
      [{ name: 'A', address: { country: 'US', zip: '1' } }, 'address.zip'],
      [{ name: 'A', active: false }, 'active'],
    ];
    for (const [body, param] of cases) {
      const r = await h.call('POST', '/locations', body);
      expect({ body, status: r.status, param: r.body.error?.param }).toEqual({ body, status: 400, param });
    }
  });

  test('update renames, replaces the address, clears it with null; fields left out keep their value', async () => {
    const loc = await mkLocation(h, { name: 'Depot', address: { line1: '1 Road', country: 'US' } });
    h.clock.advance(60_000);
    const renamed = (await h.call('PATCH', `/locations/${loc.id}`, { name: 'Depot 2' })).body;
    expect(renamed).toMatchObject({ name: 'Depot 2', address: { line1: '1 Road', country: 'US' } });
    expect(renamed.updated_at > loc.updated_at).toBe(true);
    const moved = (await h.call('PATCH', `/locations/${loc.id}`, { address: { city: 'Lyon', country: 'FR' } })).body;
    expect(moved.address).toEqual({ line1: null, line2: null, city: 'Lyon', region: null, postal_code: null, country: 'FR' });
    expect((await h.call('PATCH', `/locations/${loc.id}`, { address: null })).body).toMatchObject({ name: 'Depot 2', address: null });
    const bad = await h.call('PATCH', `/locations/${loc.id}`, { name: '' });
    expect({ status: bad.status, param: bad.body.error.param }).toEqual({ status: 400, param: 'name' });
  });

  test("unknown and other stores' locations are 404 naming id", async () => {
    const theirs = await mkLocation(await setup(), { name: 'Theirs' });
    for (const id of [theirs.id, crypto.randomUUID()]) {
      const r = await h.call('PATCH', `/locations/${id}`, { name: 'Mine now' });
      expect(r.body.error).toMatchObject({ type: 'not_found_error', code: 'resource_missing', param: 'id' });
    }
  });
});

describe('deactivating locations', () => {
  let h: Harness;
  let home: any;
  beforeAll(async () => {
    h = await setup();
    home = await defaultOf(h);
  });

  test('a location still holding stock cannot be deactivated; once emptied it can, and it can be reactivated', async () => {
    const p = (await h.call('POST', '/products', product({ stock_quantity: 5 }))).body;
    const loc = await mkLocation(h, { name: 'Annex' });
    await h.call('POST', '/inventory/transfer', { product_id: p.id, from_location_id: home.id, to_location_id: loc.id, quantity: 2 });
    const refused = await h.call('PATCH', `/locations/${loc.id}`, { active: false });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: 'conflict_error', param: 'active' });
    expect((await listAll(h, '&active=true')).map((l) => l.id)).toContain(loc.id);

    await h.call('POST', '/inventory/transfer', { product_id: p.id, from_location_id: loc.id, to_location_id: home.id, quantity: 2 });
    const off = await h.call('PATCH', `/locations/${loc.id}`, { active: false });
    expect(off.body).toMatchObject({ active: false });
    expect((await listAll(h, '&active=false')).map((l) => l.id)).toEqual([loc.id]);
    expect((await listAll(h, '&active=true')).map((l) => l.id)).not.toContain(loc.id);
    expect((await h.call('PATCH', `/locations/${loc.id}`, { active: true })).body.active).toBe(true);
    expect((await h.call('GET', `/products/${p.id}`)).body.stock_quantity).toBe(5);
  });

  test("a cancelled order's units return to the default location when theirs has closed, and sell again", async () => {
    const p = (await h.call('POST', '/products', product({ stock_quantity: 0 }))).body;
    const loc = await mkLocation(h, { name: 'Back room' });
    await h.call('POST', '/inventory/adjust', { product_id: p.id, location_id: loc.id, delta: 1 });
    const order = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] });
    expect((await h.call('PATCH', `/locations/${loc.id}`, { active: false })).status).toBe(200);
    await h.call('POST', `/orders/${order.body.id}/cancel`);
    // Its own location is closed, so the unit went to the default location, where orders reach it.
    const r = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] });
    expect(r.status).toBe(201);
  });

  test('deactivation racing stock arriving: never both, so an inactive location never gains stock from an adjustment', async () => {
    const p = (await h.call('POST', '/products', product({ stock_quantity: 0 }))).body;
    for (let i = 0; i < 5; i++) {
      const loc = await mkLocation(h, { name: `Race ${i}` });
      const [off, add] = await Promise.all([
        h.call('PATCH', `/locations/${loc.id}`, { active: false }),
        h.call('POST', '/inventory/adjust', { product_id: p.id, location_id: loc.id, delta: 1 }),
      ]);
      // Either the stock arrived first (deactivation refused) or the location closed first (adjustment refused).
      expect([[off.status, add.status]]).toContainEqual(off.status === 200 ? [200, 400] : [409, 200]);
    }
  });

  test('units of archived products do not keep a location active', async () => {
    const p = (await h.call('POST', '/products', product({ stock_quantity: 0 }))).body;
    const loc = await mkLocation(h, { name: 'Clearance' });
    await h.call('POST', '/inventory/adjust', { product_id: p.id, location_id: loc.id, delta: 3 });
    expect((await h.call('PATCH', `/locations/${loc.id}`, { active: false })).status).toBe(409);
    await h.call('DELETE', `/products/${p.id}`);
    expect((await h.call('PATCH', `/locations/${loc.id}`, { active: false })).status).toBe(200);
  });
});

describe('listing and access', () => {
  test('lists newest first with cursor pagination', async () => {
    const h = await setup();
    const ids: string[] = [(await defaultOf(h)).id];
    for (const name of ['A', 'B', 'C']) ids.push((await mkLocation(h, { name })).id);
    const first = await h.call('GET', '/locations?limit=2');
    expect(first.body.has_more).toBe(true);
    expect(first.body.data.map((l: any) => l.id)).toEqual([ids[3], ids[2]]);
    const rest = await h.call('GET', `/locations?limit=2&starting_after=${ids[2]}`);
    expect(rest.body).toMatchObject({ has_more: false });
    expect(rest.body.data.map((l: any) => l.id)).toEqual([ids[1], ids[0]]);
  });

  test('inventory:read can list but not create or update (403); keys without inventory scopes cannot list', async () => {
    const h = await setup();
    const home = await defaultOf(h);
    const reader = { 'x-api-key': await h.newKey(['inventory:read']) };
    expect((await h.call('GET', '/locations', undefined, reader)).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/locations'],
      ['PATCH', `/locations/${home.id}`],
    ]) {
      const r = await h.call(method, path, { name: 'Nope' }, reader);
      expect(r.status).toBe(403);
      expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    }
    const writer = { 'x-api-key': await h.newKey(['inventory:write']) };
    expect((await h.call('POST', '/locations', { name: 'Yes' }, writer)).status).toBe(201);
    const products = { 'x-api-key': await h.newKey(['products:read']) };
    expect((await h.call('GET', '/locations', undefined, products)).status).toBe(403);
  });
});
