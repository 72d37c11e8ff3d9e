/**
 * What other plugins may use of reviews: the standard existence check. A plugin that imports
 * this file declares `requires: ['reviews']`.
 */
import { existingIds, type Db } from '../../core/sdk';

/** Which of `ids` are reviews of the store. */
export const reviewsIn = (db: Db, storeId: string, ids: readonly string[]) => existingIds(db, { table: 'reviews', storeId, ids });
