import type { Db } from '../../core/sdk';
import { putBack, type Allocation } from './stock';

/**
 * Units an order gives back (a cancellation, a refund with restock) return to the locations they
 * were taken from, if there is still stock to return to: the product row is locked first (the
 * ledger's order: products in id order, then locations), and a product or variant deleted since
 * gets nothing back (its units stay with the order's books). True when they went back.
 * Here because the ledger owns the question; it reads products' rows (a known crossing,
 * test/contract/imports.test.ts).
 */
export async function returnUnits(tx: Db, storeId: string, productId: string, allocations: Allocation[], now: Date, variantId?: string | null) {
  const [product] = await tx.query('SELECT id FROM products WHERE store_id = $1 AND id = $2 FOR UPDATE', [storeId, productId]);
  if (!product) return false;
  if (variantId) {
    const [live] = await tx.query('SELECT 1 FROM product_variants WHERE id = $1 AND archived_at IS NULL', [variantId]);
    if (!live) return false;
  }
  await putBack(tx, storeId, productId, allocations, now, variantId ?? undefined);
  return true;
}
