import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';
import type { VariantCreate, VariantId, VariantUpdate } from './schemas';
import { getProductRow, PRODUCTS, productOut } from './store';
import { addVariant, archiveVariant, changeVariant, requireVariable, toVariant, variantRow, variantRowsOf } from './variants';

/**
 * The variant routes (/products/:id/variants...). Every change locks the product first, as stock
 * movements do, and emits product.updated with the whole product: a variant is part of it.
 */
async function changing<T>(ctx: Ctx, productId: string, fn: (product: Record<string, any>, c: Ctx) => Promise<T>): Promise<T> {
  return ctx.db.transaction(async (tx) => {
    const c = { ...ctx, db: tx };
    const product = await getProductRow(c, productId, true);
    const out = await fn(product, c);
    const [fresh] = await tx.query(`SELECT * FROM ${PRODUCTS} WHERE id = $1`, [product.id]);
    ctx.emit('product.updated', await productOut(tx, ctx.store.id, fresh));
    return out;
  });
}

export async function listVariants(ctx: Ctx, { id }: { id: string }) {
  const product = await getProductRow(ctx, id);
  const rows = (await variantRowsOf(ctx.db, ctx.store.id, [product.id])).get(product.id) ?? [];
  return {
    object: 'list' as const,
    data: rows.map((r) => toVariant(r, product.currency)),
    has_more: false,
    url: `${ctx.storePath}/products/${product.id}/variants`,
  };
}

export async function getVariant(ctx: Ctx, input: Static<typeof VariantId>) {
  const product = await getProductRow(ctx, input.id);
  return toVariant(await variantRow(ctx.db, ctx.store.id, product.id, input.variant_id), product.currency);
}

export const createVariant = (ctx: Ctx, input: Static<typeof VariantCreate>) =>
  changing(ctx, input.id, async (product, c) => {
    const row = await addVariant(c.db, c, product, input);
    return toVariant(await variantRow(c.db, c.store.id, product.id, row.id), product.currency);
  });

export const updateVariant = (ctx: Ctx, input: Static<typeof VariantUpdate>) =>
  changing(ctx, input.id, async (product, c) => {
    requireVariable(product);
    return toVariant(await changeVariant(c.db, c, product, input), product.currency);
  });

export const deleteVariant = (ctx: Ctx, input: Static<typeof VariantId>) =>
  changing(ctx, input.id, async (product, c) => archiveVariant(c.db, c, product, input.variant_id));
