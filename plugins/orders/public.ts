/**
 * What other plugins may use of orders: the standard existence check, and the QR scans orders were
 * attributed to. A plugin that imports this file declares `requires: ['orders']`.
 */
import { existingIds, type Db } from '../../core/sdk';

/** Which of `ids` are orders of the store. */
export const ordersIn = (db: Db, storeId: string, ids: readonly string[]) => existingIds(db, { table: 'orders', storeId, ids });

/**
 * The QR scans orders were attributed to (`attribution.qr_scan_id`), among orders created since
 * `since`: an order follows its scan, so older orders cannot name a scan of the range.
 */
export async function attributedScanIds(db: Db, storeId: string, since: Date): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `SELECT DISTINCT attribution->>'qr_scan_id' AS id FROM orders
     WHERE store_id = $1 AND created_at >= $2 AND attribution IS NOT NULL AND attribution->>'qr_scan_id' IS NOT NULL`,
    [storeId, since],
  );
  return rows.map((r) => r.id);
}

/**
 * Whether this customer has a paid, fulfilled or completed order of the product (reviews'
 * verified_purchase). A refunded order still counts: the customer bought it.
 */
export async function hasBought(db: Db, storeId: string, customerId: string, productId: string): Promise<boolean> {
  const rows = await db.query(
    `SELECT 1 FROM orders o JOIN order_line_items li ON li.order_id = o.id
     WHERE o.store_id = $1 AND lower(o.customer_id) = lower($2) AND o.status IN ('paid', 'fulfilled', 'completed') AND li.product_id = $3 LIMIT 1`,
    [storeId, customerId, productId],
  );
  return rows.length > 0;
}

/** SQL over counted orders for reports (analytics): see ./reports.ts. */
export {
  cohorts,
  customerFigures,
  customerFigureSql,
  type CustomerFigure,
  productSales,
  salesByBucket,
  topCustomers,
  type Bucket,
  type Range,
  type SalesBucket,
} from './reports';
