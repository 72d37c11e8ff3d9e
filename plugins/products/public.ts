/**
 * What other plugins may use of products: the product as the API shows it, so a plugin listing
 * products (collections' list_collection_products) answers the one shape without copying it, and
 * the existence check every resource-owning plugin offers. A plugin that imports this file
 * declares `requires: ['products']`.
 */
import { errors, existingIds, rowOr404, type Db, type Row } from '../../core/sdk';
import { PRODUCTS, toProduct } from './store';
import { VARIANTS } from './variants';

export { Product } from './schemas';

/** Which of `ids` are live (not deleted) products of the store. */
export const productsIn = (db: Db, storeId: string, ids: readonly string[]) =>
  existingIds(db, { table: 'products', storeId, ids, where: 'archived_at IS NULL' });

/** The live products among `ids`, as the API shows them (without variants), by id; one query. */
export async function liveProducts(db: Db, storeId: string, ids: readonly string[]) {
  const found = new Map<string, ReturnType<typeof toProduct>>();
  if (!ids.length) return found;
  const rows = await db.query(`SELECT * FROM ${PRODUCTS} WHERE store_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL`, [
    storeId,
    [...new Set(ids)],
  ]);
  for (const r of rows) found.set(r.id, toProduct(r));
  return found;
}

/**
 * A live product's row, locked FOR UPDATE until the transaction ends, or 404 naming `param`: for
 * a plugin selling it (orders), which locks each product it takes stock of in id order, before
 * the stock ledger's own lock.
 */
export const lockedProduct = (tx: Db, storeId: string, id: string, param = 'product_id') =>
  rowOr404(tx, { table: 'products', storeId, id, noun: 'product', param, where: 'archived_at IS NULL', lock: 'FOR UPDATE' });

/**
 * The variant a line of `product` is for: one of its live variants when it is a variable product
 * (then variant_id is required, 400 naming `param`; another product's variant is 404), else none
 * (a variant_id is then 400: it has none). Returns the variant's row, or null for the product itself.
 */
export async function variantFor(tx: Db, storeId: string, product: Row, variantId: string | undefined, param = 'variant_id') {
  if (product.type !== 'variable') {
    if (variantId !== undefined) throw errors.validation(`Invalid ${param}: product '${product.id}' has no variants.`, param);
    return null;
  }
  if (variantId === undefined) throw errors.validation(`Missing ${param}: product '${product.id}' has variants; say which one.`, param);
  const [variant] = await tx.query(`SELECT * FROM ${VARIANTS} WHERE store_id = $1 AND product_id = $2 AND id = $3 AND archived_at IS NULL`, [
    storeId,
    product.id,
    variantId,
  ]);
  if (!variant) throw errors.notFound(`variant: '${variantId}'`, param);
  return variant as Row;
}

/**
 * Whether units given back (an order cancelled or refunded with restock) still have an item to
 * return to: the product exists (deleted ones too: their stock is kept, retired), locked FOR
 * UPDATE as orders lock products, and the variant, if any, is not deleted (its stock left with it).
 */
export async function canTakeBack(tx: Db, storeId: string, productId: string, variantId?: string | null): Promise<boolean> {
  const [product] = await tx.query('SELECT id FROM products WHERE store_id = $1 AND id = $2 FOR UPDATE', [storeId, productId]);
  if (!product) return false;
  if (!variantId) return true;
  const [live] = await tx.query('SELECT 1 FROM product_variants WHERE id = $1 AND archived_at IS NULL', [variantId]);
  return Boolean(live);
}
