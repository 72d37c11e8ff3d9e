/**
 * What other plugins may use of locations: the standard existence check. A plugin that imports
 * this file declares `requires: ['locations']`.
 */
import { existingIds, type Db } from '../../core/sdk';

/** Which of `ids` are locations (deleted ones are not) of the store. */
export const locationsIn = (db: Db, storeId: string, ids: readonly string[]) =>
  existingIds(db, { table: 'locations', storeId, ids, where: 'deleted_at IS NULL' });
