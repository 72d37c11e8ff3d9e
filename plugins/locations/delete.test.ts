/** get_location and delete_location: only an empty, non-default location goes, and stock can never be stranded in a deleted one. */
import { describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';
import { adjust, defaultLocationId, expectConsistent, levelsOf, mkLocation, mkProduct, transfer } from '../../test/kit/inventory';

const del = (h: Harness, id: string) => h.call('DELETE', `/locations/${id}`);

describe('get_location', () => {
  test("answers the location as listed; unknown, malformed and other stores' ids are 404 naming id", async () => {
    const h = await setup();
    const created = (await h.call('POST', '/locations', { name: 'Berlin', address: { city: 'Berlin', country: 'DE' } })).body;
    const r = await h.call('GET', `/locations/${created.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(created);
    const other = await setup();
    for (const id of [crypto.randomUUID(), 'not-a-uuid']) {
      const missing = await h.call('GET', `/locations/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    }
    expect((await other.call('GET', `/locations/${created.id}`)).status).toBe(404);
  });
});

describe('delete_location', () => {
  test('an empty location is deleted: 200 with the id, then gone from get, list, update and a second delete', async () => {
    const h = await setup();
    const id = await mkLocation(h, 'Pop-up');
    const r = await del(h, id);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ object: 'location', id, deleted: true });
    expect((await h.call('GET', `/locations/${id}`)).status).toBe(404);
    expect((await h.call('PATCH', `/locations/${id}`, { name: 'Back' })).status).toBe(404);
    expect((await del(h, id)).status).toBe(404);
    expect((await h.call('GET', '/locations?limit=100')).body.data.map((l: any) => l.id)).not.toContain(id);
  });

  test('the default location cannot be deleted (409 naming id)', async () => {
    const h = await setup();
    const r = await del(h, await defaultLocationId(h));
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict_error', param: 'id' });
    expect(r.body.error.message).toContain('default location');
  });

  test('a location holding stock is refused with 409 location_not_empty naming the units and products', async () => {
    const h = await setup();
    const loc = await mkLocation(h, 'Warehouse X');
    const home = await defaultLocationId(h);
    const [a, b, c] = [
      await mkProduct(h, { stock_quantity: 10 }),
      await mkProduct(h, { stock_quantity: 10 }),
      await mkProduct(h, { stock_quantity: 10 }),
    ];
    await transfer(h, { product_id: a.id, from_location_id: home, to_location_id: loc, quantity: 5 });
    await transfer(h, { product_id: b.id, from_location_id: home, to_location_id: loc, quantity: 4 });
    await adjust(h, { product_id: c.id, location_id: loc, delta: 3 });
    const r = await del(h, loc);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'location_not_empty', param: 'id' });
    expect(r.body.error.message).toContain("Location 'Warehouse X' still holds 12 units of 3 products");
    expect((await h.call('GET', `/locations/${loc}`)).status).toBe(200);
    // Emptied (moved away and written off), it goes; the products keep their totals elsewhere.
    await transfer(h, { product_id: a.id, from_location_id: loc, to_location_id: home, quantity: 5 });
    await transfer(h, { product_id: b.id, from_location_id: loc, to_location_id: home, quantity: 4 });
    const one = await adjust(h, { product_id: c.id, location_id: loc, delta: -2 });
    expect(one.status).toBe(200);
    expect((await del(h, loc)).body.error.message).toContain('still holds 1 unit of 1 product;');
    await adjust(h, { product_id: c.id, location_id: loc, delta: -1 });
    expect((await del(h, loc)).status).toBe(200);
    for (const p of [a, b, c]) {
      expect(Object.keys(await levelsOf(h, p.id))).not.toContain(loc);
      await expectConsistent(h, p.id);
    }
  });

  test('a deleted location receives nothing and cannot be named by inventory: adjust, transfer and the list filter are 404', async () => {
    const h = await setup();
    const loc = await mkLocation(h, 'Closed');
    const home = await defaultLocationId(h);
    const p = await mkProduct(h, { stock_quantity: 4 });
    await del(h, loc);
    for (const r of [
      await adjust(h, { product_id: p.id, location_id: loc, delta: 1 }),
      await transfer(h, { product_id: p.id, from_location_id: home, to_location_id: loc, quantity: 1 }),
      await h.call('GET', `/inventory?location_id=${loc}`),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('resource_missing');
    }
    await expectConsistent(h, p.id, 4);
  });

  test("a deleted location's name is free again, and its stock history is kept", async () => {
    const h = await setup();
    const loc = await mkLocation(h, 'Harbour');
    const p = await mkProduct(h, { stock_quantity: 0 });
    await adjust(h, { product_id: p.id, location_id: loc, delta: 2, reason: 'received' });
    await adjust(h, { product_id: p.id, location_id: loc, delta: -2, reason: 'damaged' });
    expect((await del(h, loc)).status).toBe(200);
    const again = await h.call('POST', '/locations', { name: 'harbour' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(loc);
    const history = (await h.call('GET', `/inventory/${p.id}?include_adjustments=true`)).body.adjustments;
    expect(history.map((a: any) => [a.location_id, a.delta])).toEqual([
      [loc, -2],
      [loc, 2],
    ]);
  });

  test("archived products' units do not block deletion; they move to the default location, totals unchanged", async () => {
    const h = await setup();
    const loc = await mkLocation(h, 'Outlet');
    const home = await defaultLocationId(h);
    const p = await mkProduct(h, { stock_quantity: 2 });
    await adjust(h, { product_id: p.id, location_id: loc, delta: 3 });
    await h.call('DELETE', `/products/${p.id}`);
    expect((await del(h, loc)).status).toBe(200);
    const levels = await h.db.query<{ location_id: string; quantity: number }>(
      'SELECT location_id, quantity FROM inventory_levels WHERE product_id = $1',
      [p.id],
    );
    expect(levels.map((l) => [l.location_id, Number(l.quantity)])).toEqual([[home, 5]]);
    // The deleted product's total is kept by the ledger: its units moved, none were lost.
    const [row] = await h.db.query<{ total: number }>('SELECT sum(quantity)::int AS total FROM inventory_levels WHERE product_id = $1', [p.id]);
    expect(Number(row.total)).toBe(5);
  });

  test("inventory:read cannot delete (403); another store's location is 404 and stays", async () => {
    const h = await setup();
    const loc = await mkLocation(h, 'Mine');
    const readOnly = await h.newKey(['inventory:read']);
    expect((await h.call('DELETE', `/locations/${loc}`, undefined, { 'x-api-key': readOnly })).status).toBe(403);
    const other = await setup();
    expect((await other.call('DELETE', `/locations/${loc}`)).status).toBe(404);
    expect((await h.call('GET', `/locations/${loc}`)).status).toBe(200);
  });
});

/** Whatever the interleaving, a deleted location holds nothing and every product's ledger adds up. */
async function expectNothingStranded(h: Harness, loc: string, productIds: string[]) {
  const deleted = (await h.call('GET', `/locations/${loc}`)).status === 404;
  const [{ units }] = await h.db.query<{ units: string }>('SELECT coalesce(sum(quantity), 0) AS units FROM inventory_levels WHERE location_id = $1', [
    loc,
  ]);
  if (deleted) expect(Number(units)).toBe(0);
  for (const id of productIds) await expectConsistent(h, id);
  return { deleted, units: Number(units) };
}

describe('delete_location racing stock moving in', () => {
  test('parallel transfers and adjustments into the location: the deletion is refused, or every movement after it fails', async () => {
    const h = await setup();
    const home = await defaultLocationId(h);
    const p = await mkProduct(h, { stock_quantity: 100 });
    for (let round = 0; round < 6; round++) {
      const loc = await mkLocation(h, `Race ${round}`);
      const moves = Array.from(
        { length: 4 },
        (_, i) => () =>
          i % 2
            ? adjust(h, { product_id: p.id, location_id: loc, delta: 1 })
            : transfer(h, { product_id: p.id, from_location_id: home, to_location_id: loc, quantity: 1 }),
      );
      // The deletion starts at another place among the movements each round: first, between, last.
      const at = round % 5;
      const calls = [...moves.slice(0, at), () => del(h, loc), ...moves.slice(at)];
      const answers = await Promise.all(calls.map((call) => call()));
      const deletion = answers[at];
      const others = answers.filter((_, i) => i !== at);
      const moved = others.filter((a) => a.status === 200).length;
      for (const a of others) expect([200, 404]).toContain(a.status);
      const { deleted, units } = await expectNothingStranded(h, loc, [p.id]);
      if (deletion.status === 200) {
        expect(deleted).toBe(true);
        expect(moved).toBe(0);
      } else {
        expect(deletion.body.error.code).toBe('location_not_empty');
        expect(units).toBe(moved);
        expect(moved).toBeGreaterThan(0);
      }
    }
  });

  test('an order cancelled while its location is deleted: the units come back to the location (deletion refused) or to the default', async () => {
    const h = await setup();
    const home = await defaultLocationId(h);
    for (let round = 0; round < 6; round++) {
      const loc = await mkLocation(h, `Shop ${round}`);
      const p = await mkProduct(h, { stock_quantity: 0 });
      await adjust(h, { product_id: p.id, location_id: loc, delta: 2 });
      const order = (await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 2 }] })).body;
      expect((await levelsOf(h, p.id))[loc]).toBe(0);
      const [cancel, deletion] = await Promise.all([h.call('POST', `/orders/${order.id}/cancel`, {}), del(h, loc)]);
      expect(cancel.status).toBe(200);
      const { deleted } = await expectNothingStranded(h, loc, [p.id]);
      const levels = await levelsOf(h, p.id);
      if (deletion.status === 200) {
        expect(deleted).toBe(true);
        expect(levels[home]).toBe(2);
      } else {
        expect(deletion.body.error.code).toBe('location_not_empty');
        expect(levels[loc]).toBe(2);
      }
    }
  });

  test("the same race with deactivation: a cancelled order's units never land in a location that closed meanwhile", async () => {
    const h = await setup();
    const home = await defaultLocationId(h);
    for (let round = 0; round < 6; round++) {
      const loc = await mkLocation(h, `Kiosk ${round}`);
      const p = await mkProduct(h, { stock_quantity: 0 });
      await adjust(h, { product_id: p.id, location_id: loc, delta: 2 });
      const order = (await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 2 }] })).body;
      const [, closing] = await Promise.all([
        h.call('POST', `/orders/${order.id}/cancel`, {}),
        h.call('PATCH', `/locations/${loc}`, { active: false }),
      ]);
      const levels = await levelsOf(h, p.id);
      if (closing.status === 200) expect([levels[loc] ?? 0, levels[home]]).toEqual([0, 2]);
      else expect(levels[loc]).toBe(2);
      await expectConsistent(h, p.id, 2);
    }
  });

  test('parallel deletions of one location: exactly one 200, the rest 404', async () => {
    const h = await setup();
    const loc = await mkLocation(h, 'Twice');
    const answers = await Promise.all(Array.from({ length: 6 }, () => del(h, loc)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404, 404, 404, 404]);
  });
});
