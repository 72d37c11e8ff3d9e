/**
 * What other plugins may use of orders: the standard existence check. A plugin that imports
 * this file declares `requires: ['orders']`.
 */
import { existingIds, type Db } from '../../core/sdk';

/** Which of `ids` are orders of the store. */
export const ordersIn = (db: Db, storeId: string, ids: readonly string[]) => existingIds(db, { table: 'orders', storeId, ids });
