/**
 * What other plugins may use of products: the product as the API shows it, so a plugin listing
 * products (collections' list_collection_products) answers the one shape without copying it, and
 * the existence check every resource-owning plugin offers. A plugin that imports this file
 * declares `requires: ['products']`.
 */
import { existingIds, type Db } from '../../core/sdk';
import { toProduct } from './store';

export { Product } from './schemas';

/** Which of `ids` are live (not deleted) products of the store. */
export const productsIn = (db: Db, storeId: string, ids: readonly string[]) =>
  existingIds(db, { table: 'products', storeId, ids, where: 'archived_at IS NULL' });

/** The live products among `ids`, as the API shows them (without variants), by id; one query. */
export async function liveProducts(db: Db, storeId: string, ids: readonly string[]) {
  const found = new Map<string, ReturnType<typeof toProduct>>();
  if (!ids.length) return found;
  const rows = await db.query('SELECT * FROM products WHERE store_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL', [
    storeId,
    [...new Set(ids)],
  ]);
  for (const r of rows) found.set(r.id, toProduct(r));
  return found;
}
