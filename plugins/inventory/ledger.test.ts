/** The stock ledger seen through inventory: orders and locations, the stock_quantity invariant, and concurrent movements. */
import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { setup } from '../../test/kit/setup';
import { adjust, defaultLocationId, expectConsistent, levelsOf, mkLocation, mkProduct, transfer } from '../../test/kit/inventory';

describe('orders and locations', () => {
  test('an order takes from the default location first, then the others; cancelling puts units back where they came from', async () => {
    const h = await setup();
    const p = await mkProduct(h, { stock_quantity: 3 });
    const home = await defaultLocationId(h);
    const north = await mkLocation(h, 'North');
    const south = await mkLocation(h, 'South');
    await adjust(h, { product_id: p.id, location_id: north, delta: 2 });
    await adjust(h, { product_id: p.id, location_id: south, delta: 5 });
    await expectConsistent(h, p.id, 10);

    const order = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 6 }] });
    expect(order.status).toBe(201);
    // default (3) first, then locations in creation order: North (2), then 1 of South's 5.
    expect(await levelsOf(h, p.id)).toEqual({ [home]: 0, [north]: 0, [south]: 4 });
    await expectConsistent(h, p.id, 4);

    // Stock moved meanwhile must not change where the cancelled units return.
    await transfer(h, { product_id: p.id, from_location_id: south, to_location_id: home, quantity: 4 });
    await expectConsistent(h, p.id, 4);

    expect((await h.call('POST', `/orders/${order.body.id}/cancel`)).status).toBe(200);
    expect(await levelsOf(h, p.id)).toEqual({ [home]: 7, [north]: 2, [south]: 1 });
    await expectConsistent(h, p.id, 10);
  });

  test('the product stock_quantity equals the sum of levels after any sequence of movements', async () => {
    const h = await setup();
    const p = await mkProduct(h, { stock_quantity: 5 });
    const locs = [await defaultLocationId(h), await mkLocation(h, 'A'), await mkLocation(h, 'B')];
    const op = fc.oneof(
      fc.record({ kind: fc.constant('adjust' as const), at: fc.nat(2), delta: fc.integer({ min: -6, max: 6 }).filter((d) => d !== 0) }),
      fc.record({ kind: fc.constant('transfer' as const), from: fc.nat(2), to: fc.nat(2), quantity: fc.integer({ min: 1, max: 6 }) }),
      fc.record({ kind: fc.constant('order' as const), quantity: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ kind: fc.constant('set' as const), total: fc.integer({ min: 0, max: 12 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 6 }), async (ops) => {
        for (const o of ops) {
          if (o.kind === 'adjust') await adjust(h, { product_id: p.id, location_id: locs[o.at], delta: o.delta });
          else if (o.kind === 'transfer')
            await transfer(h, { product_id: p.id, from_location_id: locs[o.from], to_location_id: locs[o.to], quantity: o.quantity });
          else if (o.kind === 'set') await h.call('PATCH', `/products/${p.id}`, { stock_quantity: o.total });
          else {
            const r = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: o.quantity }] });
            if (r.status === 201) expect((await h.call('POST', `/orders/${r.body.id}/cancel`)).status).toBe(200);
          }
          await expectConsistent(h, p.id);
        }
      }),
      { numRuns: 15 },
    );
  });
});

describe('concurrency', () => {
  test('parallel -1 adjustments at a level of 5: exactly 5 succeed and stock ends at 0', async () => {
    const h = await setup();
    const p = await mkProduct(h, { stock_quantity: 5 });
    const results = await Promise.all(Array.from({ length: 12 }, () => adjust(h, { product_id: p.id, delta: -1 })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    expect(statuses.filter((s) => s === 409).length).toBe(7);
    await expectConsistent(h, p.id, 0);
  });

  test('parallel transfers in both directions and orders keep the total and never deadlock', async () => {
    const h = await setup();
    // Enough at each end that no interleaving can run a source dry: every request must succeed.
    const p = await mkProduct(h, { stock_quantity: 40 });
    const home = await defaultLocationId(h);
    const west = await mkLocation(h, 'West');
    await transfer(h, { product_id: p.id, from_location_id: home, to_location_id: west, quantity: 10 });
    const jobs = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 2
        ? h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] })
        : transfer(h, { product_id: p.id, from_location_id: i % 3 ? home : west, to_location_id: i % 3 ? west : home, quantity: 2 }),
    );
    const results = await Promise.all(jobs);
    expect(results.every((r) => r.status < 300)).toBe(true);
    await expectConsistent(h, p.id, 36);
  });
});
