/**
 * What other plugins may use of products: the product as the API shows it, so a plugin listing
 * products (collections' list_collection_products) answers the one shape without copying it, and
 * the existence check every resource-owning plugin offers. A plugin that imports this file
 * declares `requires: ['products']`.
 */
import { existingIds, type Db } from '../../core/sdk';

export { toProduct } from './store';
export { Product } from './schemas';

/** Which of `ids` are live (not deleted) products of the store. */
export const productsIn = (db: Db, storeId: string, ids: readonly string[]) =>
  existingIds(db, { table: 'products', storeId, ids, where: 'archived_at IS NULL' });
