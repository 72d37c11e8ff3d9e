import { action, definePlugin } from '../../core/sdk';
import { conflict } from '../../core/sdk';
import migration001 from './migrations/001_collections.sql' with { type: 'text' };
import { AddProducts, Collection, CollectionCreate, CollectionList, CollectionQuery } from './schemas';
import { addProducts, createCollection, listCollections } from './store';

export default definePlugin({
  name: 'collections',
  category: 'commerce',
  // SPEC 5.4 lists catalog and catalog:write; catalog:read is added so a read-only key can list.
  resource: 'collection',
  catalog: true,
  scopes: { read: ['catalog', 'catalog:read'], write: ['catalog', 'catalog:write'] },
  errors: { duplicate_handle: conflict('Another collection of the store has this handle.') },
  migrations: [{ id: 'collections/001_collections', sql: migration001 }],
  // Only the catalog's actions (SPEC 4.10): there is no get_collection, so lists carry product_ids
  // and can be filtered by handle to fetch one collection.
  actions: {
    list_collections: action({
      kind: 'read',
      description: 'List the store\'s collections, newest first, each with its product_ids. Pass handle to fetch one by handle.',
      input: CollectionQuery,
      output: CollectionList,
      rest: { method: 'GET', path: '/collections' },
      handler: listCollections,
    }),
    create_collection: action({
      kind: 'write',
      description: 'Create an empty collection. title is required; handle (URL slug) is derived from the title when left out and must be unique in the store.',
      input: CollectionCreate,
      output: Collection,
      rest: { method: 'POST', path: '/collections', status: 201 },
      example: { title: 'Summer sale', description: 'Light things for warm days.' },
      handler: createCollection,
    }),
    add_products: action({
      kind: 'write',
      description:
        'Add up to 100 products to a collection. Products already in it are skipped; if any id is not a product of this store, nothing is added.',
      input: AddProducts,
      output: Collection,
      rest: { method: 'POST', path: '/collections/:id/products' },
      example: async ({ make }) => ({ id: (await make('collections.create_collection')).id, product_ids: [(await make('products.create_product')).id] }),
      handler: addProducts,
    }),
  },
});
