import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/plugins/contract';
import { errors } from '../../core/errors';
import { DEFAULT_CURRENCY, checkCurrency, fromMinor, toMinor } from '../../core/money';
import { page } from '../../core/plugins/pagination';
import { isUniqueViolation, sqlState } from '../../core/db/pg-errors';
import { setTotal } from '../../core/stock';
import type { Product, ProductCreate, ProductQuery, ProductUpdate } from './schemas';

type ProductRow = Record<string, any>;

export function toProduct(r: ProductRow): Static<typeof Product> {
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
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
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
    const [created] = await ctx.db.query(
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
    );
    const product = toProduct(created);
    ctx.emit('product.created', product);
    return product;
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicateSku(input.sku);
    // A concurrent first product made the default location in the same instant: this statement's
    // insert of it did nothing and its snapshot cannot see the other's row, so the level had no
    // location (not-null violation) and nothing was written. Once more, it sees the location.
    if (sqlState(err) === '23502' && !retried) return createProduct(ctx, input, true);
    throw err;
  }
}

export async function getProductRow(ctx: Ctx, id: string, forUpdate = false): Promise<ProductRow> {
  const [row] = await ctx.db.query(
    `SELECT * FROM products WHERE store_id = $1 AND id = $2 AND archived_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [ctx.store.id, id],
  );
  if (!row) throw errors.notFound(`product: '${id}'`, 'id');
  return row;
}

export async function listProducts(ctx: Ctx, input: Static<typeof ProductQuery>) {
  const where = [input.status === 'archived' ? 'archived_at IS NOT NULL' : 'archived_at IS NULL'];
  const params: unknown[] = [];
  if (input.status && input.status !== 'archived') {
    params.push(input.status);
    where.push(`status = $${params.length + 1}`);
  }
  const { rows, has_more } = await page<ProductRow>(ctx.db, { table: 'products', storeId: ctx.store.id, where, params, input });
  return { object: 'list' as const, data: rows.map(toProduct), has_more, url: `${ctx.storePath}/products` };
}

/**
 * A stored amount the update keeps, in the product's (maybe new) currency: the same decimal amount,
 * which must fit the new currency's minor unit (19.99 USD cannot become JPY without a new price).
 */
function inCurrency(cur: ProductRow, column: 'price_minor' | 'compare_at_minor', currency: string): number | null {
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
    const next = {
      name: input.name ?? cur.name,
      description: input.description !== undefined ? input.description : cur.description,
      sku: input.sku !== undefined ? input.sku : cur.sku,
      type: input.type ?? cur.type,
      status: input.status ?? cur.status,
      price_minor: p.retail !== undefined ? toMinor(p.retail, currency, 'pricing_data.retail') : inCurrency(cur, 'price_minor', currency),
      compare_at_minor:
        p.compare_at === undefined
          ? inCurrency(cur, 'compare_at_minor', currency)
          : p.compare_at === null ? null : toMinor(p.compare_at, currency, 'pricing_data.compare_at'),
      currency,
    };
    if (input.stock_quantity !== undefined) await setTotal(tx, ctx.store.id, input.id, input.stock_quantity, ctx.clock.now());
    try {
      const [row] = await tx.query(
        `UPDATE products SET name = $3, description = $4, sku = $5, type = $6, status = $7, price_minor = $8,
           compare_at_minor = $9, currency = $10, updated_at = $11
         WHERE store_id = $1 AND id = $2 RETURNING *`,
        [ctx.store.id, input.id, next.name, next.description, next.sku, next.type, next.status, next.price_minor,
          next.compare_at_minor, next.currency, ctx.clock.now()],
      );
      const product = toProduct(row);
      ctx.emit('product.updated', product);
      return product;
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateSku(next.sku);
      throw err;
    }
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
