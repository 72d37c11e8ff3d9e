import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';
import { errors } from '../../core/sdk';
import { liveProducts, Product, productsIn } from '../products/public';
import type { CollectionProductsQuery, RemoveProduct } from './schemas';
import { collectionRow, withMembers } from './store';

/**
 * A collection's live products, as products, in the order they were added (the collection's
 * merchandising order, as in product_ids), with cursor pagination over that order: the cursor is
 * a product id of this collection. Archived products are hidden, as everywhere.
 */
export async function listCollectionProducts(ctx: Ctx, input: Static<typeof CollectionProductsQuery>) {
  const storeId = ctx.store.id;
  const collection = await collectionRow(ctx, input.id);
  if (input.starting_after && input.ending_before) throw errors.validation('Pass only one of starting_after and ending_before.', 'ending_before');
  const limit = input.limit ?? 10;
  const cursorId = input.starting_after ?? input.ending_before;
  const backwards = Boolean(input.ending_before);
  let position: string | undefined;
  if (cursorId) {
    const param = backwards ? 'ending_before' : 'starting_after';
    const [at] = await ctx.db.query<{ position: string }>(
      'SELECT position FROM collection_products WHERE store_id = $1 AND collection_id = $2 AND product_id = $3',
      [storeId, collection.id, cursorId],
    );
    if (!at) throw errors.badRequest('invalid_cursor', `No such product in this collection: ${cursorId}.`, param);
    position = at.position;
  }
  // Members in merchandising order, a batch at a time; the products plugin says which are live
  // (archived ones are skipped), so a page is filled from as many batches as it takes.
  const page: Static<typeof Product>[] = [];
  let more = true;
  while (page.length <= limit && more) {
    const batch = await ctx.db.query<{ product_id: string; position: string }>(
      `SELECT product_id, position FROM collection_products
       WHERE store_id = $1 AND collection_id = $2${position === undefined ? '' : ` AND position ${backwards ? '<' : '>'} $4`}
       ORDER BY position ${backwards ? 'DESC' : 'ASC'} LIMIT $3`,
      [storeId, collection.id, limit + 1, ...(position === undefined ? [] : [position])],
    );
    more = batch.length === limit + 1;
    const live = await liveProducts(
      ctx.db,
      storeId,
      batch.map((m) => m.product_id),
    );
    for (const m of batch) {
      const product = live.get(m.product_id);
      if (product) page.push(product);
    }
    position = batch.at(-1)?.position;
  }
  const has_more = page.length > limit;
  const data = page.slice(0, limit);
  if (backwards) data.reverse();
  return { object: 'list' as const, data, has_more, url: `${ctx.storePath}/collections/${collection.id}/products` };
}

/**
 * Takes one product out of a collection (the product itself stays). A product not in it, or
 * archived, is 404 naming product_id. The collection row is locked like add_products', so adds
 * and removals of one collection apply one after the other.
 */
export async function removeProduct(ctx: Ctx, input: Static<typeof RemoveProduct>) {
  const storeId = ctx.store.id;
  const collection = await collectionRow(ctx, input.id, 'FOR UPDATE');
  // An archived product is hidden from the collection, so it cannot be taken out of it either.
  const live = (await productsIn(ctx.db, storeId, [input.product_id])).size > 0;
  const removed = live
    ? await ctx.db.query('DELETE FROM collection_products WHERE store_id = $1 AND collection_id = $2 AND product_id = $3 RETURNING product_id', [
        storeId,
        collection.id,
        input.product_id,
      ])
    : [];
  if (!removed.length) throw errors.notFound(`product in this collection: '${input.product_id}'`, 'product_id');
  const [row] = await ctx.db.query('UPDATE collections SET updated_at = $3 WHERE store_id = $1 AND id = $2 RETURNING *', [
    storeId,
    collection.id,
    ctx.clock.now(),
  ]);
  return (await withMembers(ctx.db, storeId, [row]))[0];
}
