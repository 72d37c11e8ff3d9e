import type { Db } from '../../core/sdk';
import { putBack, type Allocation } from '../inventory/public';
import { canTakeBack } from '../products/public';

/**
 * Units an order gives back (a cancellation, a refund with restock) return to the locations they
 * were taken from, if there is still an item to return to: products says whether the product (and
 * variant) still exists, locking the product's row first (products in id order, as orders take
 * them), then the ledger puts the units back under its stock lock. A product or variant deleted
 * since gets nothing back (its units stay with the order's books). True when they went back.
 */
export async function returnUnits(tx: Db, storeId: string, productId: string, allocations: Allocation[], now: Date, variantId?: string | null) {
  if (!(await canTakeBack(tx, storeId, productId, variantId))) return false;
  await putBack(tx, storeId, productId, allocations, now, variantId ?? undefined);
  return true;
}
