import type { Db } from '../../core/sdk';

/** What other plugins may read of orders (they list `orders` in `requires`). */

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
