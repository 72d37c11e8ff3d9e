import type { Static } from '@sinclair/typebox';
import { checkCurrency, DEFAULT_CURRENCY, errors, fromMinor, listPage, rowOr404, setClause, sqlState, stamps, toMinor, unique, type Ctx, type Row } from '../../core/sdk';
import { setTotal } from '../inventory/public';
import type { Product, ProductCreate, ProductQuery, ProductUpdate } from './schemas';

export function toProduct(r: Row): Static<typeof Product> {
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
    ...stamps(r),
  };
}

const duplicateSku = (sku: unknown) =>
  errors.conflict(`A product with SKU '${sku}' already exists in this store.`, 'duplicate_sku', 'sku');

export async function createProduct(ctx: Ctx, input: Static<typeof ProductCreate>, retried = false): Promise<ReturnType<typeof toProduct>> {
  const p = input.pricing_data;
  const currency = p?.currency ? checkCurrency(p.currency, 'pricing_data.currency') : DEFAULT_CURRENCY;
  const now = ctx.clock.now();
  try {
    // One statement, so PostgreSQL applies it atomically without a transaction of ours (the
    // action is declared `atomic`): the product, and its first stock as the default location's
    // level (creating that location if the store has none yet), keeping the stock ledger's rule
    // that stock_quantity is the sum of the levels.
    const [created] = await unique(ctx.db.query(
      `WITH p AS (
         INSERT INTO products (id, store_id, name, description, sku, type, status, price_minor, compare_at_minor, currency, stock_quantity, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *
       ), made AS (
         INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'Default', true, $11, $11
         WHERE $10::int > 0 AND NOT EXISTS (SELECT 1 FROM locations WHERE store_id = $1 AND is_default)
         ON CONFLICT DO NOTHING RETURNING id
       ), home AS (
         SELECT id FROM made UNION ALL SELECT id FROM locations WHERE store_id = $1 AND is_default
       ), level AS (
         INSERT INTO inventory_levels (store_id, product_id, location_id, quantity, updated_at)
         SELECT p.store_id, p.id, (SELECT id FROM home LIMIT 1), p.stock_quantity, p.created_at FROM p WHERE p.stock_quantity > 0
       )
       SELECT * FROM p`,
      [
        ctx.store.id, input.name, input.description ?? null, input.sku ?? null, input.type ?? 'simple', input.status ?? 'active',
        p ? toMinor(p.retail, currency, 'pricing_data.retail') : 0,
        p?.compare_at == null ? null : toMinor(p.compare_at, currency, 'pricing_data.compare_at'),
        currency, input.stock_quantity ?? 0, now,
      ],
    ), { products_store_sku: () => duplicateSku(input.sku) });
    const product = toProduct(created);
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

/** Archived (deleted) products are gone from every lookup. */
export const getProductRow = (ctx: Ctx, id: string, forUpdate = false) =>
  rowOr404(ctx.db, { table: 'products', storeId: ctx.store.id, id, noun: 'product', where: 'archived_at IS NULL', lock: forUpdate ? 'FOR UPDATE' : undefined });

export const listProducts = (ctx: Ctx, input: Static<typeof ProductQuery>) =>
  listPage(ctx, {
    table: 'products', path: '/products', input,
    where: [input.status === 'archived' ? 'archived_at IS NOT NULL' : 'archived_at IS NULL'],
    filters: { 'status = $': input.status === 'archived' ? undefined : input.status },
  }, (rows) => rows.map(toProduct));

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

export async function updateProduct(ctx: Ctx, input: Static<typeof ProductUpdate>) {
  return ctx.db.transaction(async (tx) => {
    const cur = await getProductRow({ ...ctx, db: tx }, input.id, true);
    const p = input.pricing_data ?? {};
    const currency = p.currency !== undefined ? checkCurrency(p.currency, 'pricing_data.currency') : cur.currency;
    const set = setClause({
      name: input.name,
      description: input.description,
      sku: input.sku,
      type: input.type,
      status: input.status,
      price_minor: p.retail !== undefined ? toMinor(p.retail, currency, 'pricing_data.retail') : inCurrency(cur, 'price_minor', currency),
      compare_at_minor:
        p.compare_at === undefined
          ? inCurrency(cur, 'compare_at_minor', currency)
          : p.compare_at === null ? null : toMinor(p.compare_at, currency, 'pricing_data.compare_at'),
      currency: p.currency === undefined ? undefined : currency,
      updated_at: ctx.clock.now(),
    }, { after: 2 });
    if (input.stock_quantity !== undefined) await setTotal(tx, ctx.store.id, input.id, input.stock_quantity, ctx.clock.now());
    const [updated] = await unique(
      tx.query(`UPDATE products SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *`, [ctx.store.id, input.id, ...set.params]),
      { products_store_sku: () => duplicateSku(input.sku === undefined ? cur.sku : input.sku) },
    );
    const product = toProduct(updated);
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
  const deleted = { object: 'product' as const, id, deleted: true, status: 'archived' };
  ctx.emit('product.deleted', deleted);
  return deleted;
}
