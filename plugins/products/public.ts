/**
 * What other plugins may use of products: the product as the API shows it, so a plugin listing
 * products (collections' list_collection_products) answers the one shape without copying it, and
 * the existence check every resource-owning plugin offers. A plugin that imports this file
 * declares `requires: ['products']`.
 */
import { errors, existingIds, rowOr404, type Db, type Row } from '../../core/sdk';
import { PRODUCTS, productsOut, toProduct } from './store';
import { VARIANTS } from './variants';
import { productStockSql } from '../inventory/public';

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

/** A line to price: what orders, coupons and tax are given. */
export interface LineRequest {
  product_id: string;
  variant_id?: string;
  quantity: number;
}

/** A line priced at the catalog's current price, with what discounts and tax need to know of it. */
export interface PricedLine {
  product_id: string;
  variant_id: string | null;
  quantity: number;
  unit_price_minor: number;
  amount_minor: number;
  currency: string;
  tax_class: string;
  /** For a checkout's lines: "Tee (M / red)" for a variant, its SKU and weight (a variant's, else its product's). */
  title: string;
  sku: string | null;
  weight_grams: number | null;
}

/**
 * Prices lines as an order would (coupons' validate, tax's calculate_tax): every product a live,
 * active one of the store (404 / 400 naming `line_items.<n>.product_id`), a variable product's
 * line naming one of its active variants (`line_items.<n>.variant_id`), one currency for all.
 * Two queries whatever the number of lines; nothing is locked or taken.
 */
export async function pricedLines(db: Db, storeId: string, lines: readonly LineRequest[], param = 'line_items'): Promise<PricedLine[]> {
  const ids = [...new Set(lines.map((l) => l.product_id.toLowerCase()))];
  const products = new Map(
    (await db.query('SELECT * FROM products WHERE store_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL', [storeId, ids])).map((r) => [
      r.id,
      r,
    ]),
  );
  const variantIds = [...new Set(lines.flatMap((l) => (l.variant_id ? [l.variant_id.toLowerCase()] : [])))];
  const variants = new Map(
    variantIds.length
      ? (
          await db.query('SELECT * FROM product_variants WHERE store_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL', [storeId, variantIds])
        ).map((r) => [r.id, r])
      : [],
  );
  const priced = lines.map((l, n) => {
    const p = products.get(l.product_id.toLowerCase());
    if (!p) throw errors.notFound(`product: '${l.product_id}'`, `${param}.${n}.product_id`);
    if (p.status !== 'active') throw errors.validation(`Product '${p.id}' is not active and cannot be ordered.`, `${param}.${n}.product_id`);
    let unit = Number(p.price_minor);
    let variantId: string | null = null;
    let title = p.name as string;
    let sku: string | null = p.sku;
    let weight: number | null = p.weight_grams ?? null;
    const vParam = `${param}.${n}.variant_id`;
    if (p.type === 'variable') {
      if (!l.variant_id) throw errors.validation(`Missing ${vParam}: product '${p.id}' has variants; say which one.`, vParam);
      const v = variants.get(l.variant_id.toLowerCase());
      if (!v || v.product_id !== p.id) throw errors.notFound(`variant: '${l.variant_id}'`, vParam);
      if (v.status !== 'active') throw errors.validation(`Variant '${v.id}' is not active and cannot be ordered.`, vParam);
      unit = Number(v.price_minor);
      variantId = v.id;
      title = `${p.name} (${Object.values(v.options ?? {}).join(' / ')})`;
      sku = v.sku;
      weight = v.weight_grams ?? weight;
    } else if (l.variant_id !== undefined) throw errors.validation(`Invalid ${vParam}: product '${p.id}' has no variants.`, vParam);
    return {
      product_id: p.id,
      variant_id: variantId,
      quantity: l.quantity,
      unit_price_minor: unit,
      amount_minor: unit * l.quantity,
      currency: p.currency,
      tax_class: p.tax_class ?? 'standard',
      title,
      sku,
      weight_grams: weight == null ? null : Number(weight),
    };
  });
  if (new Set(priced.map((l) => l.currency)).size > 1) throw errors.validation('All line items must share one currency.', param);
  return priced;
}

/** The product each of `variantIds` belongs to, for its live variants of live products (one query). */
export async function variantProducts(db: Db, storeId: string, variantIds: readonly string[]) {
  const out = new Map<string, string>();
  if (!variantIds.length) return out;
  const rows = await db.query<{ id: string; product_id: string }>(
    `SELECT v.id, v.product_id FROM product_variants v JOIN products p ON p.id = v.product_id AND p.archived_at IS NULL
     WHERE v.store_id = $1 AND v.id = ANY($2::uuid[]) AND v.archived_at IS NULL`,
    [storeId, [...new Set(variantIds)]],
  );
  for (const r of rows) out.set(r.id, r.product_id);
  return out;
}

/** What each SKU names among the store's live products and variants (SKUs are unique per store; one query). */
export async function skuOwners(db: Db, storeId: string, skus: readonly string[]) {
  const out = new Map<string, { product_id: string; variant_id: string | null }>();
  if (!skus.length) return out;
  const rows = await db.query<{ sku: string; product_id: string; variant_id: string | null }>(
    `SELECT s.sku, coalesce(p.id, v.product_id) AS product_id, v.id AS variant_id FROM product_skus s
     LEFT JOIN products p ON p.id = s.owner_id AND p.store_id = s.store_id AND p.archived_at IS NULL
     LEFT JOIN product_variants v ON v.id = s.owner_id AND v.store_id = s.store_id AND v.archived_at IS NULL
     WHERE s.store_id = $1 AND s.sku = ANY($2::text[]) AND (p.id IS NOT NULL OR v.id IS NOT NULL)`,
    [storeId, [...new Set(skus)]],
  );
  for (const r of rows) out.set(r.sku, { product_id: r.product_id, variant_id: r.variant_id });
  return out;
}

/** Live (not archived) products with their retail price and units on hand, for stock reports (analytics). */
export async function stockAndPrices(db: Db, storeId: string) {
  const rows = await db.query(
    `SELECT p.id, p.name, p.price_minor, p.currency, ${productStockSql('p.id')} AS on_hand
     FROM products p WHERE p.store_id = $1 AND p.archived_at IS NULL ORDER BY p.seq`,
    [storeId],
  );
  return rows.map((r) => ({
    id: r.id as string,
    name: r.name as string,
    price_minor: Number(r.price_minor),
    currency: r.currency as string,
    on_hand: Number(r.on_hand),
  }));
}

/**
 * The store's products a shopper may be offered (discovery): active, not archived nor deleted,
 * with units on hand unless `includeOutOfStock`; only those of `ids` when given. As the API shows
 * them (without variants), by id; one query.
 */
export async function offerableProducts(db: Db, storeId: string, opts: { ids?: readonly string[]; includeOutOfStock?: boolean } = {}) {
  const found = new Map<string, ReturnType<typeof toProduct>>();
  if (opts.ids && !opts.ids.length) return found;
  const rows = await db.query(
    `SELECT * FROM ${PRODUCTS} WHERE store_id = $1 AND status = 'active' AND archived_at IS NULL
     ${opts.includeOutOfStock ? '' : 'AND stock_quantity > 0'} ${opts.ids ? 'AND id = ANY($2::uuid[])' : ''} ORDER BY seq`,
    opts.ids ? [storeId, [...new Set(opts.ids)]] : [storeId],
  );
  for (const r of rows) found.set(r.id, toProduct(r));
  return found;
}

/**
 * The store's sellable catalog as the API shows it, with variants: active, live products in
 * creation order (checkout's product feed export). Two queries.
 */
export async function sellableProducts(db: Db, storeId: string) {
  const rows = await db.query(`SELECT * FROM ${PRODUCTS} WHERE store_id = $1 AND status = 'active' AND archived_at IS NULL ORDER BY seq`, [storeId]);
  return productsOut(db, storeId, rows);
}
