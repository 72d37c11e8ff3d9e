import type { Static } from '@sinclair/typebox';
import type { Ctx, Row } from '../../core/sdk';
import { errors } from '../../core/sdk';
import { toProduct } from '../products/public';
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
  const params: unknown[] = [storeId, collection.id];
  let after = '';
  if (cursorId) {
    const param = backwards ? 'ending_before' : 'starting_after';
    const [at] = await ctx.db.query<{ position: string }>(
      'SELECT position FROM collection_products WHERE store_id = $1 AND collection_id = $2 AND product_id = $3',
      [storeId, collection.id, cursorId],
    );
    if (!at) throw errors.badRequest('invalid_cursor', `No such product in this collection: ${cursorId}.`, param);
    params.push(at.position);
    after = ` AND cp.position ${backwards ? '<' : '>'} $3`;
  }
  params.push(limit + 1);
  const rows = await ctx.db.query<Row>(
    `SELECT p.* FROM collection_products cp
     JOIN products p ON p.id = cp.product_id AND p.store_id = cp.store_id AND p.archived_at IS NULL
     WHERE cp.store_id = $1 AND cp.collection_id = $2${after}
     ORDER BY cp.position ${backwards ? 'DESC' : 'ASC'} LIMIT $${params.length}`,
    params,
  );
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  return {
    object: 'list' as const,
    data: page.map((r) => toProduct(r)),
    has_more: rows.length > limit,
    url: `${ctx.storePath}/collections/${collection.id}/products`,
  };
}

/**
 * Takes one product out of a collection (the product itself stays). A product not in it, or
 * archived, is 404 naming product_id. The collection row is locked like add_products', so adds
 * and removals of one collection apply one after the other.
 */
export async function removeProduct(ctx: Ctx, input: Static<typeof RemoveProduct>) {
  const storeId = ctx.store.id;
  const collection = await collectionRow(ctx, input.id, 'FOR UPDATE');
  const removed = await ctx.db.query(
    `DELETE FROM collection_products cp USING products p
     WHERE cp.store_id = $1 AND cp.collection_id = $2 AND cp.product_id = $3
       AND p.id = cp.product_id AND p.store_id = cp.store_id AND p.archived_at IS NULL
     RETURNING cp.product_id`,
    [storeId, collection.id, input.product_id],
  );
  if (!removed.length) throw errors.notFound(`product in this collection: '${input.product_id}'`, 'product_id');
  const [row] = await ctx.db.query('UPDATE collections SET updated_at = $3 WHERE store_id = $1 AND id = $2 RETURNING *', [
    storeId,
    collection.id,
    ctx.clock.now(),
  ]);
  return (await withMembers(ctx.db, storeId, [row]))[0];
}
