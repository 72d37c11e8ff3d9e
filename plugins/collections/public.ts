/**
 * What other plugins may use of collections: the standard existence check. A plugin that imports
 * this file declares `requires: ['collections']`.
 */
import { existingIds, type Db } from '../../core/sdk';

/** Which of `ids` are collections of the store. */
export const collectionsIn = (db: Db, storeId: string, ids: readonly string[]) => existingIds(db, { table: 'collections', storeId, ids });
