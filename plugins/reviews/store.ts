import type { Static } from '@sinclair/typebox';
import { errors, fail, isoOrNull, listPage, rowOr404, stamps, type Ctx, type Row } from '../../core/sdk';
import { productsIn } from '../products/public';
import { customerIdIn } from '../customers/public';
import { hasBought } from '../orders/public';
import type { ReviewCreate, ReviewQuery } from './schemas';
import { themesOf, type ReviewsConfig } from './themes';

const toReview = (r: Row) => ({
  object: 'review' as const,
  id: r.id,
  product_id: r.product_id,
  rating: Number(r.rating),
  title: r.title,
  body: r.body,
  author_name: r.author_name,
  customer_id: r.customer_id ?? null,
  verified_purchase: r.verified_purchase ?? false,
  status: r.status,
  moderated_at: isoOrNull(r.moderated_at),
  response: r.response === null ? null : { body: r.response, responded_at: isoOrNull(r.responded_at)! },
  ...stamps(r),
});

const row = (ctx: Ctx, id: string, lock?: 'FOR UPDATE') => rowOr404(ctx.db, { table: 'reviews', storeId: ctx.store.id, id, noun: 'review', lock });

export const getReview = async (ctx: Ctx, id: string) => toReview(await row(ctx, id));

export const listReviews = (ctx: Ctx, input: Static<typeof ReviewQuery>) =>
  listPage(
    ctx,
    {
      table: 'reviews',
      path: '/reviews',
      input,
      filters: {
        'product_id = $': input.product_id,
        'status = $': input.status,
        'rating = $': input.rating,
        'verified_purchase = $': input.verified_purchase,
      },
    },
    (rows) => rows.map(toReview),
  );

/** A review starts pending: nothing a shopper writes is shown before a moderator approves it. */
export async function createReview(ctx: Ctx, input: Static<typeof ReviewCreate>) {
  // Through the products plugin's own action: it decides what "a product of this store" is, and
  // its 404 names the field this client sent.
  const product = await ctx.call('products.get_product', { id: input.product_id }, { notFoundParam: 'product_id' });
  let customerId: string | null = null;
  if (input.customer_id !== undefined) {
    customerId = (await customerIdIn(ctx.db, ctx.store.id, input.customer_id)) ?? null;
    if (!customerId) throw errors.notFound(`customer: '${input.customer_id}'`, 'customer_id');
  }
  const verified = customerId !== null && (await hasBought(ctx.db, ctx.store.id, customerId, product.id));
  const now = ctx.clock.now();
  const [r] = await ctx.db.query(
    `INSERT INTO reviews (id, store_id, product_id, rating, title, body, author_name, created_at, updated_at, customer_id, verified_purchase)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $7, $8, $9) RETURNING *`,
    [ctx.store.id, product.id, input.rating, input.title ?? null, input.body, input.author_name, now, customerId, verified],
  );
  const review = toReview(r);
  ctx.emit('review.created', review);
  return review;
}

/** Moderation is one decision: a pending review becomes approved or rejected, once. */
export async function moderate(ctx: Ctx, id: string, decision: 'approved' | 'rejected') {
  const current = await row(ctx, id, 'FOR UPDATE');
  if (current.status !== 'pending')
    throw fail('review_already_moderated', `This review was already ${current.status}; a moderation decision is final.`, 'id');
  const now = ctx.clock.now();
  const [r] = await ctx.db.query('UPDATE reviews SET status = $3, moderated_at = $4, updated_at = $4 WHERE store_id = $1 AND id = $2 RETURNING *', [
    ctx.store.id,
    id,
    decision,
    now,
  ]);
  const review = toReview(r);
  ctx.emit(`review.${decision}`, review);
  return review;
}

/** The owner's public answer; a second one replaces the first. A rejected review is not shown, so it gets none. */
export async function respond(ctx: Ctx, id: string, body: string) {
  const current = await row(ctx, id, 'FOR UPDATE');
  if (current.status === 'rejected') throw fail('review_rejected', 'This review was rejected: it is not shown, so it takes no response.', 'id');
  const now = ctx.clock.now();
  const [r] = await ctx.db.query('UPDATE reviews SET response = $3, responded_at = $4, updated_at = $4 WHERE store_id = $1 AND id = $2 RETURNING *', [
    ctx.store.id,
    id,
    body,
    now,
  ]);
  const review = toReview(r);
  ctx.emit('review.responded', review);
  return review;
}

/** What shoppers see of a product: approved reviews only, counted per star, and the mean to 2 decimals. */
export async function summary(ctx: Ctx<ReviewsConfig>, productId: string) {
  // A read: the existence check from products' public.ts costs one indexed query, no action call.
  if (!(await productsIn(ctx.db, ctx.store.id, [productId])).size) throw errors.notFound(`product: '${productId}'`, 'product_id');
  const rows = await ctx.db.query(
    `SELECT status, rating, count(*)::int AS n FROM reviews WHERE store_id = $1 AND product_id = $2 GROUP BY status, rating`,
    [ctx.store.id, productId],
  );
  const ratings = { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 };
  let pending = 0;
  let count = 0;
  let stars = 0;
  for (const r of rows) {
    const n = Number(r.n);
    if (r.status === 'pending') pending += n;
    if (r.status !== 'approved') continue;
    ratings[String(r.rating) as keyof typeof ratings] += n;
    count += n;
    stars += n * Number(r.rating);
  }
  const out = {
    object: 'review_summary' as const,
    product_id: productId,
    review_count: count,
    average_rating: count ? Math.round((stars / count) * 100) / 100 : null,
    ratings,
    pending_count: pending,
  };
  // Themes only when a model is configured: no field at all otherwise.
  const themes = await themesOf(ctx, productId);
  return themes === undefined ? out : { ...out, themes };
}
