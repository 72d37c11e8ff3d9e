import type { Static } from '@sinclair/typebox';
import {
  containing,
  checkCurrency,
  checkMetadata,
  dateRangeFilters,
  errors,
  fromMinor,
  jsonParam,
  listPage,
  mergeMetadata,
  metadataFilter,
  rowOr404,
  setClause,
  sqlState,
  stamps,
  toMinor,
  unique,
  type Ctx,
  type Db,
  type Row,
} from '../../core/sdk';
import { storeSettings } from '../store/public';
import { defaultLocation, firstStockCtes, productStockSql, retire, setTotal } from '../inventory/public';
import type { Product, ProductCreate, ProductQuery, ProductUpdate } from './schemas';
import { searchPage } from './search';
import { checkOptions, createVariants, duplicateSku, toVariant, variantRowsOf } from './variants';

/**
 * The products table with each row's stock_quantity, the inventory ledger's total (its public
 * read, in the same statement: a product read stays one round trip). Stores read products
 * through this wherever the API shows one; PostgreSQL folds it into the statement around it.
 */
export const PRODUCTS = `(SELECT *, ${productStockSql('products.id')} AS stock_quantity FROM products) products`;

/** `variants`: the product's live variant rows (a variable product's; none for the others). */
export function toProduct(r: Row, variants: Row[] = []): Static<typeof Product> {
  return {
    object: 'product',
    id: r.id,
    name: r.name,
    description: r.description,
    sku: r.sku,
    type: r.type,
    status: r.status,
    pricing_data: {
      retail: fromMinor(r.price_minor, r.currency),
      compare_at: r.compare_at_minor == null ? null : fromMinor(r.compare_at_minor, r.currency),
      currency: r.currency,
    },
    stock_quantity: Number(r.stock_quantity),
    stock_status: Number(r.stock_quantity) > 0 ? 'in_stock' : 'out_of_stock',
    metadata: r.metadata ?? {},
    tax_class: r.tax_class ?? null,
    weight_grams: r.weight_grams ?? null,
    options: r.options ?? [],
    variants: variants.map((v) => toVariant(v, r.currency)),
    ...stamps(r),
  };
}

/** Products with their variants, fetched for the whole list in one query. */
export async function productsOut(db: Db, storeId: string, rows: Row[]) {
  const variants = await variantRowsOf(
    db,
    storeId,
    rows.filter((r) => r.type === 'variable').map((r) => r.id),
  );
  return rows.map((r) => toProduct(r, variants.get(r.id)));
}

/** One product; only a variable product has variants to fetch. */
export const productOut = async (db: Db, storeId: string, row: Row) =>
  row.type === 'variable' ? (await productsOut(db, storeId, [row]))[0] : toProduct(row);

/** What only a variable product has (options, variants) and what it does not (its own stock). */
function checkShape(input: Static<typeof ProductCreate>) {
  if (input.type === 'variable') {
    if (!input.options)
      throw errors.validation(
        'Missing options: a variable product needs at least one option, e.g. [{"name": "size", "values": ["S", "M"]}].',
        'options',
      );
    if (input.stock_quantity !== undefined)
      throw errors.validation(
        "Invalid stock_quantity: a variable product's stock is its variants'; give each variant its stock_quantity.",
        'stock_quantity',
      );
    checkOptions(input.options);
  } else {
    if (input.options !== undefined) throw errors.validation('Invalid options: only a product of type variable has options.', 'options');
    if (input.variants !== undefined) throw errors.validation('Invalid variants: only a product of type variable has variants.', 'variants');
  }
}

/** Stores whose default location this process saw committed: their creates need no first statement. */
const located = new Set<string>();

export async function createProduct(ctx: Ctx, input: Static<typeof ProductCreate>, retried = false): Promise<ReturnType<typeof toProduct>> {
  checkShape(input);
  const metadata = input.metadata ?? {};
  checkMetadata(metadata);
  if (!located.has(ctx.store.id)) {
    // A store's first products, made at once, race to create its default location. In a
    // transaction (the create writes its event in one) a statement that lost that race aborts
    // it, so the location is made, or waited for, in a statement of its own first; the insert
    // after it then sees it. Remembered once committed.
    await defaultLocation(ctx.db, ctx.store.id, ctx.clock.now());
    const storeId = ctx.store.id;
    ctx.afterCommit(() => void located.add(storeId));
  }
  if (input.type === 'variable')
    // The product, its variants and their stock: several statements, so one transaction.
    return ctx.db.transaction(async (tx) => {
      const row = await insertProduct({ ...ctx, db: tx }, input, metadata);
      await createVariants(tx, { ...ctx, db: tx }, row, structuredClone(input.options!), input.variants);
      const [fresh] = await tx.query(`SELECT * FROM ${PRODUCTS} WHERE id = $1`, [row.id]);
      const product = await productOut(tx, ctx.store.id, fresh);
      ctx.emit('product.created', product);
      return product;
    });
  try {
    const product = toProduct(await insertProduct(ctx, input, metadata));
    ctx.emit('product.created', product);
    return product;
  } catch (err) {
    // A concurrent first product made the default location in the same instant: this statement's
    // insert of it did nothing and its snapshot cannot see the other's row, so the level had no
    // location (not-null violation) and nothing was written. Once more, it sees the location.
    if (sqlState(err) === '23502' && !retried) return createProduct(ctx, input, true);
    throw err;
  }
}

// The stock part of the create statement is the ledger's SQL (inventory owns its tables).
const FIRST_STOCK = firstStockCtes({ storeId: '$1', quantity: '$10', now: '$11' });

async function insertProduct(ctx: Ctx, input: Static<typeof ProductCreate>, metadata: Record<string, string>): Promise<Row> {
  const p = input.pricing_data;
  // Without one, the store's currency setting (one indexed read, only then).
  const currency = p?.currency ? checkCurrency(p.currency, 'pricing_data.currency') : (await storeSettings(ctx.db, ctx.store.id)).currency;
  const now = ctx.clock.now();
  // One statement, so PostgreSQL applies it atomically without a transaction of ours (the
  // action is declared `atomic`): the product, and its first stock (inventory's firstStockCtes).
  // The SKU claim (migration 004) is a trigger of this insert.
  const [created] = await unique(
    ctx.db.query(
      `WITH p AS (
       INSERT INTO products (id, store_id, name, description, sku, type, status, price_minor, compare_at_minor, currency, metadata, options, created_at, updated_at, tax_class, weight_grams)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $12::text::jsonb, $13::text::jsonb, $11, $11, $14, $15) RETURNING *
     ), ${FIRST_STOCK}
     SELECT *, $10::int AS stock_quantity FROM p`,
      [
        ctx.store.id,
        input.name,
        input.description ?? null,
        input.sku ?? null,
        input.type ?? 'simple',
        input.status ?? 'active',
        p ? toMinor(p.retail, currency, 'pricing_data.retail') : 0,
        p?.compare_at == null ? null : toMinor(p.compare_at, currency, 'pricing_data.compare_at'),
        currency,
        input.stock_quantity ?? 0,
        now,
        jsonParam(metadata),
        jsonParam(input.options ?? []),
        input.tax_class ?? null,
        input.weight_grams ?? null,
      ],
    ),
    { products_store_sku: () => duplicateSku(input.sku), product_skus_pkey: () => duplicateSku(input.sku) },
  );
  return created;
}

/** Archived (deleted) products are gone from every lookup. */
export const getProductRow = (ctx: Ctx, id: string, forUpdate = false) =>
  rowOr404(ctx.db, {
    table: PRODUCTS,
    storeId: ctx.store.id,
    id,
    noun: 'product',
    where: 'archived_at IS NULL',
    lock: forUpdate ? 'FOR UPDATE' : undefined,
  });

/**
 * A collection's product ids. Collections owns membership (it requires products, so this plugin
 * cannot import it): its get_collection, run as this plugin (`calls`), answers them; another
 * store's or an unknown collection is 404 naming collection_id. Typed here, not inferred: the
 * answer's type goes through CallableActions, which holds list_products' own type.
 */
async function collectionMembers(ctx: Ctx, id: string): Promise<string[]> {
  return (await ctx.call('collections.get_collection', { id }, { notFoundParam: 'collection_id' })).product_ids;
}

/**
 * Each filter is a condition the store's indexes serve (migration 003): sku matches the product or
 * one of its live variants through the SKU indexes of both tables. q has its own query shape
 * (search.ts), so a page never sorts every match of a common term.
 */
export async function listProducts(ctx: Ctx, input: Static<typeof ProductQuery>) {
  const where = [input.status === 'archived' ? 'archived_at IS NOT NULL' : 'archived_at IS NULL'];
  const members = input.collection_id ? await collectionMembers(ctx, input.collection_id) : undefined;
  const filters = {
    'status = $': input.status === 'archived' ? undefined : input.status,
    'type = $': input.type,
    [`id IN (SELECT id FROM products WHERE store_id = $1 AND sku = $
           UNION SELECT product_id FROM product_variants WHERE store_id = $1 AND archived_at IS NULL AND sku = $)`]: input.sku,
    'id = ANY($::uuid[])': members,
    ...metadataFilter(input.metadata),
    ...dateRangeFilters('created_at', input.created),
  };
  const toData = (rows: Row[]) => productsOut(ctx.db, ctx.store.id, rows);
  if (input.q !== undefined) return searchPage(ctx, { path: '/products', input, where, filters, pattern: containing(input.q) }, toData);
  return listPage(ctx, { table: PRODUCTS, path: '/products', input, where, filters }, toData);
}

/**
 * A stored amount the update keeps, in the product's (maybe new) currency: the same decimal amount,
 * which must fit the new currency's minor unit (19.99 USD cannot become JPY without a new price).
 */
function inCurrency(cur: Row, column: 'price_minor' | 'compare_at_minor', currency: string): number | null {
  if (cur[column] == null || currency === cur.currency) return cur[column];
  const field = column === 'price_minor' ? 'retail' : 'compare_at';
  try {
    return toMinor(fromMinor(cur[column], cur.currency), currency, 'pricing_data.currency');
  } catch {
    throw errors.validation(
      `Invalid pricing_data.currency: the current ${field} ${fromMinor(cur[column], cur.currency)} does not fit ${currency}; send a new ${field} with the currency.`,
      'pricing_data.currency',
    );
  }
}

// The new total, after setTotal moved it (a later statement of the transaction sees its levels).
const STOCK = `${productStockSql('products.id')} AS stock_quantity`;

export async function updateProduct(ctx: Ctx, input: Static<typeof ProductUpdate>) {
  return ctx.db.transaction(async (tx) => {
    const cur = await getProductRow({ ...ctx, db: tx }, input.id, true);
    if (input.type !== undefined && input.type !== cur.type && (input.type === 'variable' || cur.type === 'variable'))
      throw errors.validation('Invalid type: a product cannot become or stop being variable; create a new product instead.', 'type');
    if (cur.type === 'variable' && input.stock_quantity !== undefined)
      throw errors.validation(
        "Invalid stock_quantity: a variable product's stock is its variants'; change a variant's stock_quantity.",
        'stock_quantity',
      );
    const metadata = input.metadata === undefined ? undefined : mergeMetadata(cur.metadata, input.metadata);
    const p = input.pricing_data ?? {};
    const currency = p.currency !== undefined ? checkCurrency(p.currency, 'pricing_data.currency') : cur.currency;
    const set = setClause(
      {
        name: input.name,
        description: input.description,
        sku: input.sku,
        type: input.type,
        status: input.status,
        price_minor: p.retail !== undefined ? toMinor(p.retail, currency, 'pricing_data.retail') : inCurrency(cur, 'price_minor', currency),
        compare_at_minor:
          p.compare_at === undefined
            ? inCurrency(cur, 'compare_at_minor', currency)
            : p.compare_at === null
              ? null
              : toMinor(p.compare_at, currency, 'pricing_data.compare_at'),
        currency: p.currency === undefined ? undefined : currency,
        metadata,
        tax_class: input.tax_class,
        weight_grams: input.weight_grams,
        updated_at: ctx.clock.now(),
      },
      { json: ['metadata'], after: 2 },
    );
    if (input.stock_quantity !== undefined) await setTotal(tx, ctx.store.id, input.id, input.stock_quantity, ctx.clock.now());
    const [updated] = await unique(
      tx.query(`UPDATE products SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *, ${STOCK}`, [ctx.store.id, input.id, ...set.params]),
      { products_store_sku: () => duplicateSku(input.sku ?? cur.sku), product_skus_pkey: () => duplicateSku(input.sku ?? cur.sku) },
    );
    const product = await productOut(tx, ctx.store.id, updated);
    ctx.emit('product.updated', product);
    return product;
  });
}

/** Deleting archives: the product leaves lists and lookups, but orders keep referring to it. */
export async function archiveProduct(ctx: Ctx, id: string) {
  const now = ctx.clock.now();
  const rows = await ctx.db.query(
    `UPDATE products SET status = 'archived', archived_at = $3, updated_at = $3
     WHERE store_id = $1 AND id = $2 AND archived_at IS NULL RETURNING id`,
    [ctx.store.id, id, now],
  );
  if (!rows.length) throw errors.notFound(`product: '${id}'`, 'id');
  // Its stock is retired (locations no longer count it as held).
  await retire(ctx.db, ctx.store.id, id, now);
  // Its variants go with it: their SKUs are free again, as the product's is.
  await ctx.db.query(
    'UPDATE product_variants SET archived_at = $3, updated_at = $3 WHERE store_id = $1 AND product_id = $2 AND archived_at IS NULL',
    [ctx.store.id, id, now],
  );
  const deleted = { object: 'product' as const, id, deleted: true, status: 'archived' };
  ctx.emit('product.deleted', deleted);
  return deleted;
}
