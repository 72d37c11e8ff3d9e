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
