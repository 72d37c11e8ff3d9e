import { lockKey, type Db } from '../../core/sdk';

/**
 * What a product's stock is, for the plugins that show it (products' reads, through ./public.ts).
 * Totals are not stored anywhere: a total is the sum of its levels, read in the reader's own
 * statement (so a product read stays one round trip) from the levels' indexes (by product, by
 * variant). `id` is an SQL expression of the reader's statement naming the product or variant.
 */
export const productStockSql = (id: string) => `(SELECT coalesce(sum(quantity), 0)::int FROM inventory_levels WHERE product_id = ${id})`;
export const variantStockSql = (id: string) => `(SELECT coalesce(sum(quantity), 0)::int FROM inventory_levels WHERE variant_id = ${id})`;

/** A product's total units (its own, or its variants' added up). */
export async function totalOf(tx: Db, productId: string): Promise<number> {
  const [row] = await tx.query<{ total: number }>(`SELECT ${productStockSql('$1')} AS total`, [productId]);
  return Number(row.total);
}

/**
 * The ledger's lock on one product's stock, held until the transaction ends: every movement of a
 * product's units takes it first (orders take theirs in product id order), so movements of one
 * product queue up and never deadlock. A caller that also locks the product's row (products' own
 * changes, orders) locks the row first, then this.
 */
export const lockStock = (tx: Db, storeId: string, productId: string) => lockKey(tx, storeId, `inventory.stock:${productId}`);

/**
 * A deleted (archived) product's stock is retired: nothing sells or moves it, so a location's
 * checks do not count it (locations' delete moves it to the default location). Products tells
 * the ledger when it archives one.
 */
export async function retire(tx: Db, storeId: string, productId: string, now: Date) {
  await tx.query('INSERT INTO inventory_retired (store_id, product_id, retired_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
    storeId,
    productId,
    now,
  ]);
}
