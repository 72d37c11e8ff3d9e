/**
 * What other plugins may use of collections: the standard existence check. A plugin that imports
 * this file declares `requires: ['collections']`.
 */
import { existingIds, type Db } from '../../core/sdk';

/** Which of `ids` are collections of the store. */
export const collectionsIn = (db: Db, storeId: string, ids: readonly string[]) => existingIds(db, { table: 'collections', storeId, ids });

/** The collections of `collectionIds` each of `productIds` belongs to (one query), for coupons restricted to collections. */
export async function collectionsOfProducts(db: Db, storeId: string, productIds: readonly string[], collectionIds: readonly string[]) {
  const out = new Map<string, Set<string>>();
  if (!productIds.length || !collectionIds.length) return out;
  const rows = await db.query<{ product_id: string; collection_id: string }>(
    'SELECT product_id, collection_id FROM collection_products WHERE store_id = $1 AND product_id = ANY($2::uuid[]) AND collection_id = ANY($3::uuid[])',
    [storeId, [...new Set(productIds)], [...new Set(collectionIds)]],
  );
  for (const r of rows) (out.get(r.product_id) ?? out.set(r.product_id, new Set()).get(r.product_id)!).add(r.collection_id);
  return out;
}

/** For every other product sharing a collection with `productId`, how many it shares (discovery's similar_products). */
export async function sharedCollectionCounts(db: Db, storeId: string, productId: string): Promise<Map<string, number>> {
  const rows = await db.query<{ product_id: string; shared: number }>(
    `SELECT o.product_id, count(DISTINCT o.collection_id)::int AS shared
     FROM collection_products m JOIN collection_products o ON o.collection_id = m.collection_id AND o.store_id = m.store_id
     WHERE m.store_id = $1 AND m.product_id = $2 AND o.product_id <> $2
     GROUP BY o.product_id`,
    [storeId, productId],
  );
  return new Map(rows.map((r) => [r.product_id, Number(r.shared)]));
}
