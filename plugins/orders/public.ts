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
  customerSales,
  type CustomerFigure,
  productSales,
  salesByBucket,
  topCustomers,
  type Bucket,
  type Range,
  type SalesBucket,
} from './reports';

/** Orders discovery counts: the statuses that mean the goods were bought (as reports count them). */
const BOUGHT = "o.status IN ('paid', 'fulfilled', 'completed')";

/** The products a customer bought in counted orders (discovery's personalised recommendations). */
export async function productsBoughtBy(db: Db, storeId: string, customerId: string): Promise<string[]> {
  const rows = await db.query<{ product_id: string }>(
    `SELECT DISTINCT li.product_id FROM orders o JOIN order_line_items li ON li.order_id = o.id
     WHERE o.store_id = $1 AND lower(o.customer_id) = lower($2) AND ${BOUGHT}`,
    [storeId, customerId],
  );
  return rows.map((r) => r.product_id);
}

/**
 * Products bought together with any of `productIds`: for every other product, the number of
 * counted orders holding it and one of them (one query; discovery's co-purchase ranking).
 */
export async function coPurchaseCounts(db: Db, storeId: string, productIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!productIds.length) return out;
  const rows = await db.query<{ product_id: string; orders: number }>(
    `SELECT li.product_id, count(DISTINCT o.id)::int AS orders
     FROM orders o JOIN order_line_items li ON li.order_id = o.id
     WHERE o.store_id = $1 AND ${BOUGHT} AND NOT (li.product_id = ANY($2::uuid[]))
       AND EXISTS (SELECT 1 FROM order_line_items s WHERE s.order_id = o.id AND s.product_id = ANY($2::uuid[]))
     GROUP BY li.product_id`,
    [storeId, [...new Set(productIds.map((id) => id.toLowerCase()))]],
  );
  for (const r of rows) out.set(r.product_id, Number(r.orders));
  return out;
}

/**
 * Units sold per product and day of age (0 = the 24 hours before `now`) in counted orders created
 * within `days` days before `now` (discovery's trending).
 */
export async function unitsByAge(db: Db, storeId: string, now: Date, days: number) {
  const rows = await db.query<{ product_id: string; age: number; units: number }>(
    `SELECT li.product_id, floor(extract(epoch FROM ($2::timestamptz - o.created_at)) / 86400)::int AS age, sum(li.quantity)::int AS units
     FROM orders o JOIN order_line_items li ON li.order_id = o.id
     WHERE o.store_id = $1 AND ${BOUGHT} AND o.created_at > $2::timestamptz - make_interval(days => $3::int) AND o.created_at <= $2::timestamptz
     GROUP BY 1, 2`,
    [storeId, now, days],
  );
  return rows.map((r) => ({ product_id: r.product_id, age: Number(r.age), units: Number(r.units) }));
}
export { AddressInput } from './addresses';
