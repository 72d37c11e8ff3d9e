import { Type } from '@sinclair/typebox';
import { Input, Uuid } from '../../core/sdk';
import { Product } from '../products/public';

const common = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: 'How many products at most (default 10, at most 50).' })),
  include_out_of_stock: Type.Optional(Type.Boolean({ description: 'true also offers products with no units on hand (default false).' })),
};

export const RecommendationsQuery = Input({
  product_id: Type.Optional(Uuid('Products bought together with this one (co-purchase).')),
  customer_id: Type.Optional(Uuid('Personalised: products bought with what this customer bought, minus what they already bought.')),
  ...common,
});
export const SimilarQuery = Input({ product_id: Uuid('The product to find similar ones to.'), ...common });
export const TrendingQuery = Input(common);

const Ranked = Type.Object({
  product_id: Uuid(),
  score: Type.Number({ description: 'What the ranking sorts by, highest first (see the action).' }),
  product: Product,
});
export const Ranking = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Ranked),
  has_more: Type.Boolean(),
});
