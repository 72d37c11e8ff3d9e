import type { Static } from '@sinclair/typebox';
import {
  errors,
  fromMinor,
  jsonParam,
  mergeMetadata,
  checkMetadata,
  setClause,
  stamps,
  toMinor,
  unique,
  type Ctx,
  type Db,
  type Row,
} from '../../core/sdk';
import { dropVariant, setTotal, variantStockSql } from '../inventory/public';
import { MAX_VARIANTS, type Variant, type VariantCreate, type VariantInput, type VariantUpdate } from './schemas';

/**
 * Variable products (type "variable"): up to 3 options, each with values, and variants, one per
 * combination of values, each with its own SKU, price, status, metadata and stock. A variant's
 * stock lives in the inventory ledger (plugins/inventory, keyed by variant), read with the row
 * (VARIANTS); the product's stock_quantity is the sum of its variants' levels.
 */

type Option = { name: string; values: string[] };

/** The variants table with each row's stock_quantity, the inventory ledger's total (as PRODUCTS). */
export const VARIANTS = `(SELECT *, ${variantStockSql('product_variants.id')} AS stock_quantity FROM product_variants) product_variants`;

export function toVariant(r: Row, currency: string): Static<typeof Variant> {
  return {
    object: 'product_variant',
    id: r.id,
    product_id: r.product_id,
    sku: r.sku,
    options: r.options,
    price: fromMinor(r.price_minor, currency),
    status: r.status,
    stock_quantity: Number(r.stock_quantity),
    stock_status: Number(r.stock_quantity) > 0 ? 'in_stock' : 'out_of_stock',
    metadata: r.metadata ?? {},
    weight_grams: r.weight_grams ?? null,
    ...stamps(r),
  };
}

/** The live variants of these products, oldest first, by product id: one query for a page. */
export async function variantRowsOf(db: Db, storeId: string, productIds: string[]) {
  const byProduct = new Map<string, Row[]>();
  if (!productIds.length) return byProduct;
  const rows = await db.query(`SELECT * FROM ${VARIANTS} WHERE store_id = $1 AND product_id = ANY($2::uuid[]) AND archived_at IS NULL ORDER BY seq`, [
    storeId,
    productIds,
  ]);
  for (const r of rows) byProduct.set(r.product_id, [...(byProduct.get(r.product_id) ?? []), r]);
  return byProduct;
}

export const duplicateSku = (sku: unknown, param = 'sku') =>
  errors.conflict(`A product or variant with SKU '${sku}' already exists in this store.`, 'duplicate_sku', param);

/** Options as given, checked: names unique ignoring case, values unique within an option. */
export function checkOptions(options: Option[]) {
  const names = new Set<string>();
  options.forEach((o, i) => {
    if (names.has(o.name.toLowerCase())) throw errors.validation(`Invalid options.${i}.name: '${o.name}' is given twice.`, `options.${i}.name`);
    names.add(o.name.toLowerCase());
    if (new Set(o.values).size !== o.values.length)
      throw errors.validation(`Invalid options.${i}.values: a value is given twice.`, `options.${i}.values`);
  });
  const combinations = options.reduce((n, o) => n * o.values.length, 1);
  if (combinations > MAX_VARIANTS)
    throw errors.validation(`Invalid options: ${combinations} combinations; a product has at most ${MAX_VARIANTS} variants.`, 'options');
}

/** Every combination of the options' values, in order: what a product created without variants gets. */
export function combinations(options: Option[]): Record<string, string>[] {
  return options.reduce<Record<string, string>[]>((acc, o) => acc.flatMap((c) => o.values.map((v) => ({ ...c, [o.name]: v }))), [{}]);
}

/**
 * A variant's combination against the product's options: exactly one value per option. With
 * `extend`, a value the option does not have yet is added to it (adding a variant of a new size);
 * without, it is 400 naming `param`. Returns the combination with keys in the options' order.
 */
function placeCombination(options: Option[], given: Record<string, string>, param: string, extend: boolean) {
  const keys = Object.keys(given);
  const unknown = keys.find((k) => !options.some((o) => o.name === k));
  if (unknown !== undefined || keys.length !== options.length)
    throw errors.validation(
      `Invalid ${param}: give one value for each option (${options.map((o) => o.name).join(', ')})${unknown !== undefined ? `; '${unknown}' is not one` : ''}.`,
      param,
    );
  const placed: Record<string, string> = {};
  for (const o of options) {
    const value = given[o.name];
    if (!o.values.includes(value)) {
      if (!extend) throw errors.validation(`Invalid ${param}: '${value}' is not a value of option '${o.name}' (${o.values.join(', ')}).`, param);
      o.values.push(value);
    }
    placed[o.name] = value;
  }
  return placed;
}

const sameCombination = (a: Record<string, string>, b: Record<string, string>) => Object.keys(a).every((k) => a[k] === b[k]);

/** Inserts one variant and its first stock. Runs in the caller's transaction, the product locked. */
async function insertVariant(tx: Db, ctx: Ctx, product: Row, input: Static<typeof VariantInput>, combination: Record<string, string>, param: string) {
  const metadata = input.metadata ?? {};
  checkMetadata(metadata, `${param}metadata`);
  const now = ctx.clock.now();
  const [row] = await unique(
    tx.query(
      `INSERT INTO product_variants (id, store_id, product_id, sku, options, price_minor, status, metadata, created_at, updated_at, weight_grams)
       VALUES (gen_random_uuid(), $1, $2, $3, $4::text::jsonb, $5, $6, $7::text::jsonb, $8, $8, $9) RETURNING *`,
      [
        ctx.store.id,
        product.id,
        input.sku ?? null,
        jsonParam(combination),
        input.price === undefined ? product.price_minor : toMinor(input.price, product.currency, `${param}price`),
        input.status ?? 'active',
        jsonParam(metadata),
        now,
        input.weight_grams ?? null,
      ],
    ),
    {
      product_variants_store_sku: () => duplicateSku(input.sku, `${param}sku`),
      // the SKU space shared with products (migration 004)
      product_skus_pkey: () => duplicateSku(input.sku, `${param}sku`),
      product_variants_combination: () =>
        errors.conflict(`A variant ${JSON.stringify(combination)} already exists.`, 'conflict_error', `${param}options`),
    },
  );
  if (input.stock_quantity) await setTotal(tx, ctx.store.id, product.id, input.stock_quantity, now, row.id);
  return row;
}

/** A new variable product's variants: those given, or one per combination. Checks run before any write. */
export async function createVariants(tx: Db, ctx: Ctx, product: Row, options: Option[], variants: Static<typeof VariantInput>[] | undefined) {
  checkOptions(options);
  const list: Static<typeof VariantInput>[] = variants ?? combinations(options).map((c) => ({ options: c }));
  const placed = list.map((v, i) => placeCombination(options, v.options, `variants.${i}.options`, false));
  placed.forEach((c, i) => {
    if (placed.findIndex((d) => sameCombination(c, d)) !== i)
      throw errors.validation(`Invalid variants.${i}.options: the combination is given twice.`, `variants.${i}.options`);
  });
  const skus = list.map((v) => v.sku);
  skus.forEach((s, i) => {
    if (s !== undefined && skus.indexOf(s) !== i) throw duplicateSku(s, `variants.${i}.sku`);
    if (s !== undefined && s === product.sku) throw duplicateSku(s, `variants.${i}.sku`);
  });
  for (const [i, v] of list.entries()) await insertVariant(tx, ctx, product, v, placed[i], `variants.${i}.`);
}

export function requireVariable(product: Row) {
  if (product.type !== 'variable')
    throw errors.validation(`Product '${product.id}' has no variants: only a product of type variable has them.`, 'id');
}

export async function variantRow(db: Db, storeId: string, productId: string, variantId: string, lock = false) {
  const [row] = await db.query(
    `SELECT * FROM ${VARIANTS} WHERE store_id = $1 AND product_id = $2 AND id = $3 AND archived_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
    [storeId, productId, variantId],
  );
  if (!row) throw errors.notFound(`variant: '${variantId}'`, 'variant_id');
  return row;
}

/** Adds a variant; a value an option lacks is added to that option. */
export async function addVariant(tx: Db, ctx: Ctx, product: Row, input: Static<typeof VariantCreate>) {
  requireVariable(product);
  const options: Option[] = structuredClone(product.options);
  const combination = placeCombination(options, input.options, 'options', true);
  const live = (await variantRowsOf(tx, ctx.store.id, [product.id])).get(product.id) ?? [];
  if (live.length >= MAX_VARIANTS) throw errors.conflict(`A product has at most ${MAX_VARIANTS} variants.`, 'conflict_error', 'options');
  if (product.sku != null && input.sku === product.sku) throw duplicateSku(input.sku, 'sku');
  const row = await insertVariant(tx, ctx, product, input, combination, '');
  if (JSON.stringify(options) !== JSON.stringify(product.options))
    await tx.query('UPDATE products SET options = $3::text::jsonb WHERE store_id = $1 AND id = $2', [ctx.store.id, product.id, jsonParam(options)]);
  return row;
}

export async function changeVariant(tx: Db, ctx: Ctx, product: Row, input: Static<typeof VariantUpdate>) {
  const cur = await variantRow(tx, ctx.store.id, product.id, input.variant_id, true);
  const metadata = input.metadata === undefined ? undefined : mergeMetadata(cur.metadata, input.metadata);
  const now = ctx.clock.now();
  const set = setClause(
    {
      sku: input.sku,
      price_minor: input.price === undefined ? undefined : toMinor(input.price, product.currency, 'price'),
      status: input.status,
      metadata,
      weight_grams: input.weight_grams,
      updated_at: now,
    },
    { json: ['metadata'], after: 2 },
  );
  await unique(tx.query(`UPDATE product_variants SET ${set.sql} WHERE store_id = $1 AND id = $2`, [ctx.store.id, cur.id, ...set.params]), {
    product_variants_store_sku: () => duplicateSku(input.sku, 'sku'),
    product_skus_pkey: () => duplicateSku(input.sku, 'sku'),
  });
  if (input.stock_quantity !== undefined) await setTotal(tx, ctx.store.id, product.id, input.stock_quantity, now, cur.id);
  return variantRow(tx, ctx.store.id, product.id, cur.id);
}

/**
 * Deleting a variant archives it: its SKU is free again and orders keep naming it. Its units
 * leave the ledger with it (they belong to no sellable item any more), so the product's total drops.
 */
export async function archiveVariant(tx: Db, ctx: Ctx, product: Row, variantId: string) {
  const cur = await variantRow(tx, ctx.store.id, product.id, variantId, true);
  const now = ctx.clock.now();
  await tx.query('UPDATE product_variants SET archived_at = $3, updated_at = $3 WHERE store_id = $1 AND id = $2', [ctx.store.id, cur.id, now]);
  await dropVariant(tx, ctx.store.id, product.id, cur.id);
  await tx.query('UPDATE products SET updated_at = $3 WHERE store_id = $1 AND id = $2', [ctx.store.id, product.id, now]);
  return { object: 'product_variant' as const, id: cur.id as string, product_id: product.id as string, deleted: true as const };
}
