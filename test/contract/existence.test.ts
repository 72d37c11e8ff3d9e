/**
 * The standard existence check each resource-owning plugin offers in its public.ts
 * (`<plural>In(db, storeId, ids)`): the ids that are live resources of the store, and no other:
 * not an unknown id, not a malformed one, not another store's.
 */
import { expect, test } from 'bun:test';
import { collectionsIn } from '../../plugins/collections/public';
import { customersIn } from '../../plugins/customers/public';
import { locationsIn } from '../../plugins/locations/public';
import { ordersIn } from '../../plugins/orders/public';
import { productsIn } from '../../plugins/products/public';
import { reviewsIn } from '../../plugins/reviews/public';
import type { Db } from '../../core/db/types';
import { freshWorld } from '../kit/examples';
import { setup } from '../kit/setup';

const CHECKS: [string, (db: Db, storeId: string, ids: readonly string[]) => Promise<Set<string>>][] = [
  ['products.create_product', productsIn],
  ['orders.create_order', ordersIn],
  ['customers.create_customer', customersIn],
  ['collections.create_collection', collectionsIn],
  ['locations.create_location', locationsIn],
  ['reviews.create_review', reviewsIn],
];

test("each plugin's existence check answers its store's live ids, never another store's, an unknown or a malformed one", async () => {
  const h = await setup();
  const a = await freshWorld(h, 'Store A');
  const b = await freshWorld(h, 'Store B');
  for (const [maker, isIn] of CHECKS) {
    const mine = (await a.make(maker)).id as string;
    const theirs = (await b.make(maker)).id as string;
    const found = await isIn(h.db, a.store.id, [mine, mine.toUpperCase(), theirs, crypto.randomUUID(), 'not-an-id']);
    expect([...found], maker).toEqual([mine, mine.toUpperCase()]);
    expect((await isIn(h.db, a.store.id, [])).size).toBe(0);
  }
});

test('a deleted product is no longer in', async () => {
  const h = await setup();
  const w = await freshWorld(h);
  const p = (await w.make('products.create_product')).id;
  await w.make('products.delete_product', { id: p });
  expect((await productsIn(h.db, w.store.id, [p])).size).toBe(0);
});
