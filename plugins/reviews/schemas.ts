import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const REVIEW_STATUSES = ['pending', 'approved', 'rejected'] as const;
const Status = Type.Union(
  REVIEW_STATUSES.map((s) => Type.Literal(s)),
  { description: 'pending until a moderator approves or rejects it.' },
);
const Rating = Type.Integer({ minimum: 1, maximum: 5, description: 'Stars, 1 to 5.' });

export const Review = Type.Object({
  object: Type.Literal('review'),
  id: Uuid(),
  product_id: Uuid(),
  rating: Rating,
  title: Type.Union([Type.String(), Type.Null()]),
  body: Type.String(),
  author_name: Type.String(),
  customer_id: Type.Union([Uuid(), Type.Null()], { description: 'The customer who wrote it, when given.' }),
  verified_purchase: Type.Boolean({ description: 'The customer had a paid, fulfilled or completed order of this product when writing it.' }),
  status: Status,
  moderated_at: Type.Union([Timestamp(), Type.Null()]),
  response: Type.Union([
    Type.Object({ body: Type.String(), responded_at: Timestamp() }, { description: "The store owner's public answer." }),
    Type.Null(),
  ]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const ReviewCreate = Input({
  product_id: Uuid('The product reviewed.'),
  rating: Rating,
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  body: Type.String({ minLength: 1, maxLength: 5000 }),
  author_name: Type.String({ minLength: 1, maxLength: 100 }),
  customer_id: Type.Optional(Uuid("One of this store's customers: the review is a verified purchase when they bought the product.")),
});
export const ReviewId = Input({ id: Uuid('Review id') });
export const ReviewRespond = Input({
  id: Uuid('Review id'),
  body: Type.String({ minLength: 1, maxLength: 5000, description: 'The answer; replaces an earlier one.' }),
});
export const ReviewQuery = Input({
  ...ListParams,
  product_id: Type.Optional(Uuid('Only reviews of this product.')),
  status: Type.Optional(Status),
  rating: Type.Optional(Rating),
  verified_purchase: Type.Optional(Type.Boolean({ description: 'Only verified purchases (true) or the others (false).' })),
});
export const ReviewList = ListOf(Review);

export const SummaryQuery = Input({ product_id: Uuid('The product summarised.') });
export const Summary = Type.Object({
  object: Type.Literal('review_summary'),
  product_id: Uuid(),
  review_count: Type.Integer({ description: 'Approved reviews.' }),
  average_rating: Type.Union([Type.Number(), Type.Null()], { description: 'Mean of approved ratings, to 2 decimals; null with none.' }),
  ratings: Type.Object(
    { '1': Type.Integer(), '2': Type.Integer(), '3': Type.Integer(), '4': Type.Integer(), '5': Type.Integer() },
    { description: 'Approved reviews per star count.' },
  ),
  pending_count: Type.Integer({ description: 'Reviews awaiting moderation.' }),
  themes: Type.Optional(
    Type.Array(Type.String(), {
      maxItems: 5,
      description:
        'Up to 5 phrases the language model found in the latest 100 approved reviews, most frequent first; present only when a model is configured (SVC_LLM_MODEL).',
    }),
  ),
});
