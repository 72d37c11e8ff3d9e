import { action, definePlugin, onFirstCall } from '../../core/sdk';
import { conflict } from '../../core/sdk';
import migration001 from './migrations/001_collections.sql' with { type: 'text' };
import {
  AddProducts,
  Collection,
  CollectionCreate,
  CollectionDeleted,
  CollectionId,
  CollectionList,
  CollectionProductList,
  CollectionProductsQuery,
  CollectionQuery,
  CollectionUpdate,
  RemoveProduct,
} from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { listCollectionProducts, removeProduct } = onFirstCall(() => import('./members'));
const { addProducts, createCollection, deleteCollection, getCollection, listCollections, updateCollection } = onFirstCall(() => import('./store'));

export default definePlugin({
  name: 'collections',
  category: 'commerce',
  // SPEC 5.4 lists catalog and catalog:write; catalog:read is added so a read-only key can list.
  resource: 'collection',
  catalog: true,
  scopes: { read: ['catalog', 'catalog:read'], write: ['catalog', 'catalog:write'] },
  errors: { duplicate_handle: conflict('Another collection of the store has this handle.') },
  tables: ['collections', 'collection_products'],
  migrations: [{ id: 'collections/001_collections', sql: migration001 }],
  // list_collection_products answers products in the products plugin's own shape (its public.ts).
  requires: ['products'],
  // SPEC 4.10's three actions, and the rest of the CRUD (issue 21, additive under SPEC 9.5).
  actions: {
    list_collections: action({
      kind: 'read',
      description: "List the store's collections, newest first, each with its product_ids. Pass handle to fetch one by handle.",
      input: CollectionQuery,
      output: CollectionList,
      rest: { method: 'GET', path: '/collections' },
      handler: listCollections,
    }),
    get_collection: action({
      kind: 'read',
      description: 'Fetch one collection by id, with its product_ids (in the order they were added) and product_count.',
      input: CollectionId,
      output: Collection,
      rest: { method: 'GET', path: '/collections/:id' },
      handler: (ctx, { id }) => getCollection(ctx, id),
    }),
    create_collection: action({
      kind: 'write',
      description:
        'Create an empty collection. title is required; handle (URL slug) is derived from the title when left out and must be unique in the store.',
      input: CollectionCreate,
      output: Collection,
      rest: { method: 'POST', path: '/collections', status: 201 },
      errors: ['duplicate_handle'],
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
      example: async ({ make }) => ({
        id: (await make('collections.create_collection')).id,
        product_ids: [(await make('products.create_product')).id],
      }),
      handler: addProducts,
    }),
    update_collection: action({
      kind: 'write',
      description:
        "Change a collection's title, handle or description (null clears it); fields left out keep their value. A new title does not change the handle.",
      input: CollectionUpdate,
      output: Collection,
      rest: { method: 'PATCH', path: '/collections/:id' },
      errors: ['duplicate_handle'],
      handler: updateCollection,
    }),
    delete_collection: action({
      kind: 'destructive',
      description: 'Delete a collection. Its products are not touched; they only leave the collection.',
      input: CollectionId,
      output: CollectionDeleted,
      rest: { method: 'DELETE', path: '/collections/:id' },
      handler: (ctx, { id }) => deleteCollection(ctx, id),
    }),
    list_collection_products: action({
      kind: 'read',
      description:
        'List the products of a collection in the order they were added, as full products (archived ones hidden). Paginate with starting_after (a product id).',
      input: CollectionProductsQuery,
      output: CollectionProductList,
      rest: { method: 'GET', path: '/collections/:id/products' },
      handler: listCollectionProducts,
    }),
    remove_product: action({
      kind: 'write',
      description: 'Take one product out of a collection (the product itself stays). A product not in the collection is 404.',
      input: RemoveProduct,
      output: Collection,
      rest: { method: 'DELETE', path: '/collections/:id/products/:product_id' },
      example: async ({ make }) => {
        const collection = await make('collections.create_collection', { title: 'Removal', handle: `removal-${crypto.randomUUID().slice(0, 8)}` });
        const product = await make('products.create_product');
        await make('collections.add_products', { id: collection.id, product_ids: [product.id] });
        return { id: collection.id, product_id: product.id };
      },
      handler: removeProduct,
    }),
  },
});
