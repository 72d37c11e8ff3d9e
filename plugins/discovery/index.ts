import { action, definePlugin, type ActionsOf, onFirstCall } from '../../core/sdk';
import { RecommendationsQuery, Ranking, SimilarQuery, TrendingQuery } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { recommendations, similar, trending } = onFirstCall(() => import('./ranking'));

const OFFERED =
  'Never the product asked about, nor draft, archived or out-of-stock products (include_out_of_stock: true keeps the last); limit default 10, at most 50.';

const discovery = definePlugin({
  name: 'discovery',
  category: 'commerce',
  description: "Product discovery over the store's own orders and catalog: co-purchase and personalised recommendations, similar products, trending.",
  resource: 'product',
  catalog: true,
  // SPEC 5.4: catalog, catalog:read (every action only reads).
  scopes: { read: ['catalog', 'catalog:read'], write: ['catalog'] },
  tables: [],
  requires: ['products', 'orders', 'collections', 'customers'],
  actions: {
    get_recommendations: action({
      kind: 'read',
      description: `Products bought in the same paid, fulfilled or completed orders as product_id, ranked by how many orders share them (score); with customer_id, those bought with what the customer bought, minus what they already bought. ${OFFERED}`,
      input: RecommendationsQuery,
      output: Ranking,
      rest: { method: 'GET', path: '/discovery/recommendations' },
      example: async ({ make }) => ({ product_id: (await make('products.create_product')).id }),
      handler: recommendations,
    }),
    similar_products: action({
      kind: 'read',
      description: `Products like product_id: score 3 per shared collection, 2 per shared metadata entry, 1 when the price is within 30% of its price. ${OFFERED}`,
      input: SimilarQuery,
      output: Ranking,
      rest: { method: 'GET', path: '/discovery/similar' },
      example: async ({ make }) => ({ product_id: (await make('products.create_product')).id }),
      handler: similar,
    }),
    trending: action({
      kind: 'read',
      description: `Units sold in paid, fulfilled or completed orders over the last 30 days, each day weighted 0.5^(age in days / 7) (score). ${OFFERED}`,
      input: TrendingQuery,
      output: Ranking,
      rest: { method: 'GET', path: '/discovery/trending' },
      handler: trending,
    }),
  },
});
export default discovery;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'discovery', typeof discovery> {}
}
