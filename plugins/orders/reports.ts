import type { Db } from '../../core/sdk';

/**
 * SQL over orders for reports (analytics reads these through ./public.ts). Counted orders are the
 * ones that became sales: paid, fulfilled or completed, in one currency, by creation date; refunds
 * count on their own date. Ranges are half-open instants [start, end); buckets are dates of the
 * given time zone (`week` starts on Monday, as date_trunc does). Amounts are minor units.
 *
 * analytics keeps daily rollups of these (plugins/analytics/README.md): its reactions recompute a
 * day with them, and its reports read them raw for today and for a store not yet backfilled.
 */
export const COUNTED = `status IN ('paid', 'fulfilled', 'completed')`;

export interface Range {
  start: Date;
  end: Date;
  tz: string;
  currency: string;
}
export type Bucket = 'day' | 'week' | 'month';

// Before discounts and before tax: a store whose prices include tax has it inside the subtotal.
const GROSS = `o.subtotal_minor - CASE WHEN o.prices_include_tax THEN o.tax_total_minor ELSE 0 END`;

export interface SalesBucket {
  bucket: string;
  orders: number;
  gross: number;
  discounts: number;
  tax: number;
  refunds: number;
}

/** Per bucket from the first to the last date of the range (every bucket present, zeros included). */
export async function salesByBucket(db: Db, storeId: string, r: Range, by: Bucket): Promise<SalesBucket[]> {
  const rows = await db.query(
    `WITH b AS (
       SELECT generate_series(date_trunc('${by}', ($2::timestamptz AT TIME ZONE $4)), ($3::timestamptz - interval '1 microsecond') AT TIME ZONE $4, interval '1 ${by}')::date AS bucket
     ), s AS (
       SELECT date_trunc('${by}', o.created_at AT TIME ZONE $4)::date AS bucket, count(*)::bigint AS orders,
              sum(${GROSS})::bigint AS gross, sum(o.discount_total_minor)::bigint AS discounts, sum(o.tax_total_minor)::bigint AS tax
       FROM orders o
       WHERE o.store_id = $1 AND o.${COUNTED} AND o.created_at >= $2 AND o.created_at < $3 AND o.currency = $5
       GROUP BY 1
     ), f AS (
       SELECT date_trunc('${by}', f.created_at AT TIME ZONE $4)::date AS bucket, sum(f.amount_minor)::bigint AS refunds
       FROM order_refunds f JOIN orders o ON o.id = f.order_id
       WHERE f.store_id = $1 AND f.created_at >= $2 AND f.created_at < $3 AND f.currency = $5 AND o.status <> 'cancelled'
       GROUP BY 1
     )
     SELECT to_char(b.bucket, 'YYYY-MM-DD') AS bucket, coalesce(s.orders, 0) AS orders, coalesce(s.gross, 0) AS gross,
            coalesce(s.discounts, 0) AS discounts, coalesce(s.tax, 0) AS tax, coalesce(f.refunds, 0) AS refunds
     FROM b LEFT JOIN s ON s.bucket = b.bucket LEFT JOIN f ON f.bucket = b.bucket ORDER BY b.bucket`,
    [storeId, r.start, r.end, r.tz, r.currency],
  );
  return rows.map((x) => ({
    bucket: x.bucket,
    orders: Number(x.orders),
    gross: Number(x.gross),
    discounts: Number(x.discounts),
    tax: Number(x.tax),
    refunds: Number(x.refunds),
  }));
}

/** Units and net sales (after discounts, before tax) per product over counted orders of the range. */
export async function productSales(db: Db, storeId: string, r: Omit<Range, 'tz'>, limit?: number) {
  const rows = await db.query(
    `SELECT l.product_id, max(l.name) AS name, sum(l.quantity)::bigint AS units,
            sum(l.total_minor - l.discount_minor - CASE WHEN o.prices_include_tax THEN l.tax_minor ELSE 0 END)::bigint AS net
     FROM orders o JOIN order_line_items l ON l.order_id = o.id
     WHERE o.store_id = $1 AND o.${COUNTED} AND o.created_at >= $2 AND o.created_at < $3 AND o.currency = $4
     GROUP BY l.product_id ORDER BY units DESC, net DESC, l.product_id ${limit ? 'LIMIT $5' : ''}`,
    limit ? [storeId, r.start, r.end, r.currency, limit] : [storeId, r.start, r.end, r.currency],
  );
  return rows.map((x) => ({ product_id: x.product_id as string, name: x.name as string, units: Number(x.units), net: Number(x.net) }));
}

export interface CustomerFigures {
  ordered: number;
  new_customers: number;
  returning_customers: number;
  with_orders: number;
  lifetime_total: number;
}

/**
 * Customers of counted orders up to `r.end`: who first ordered in the range, who ordered in it and
 * before it, and their lifetime net sales (gross - discounts - refunds of all their orders).
 */
export async function customerFigures(db: Db, storeId: string, r: Range): Promise<CustomerFigures> {
  const [x] = await db.query(
    `WITH c AS (
       SELECT o.customer_id, min(o.created_at) AS first_at, bool_or(o.created_at >= $2) AS in_range,
              sum(${GROSS} - o.discount_total_minor - o.amount_refunded_minor)::bigint AS ltv
       FROM orders o WHERE o.store_id = $1 AND o.${COUNTED} AND o.created_at < $3 AND o.currency = $4 AND o.customer_id IS NOT NULL
       GROUP BY o.customer_id
     )
     SELECT count(*) FILTER (WHERE in_range) AS ordered, count(*) FILTER (WHERE first_at >= $2) AS new_customers,
            count(*) FILTER (WHERE in_range AND first_at < $2) AS returning_customers, count(*) AS with_orders,
            coalesce(sum(ltv), 0)::bigint AS lifetime_total
     FROM c`,
    [storeId, r.start, r.end, r.currency],
  );
  return {
    ordered: Number(x.ordered),
    new_customers: Number(x.new_customers),
    returning_customers: Number(x.returning_customers),
    with_orders: Number(x.with_orders),
    lifetime_total: Number(x.lifetime_total),
  };
}

/** The customers with the highest lifetime net sales (orders up to `r.end`). */
export async function topCustomers(db: Db, storeId: string, r: Range, limit: number) {
  const rows = await db.query(
    `SELECT o.customer_id, count(*)::bigint AS orders, sum(${GROSS} - o.discount_total_minor - o.amount_refunded_minor)::bigint AS ltv
     FROM orders o WHERE o.store_id = $1 AND o.${COUNTED} AND o.created_at < $2 AND o.currency = $3 AND o.customer_id IS NOT NULL
     GROUP BY o.customer_id ORDER BY ltv DESC, o.customer_id LIMIT $4`,
    [storeId, r.end, r.currency, limit],
  );
  return rows.map((x) => ({ customer_id: x.customer_id as string, orders: Number(x.orders), ltv: Number(x.ltv) }));
}

/**
 * Cohorts by month of first counted order, for first orders in the range: how many customers, and
 * how many of them ordered again in each later month up to the range's end (index 0 = next month).
 */
export async function cohorts(db: Db, storeId: string, r: Range) {
  const rows = await db.query(
    `WITH o AS (
       SELECT customer_id, date_trunc('month', created_at AT TIME ZONE $4)::date AS m
       FROM orders WHERE store_id = $1 AND ${COUNTED} AND created_at < $3 AND currency = $5 AND customer_id IS NOT NULL
     ), f AS (SELECT customer_id, min(m) AS first FROM o GROUP BY customer_id)
     SELECT to_char(f.first, 'YYYY-MM') AS cohort, ((extract(year FROM o.m) - extract(year FROM f.first)) * 12 + extract(month FROM o.m) - extract(month FROM f.first))::int AS k,
            count(DISTINCT o.customer_id)::bigint AS n
     FROM f JOIN o ON o.customer_id = f.customer_id
     WHERE f.first >= date_trunc('month', $2::timestamptz AT TIME ZONE $4)::date
     GROUP BY 1, 2 ORDER BY 1, 2`,
    [storeId, r.start, r.end, r.tz, r.currency],
  );
  return rows.map((x) => ({ cohort: x.cohort as string, k: Number(x.k), n: Number(x.n) }));
}

/**
 * Per customer, counted orders created in the range: how many and their lifetime net sales (gross
 * - discounts - everything refunded on them), for analytics' daily rollups (the pieces
 * customerFigures, topCustomers and cohorts sum).
 */
export async function customerSales(db: Db, storeId: string, r: Omit<Range, 'tz'>) {
  const rows = await db.query(
    `SELECT o.customer_id, count(*)::bigint AS orders, sum(${GROSS} - o.discount_total_minor - o.amount_refunded_minor)::bigint AS ltv
     FROM orders o WHERE o.store_id = $1 AND o.${COUNTED} AND o.created_at >= $2 AND o.created_at < $3 AND o.currency = $4 AND o.customer_id IS NOT NULL
     GROUP BY o.customer_id`,
    [storeId, r.start, r.end, r.currency],
  );
  return rows.map((x) => ({ customer_id: x.customer_id as string, orders: Number(x.orders), ltv: Number(x.ltv) }));
}

export type CustomerFigure = 'total_spent' | 'orders_count' | 'average_order_value' | 'last_order_at';

/**
 * One figure of a customer's counted orders as a scalar SQL expression, for plugins that select
 * customers by it in their own statement (segments). `customerId` is an SQL expression naming the
 * customer's uuid; `store`, `currency` and `since` (null: all time) are placeholders of the caller's
 * statement; `until` (inclusive) closes the range (campaigns' conversion windows). Money figures are minor units of `currency` (net: gross - discounts - refunds); a
 * customer without orders has 0 (last_order_at: null). Served by orders_store_customer.
 */
export function customerFigureSql(
  figure: CustomerFigure,
  o: { customerId: string; store: string; currency: string; since: string | null; until?: string | null },
) {
  const net = `${GROSS} - o.discount_total_minor - o.amount_refunded_minor`;
  const value = {
    total_spent: `coalesce(sum(${net}), 0)`,
    orders_count: 'count(*)',
    average_order_value: `coalesce(avg(${GROSS} - o.discount_total_minor), 0)`,
    last_order_at: 'max(o.created_at)',
  }[figure];
  return `(SELECT ${value} FROM orders o WHERE o.store_id = ${o.store} AND lower(o.customer_id) = ${o.customerId}::text AND o.${COUNTED}
    AND o.currency = ${o.currency}${o.since ? ` AND o.created_at >= ${o.since}` : ''}${o.until ? ` AND o.created_at <= ${o.until}` : ''})`;
}
