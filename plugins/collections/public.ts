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
