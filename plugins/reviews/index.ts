import { Type } from '@sinclair/typebox';
import { actionFor, conflict, definePlugin, providerSettings, type ActionsOf, type ExampleKit, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_reviews.sql' with { type: 'text' };
import migration002 from './migrations/002_customer.sql' with { type: 'text' };
import migration003 from './migrations/003_themes.sql' with { type: 'text' };
import { Review, ReviewCreate, ReviewId, ReviewList, ReviewQuery, ReviewRespond, Summary, SummaryQuery } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createReview, getReview, listReviews, moderate, respond, summary } = onFirstCall(() => import('./store'));

const ReviewsConfig = Type.Object({
  ...providerSettings,
  // The llm tool's model: get_summary's themes are asked of it only when its provider is configured.
  model: Type.String({
    env: 'SVC_LLM_MODEL',
    default: 'openai/gpt-4o-mini',
    pattern: '^(openai|anthropic)/.+$',
    description: 'The model get_summary asks for themes (the llm tool’s).',
  }),
});
const action = actionFor(ReviewsConfig);

/** For the sweeps: a review of a product made in the same store. */
const reviewOfNewProduct = async ({ make }: ExampleKit) => ({
  product_id: (await make('products.create_product')).id,
  rating: 4,
  title: 'Good value',
  body: 'Fits well, washes well.',
  author_name: 'Ada',
});

const reviews = definePlugin({
  name: 'reviews',
  category: 'commerce',
  description: 'Product reviews: moderation (pending, approved, rejected), owner responses, a rating summary per product.',
  resource: 'review',
  catalog: true,
  // SPEC 5.4: catalog, catalog:read, catalog:write.
  scopes: { read: ['catalog', 'catalog:read'], write: ['catalog', 'catalog:write'] },
  tables: ['reviews', 'review_themes'],
  config: ReviewsConfig,
  // It checks products exist: products' public.ts (productsIn) and ctx.call('products.get_product'),
  // which runs as this plugin, so a key with only catalog scopes can write reviews.
  // customers' public.ts checks customer_id; orders' tells whether that customer bought the product.
  requires: ['products', 'customers', 'orders'],
  // get_summary's themes: llm.extract, as this plugin (a catalog:read key needs no ai scope).
  calls: ['llm'],
  events: { 'review.created': Review, 'review.approved': Review, 'review.rejected': Review, 'review.responded': Review },
  errors: {
    review_already_moderated: conflict('The review was already approved or rejected; a moderation decision is final.'),
    review_rejected: conflict('The review was rejected, so it takes no response.'),
  },
  migrations: [
    { id: 'reviews/001_reviews', sql: migration001 },
    { id: 'reviews/002_customer', sql: migration002 },
    { id: 'reviews/003_themes', sql: migration003 },
  ],
  // SPEC 4.10 fixes list_reviews, approve, respond and get_summary; create, get and reject complete them.
  actions: {
    list_reviews: action({
      kind: 'read',
      description: 'List reviews, newest first; filter by product_id, status (pending to moderate) or rating.',
      input: ReviewQuery,
      output: ReviewList,
      rest: { method: 'GET', path: '/reviews' },
      handler: listReviews,
    }),
    get_review: action({
      kind: 'read',
      description: 'Fetch one review by id.',
      input: ReviewId,
      output: Review,
      rest: { method: 'GET', path: '/reviews/:id' },
      handler: (ctx, { id }) => getReview(ctx, id),
    }),
    create_review: action({
      kind: 'write',
      description:
        "Record a shopper's review of a product (rating 1 to 5), with the customer_id when known: verified_purchase says that customer has a paid, fulfilled or completed order of it. It is pending until approved.",
      input: ReviewCreate,
      output: Review,
      rest: { method: 'POST', path: '/reviews', status: 201 },
      emits: ['review.created'],
      example: reviewOfNewProduct,
      handler: createReview,
    }),
    approve: action({
      kind: 'write',
      description: 'Approve a pending review: it is shown and counts in the summary. Final.',
      input: ReviewId,
      output: Review,
      rest: { method: 'POST', path: '/reviews/:id/approve' },
      emits: ['review.approved'],
      errors: ['review_already_moderated'],
      handler: (ctx, { id }) => moderate(ctx, id, 'approved'),
    }),
    reject_review: action({
      kind: 'write',
      description: 'Reject a pending review: it is never shown. Final.',
      input: ReviewId,
      output: Review,
      rest: { method: 'POST', path: '/reviews/:id/reject' },
      emits: ['review.rejected'],
      errors: ['review_already_moderated'],
      handler: (ctx, { id }) => moderate(ctx, id, 'rejected'),
    }),
    respond: action({
      kind: 'write',
      description: "Publish the store owner's answer to a review (replaces an earlier answer). Not for rejected reviews.",
      input: ReviewRespond,
      output: Review,
      rest: { method: 'POST', path: '/reviews/:id/respond' },
      emits: ['review.responded'],
      errors: ['review_rejected'],
      // The id comes from POST /reviews, as for any path id; the answer is the one field to give.
      example: { body: 'Thank you for the kind words!' },
      handler: (ctx, { id, body }) => respond(ctx, id, body),
    }),
    get_summary: action({
      kind: 'read',
      description:
        "A product's rating summary: approved reviews counted per star, their average, how many await moderation, and (when a language model is configured) up to 5 themes of the latest 100 approved reviews.",
      input: SummaryQuery,
      output: Summary,
      rest: { method: 'GET', path: '/reviews/summary' },
      example: async ({ make }) => ({ product_id: (await make('products.create_product')).id }),
      handler: (ctx, { product_id }) => summary(ctx, product_id),
    }),
  },
});
export default reviews;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'reviews', typeof reviews> {}
}
