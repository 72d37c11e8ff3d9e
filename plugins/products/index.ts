import { action, definePlugin } from '../../core/sdk';
import { conflict } from '../../core/sdk';
import migration001 from './migrations/001_products.sql' with { type: 'text' };
import migration002 from './migrations/002_currency_minor_units.sql' with { type: 'text' };
import { Product, ProductCreate, ProductDeleted, ProductId, ProductList, ProductQuery, ProductUpdate } from './schemas';
import { archiveProduct, createProduct, getProductRow, listProducts, toProduct, updateProduct } from './store';

export default definePlugin({
  name: 'products',
  category: 'commerce',
  description: "The store's product catalog: prices, SKUs and stock.",
  resource: 'product',
  catalog: true,
  scopes: { read: ['products', 'products:read'], write: ['products', 'products:write'] },
  events: { 'product.created': Product, 'product.updated': Product, 'product.deleted': Product },
  errors: { duplicate_sku: conflict('Another live product of the store has this SKU.') },
  migrations: [
    { id: 'products/001_products', sql: migration001 },
    { id: 'products/002_currency_minor_units', sql: migration002 },
  ],
  requires: ['inventory'],
  actions: {
    list_products: action({
      kind: 'read',
      description: 'List the store\'s products, newest first, optionally filtered by status. Paginate with starting_after.',
      input: ProductQuery,
      output: ProductList,
      rest: { method: 'GET', path: '/products' },
      handler: listProducts,
    }),
    get_product: action({
      kind: 'read',
      description: 'Fetch one product by id, with price and stock.',
      input: ProductId,
      output: Product,
      rest: { method: 'GET', path: '/products/:id' },
      handler: async (ctx, { id }) => toProduct(await getProductRow(ctx, id)),
    }),
    create_product: action({
      kind: 'write',
      description: 'Create a product. Only name is required; SKU must be unique in the store.',
      input: ProductCreate,
      output: Product,
      rest: { method: 'POST', path: '/products', status: 201 },
      example: { name: 'Linen apron', description: 'Stone-washed, one size.', pricing_data: { retail: 24.5 }, stock_quantity: 10 },
      emits: ['product.created'],
      atomic: true,
      errors: ['duplicate_sku'],
      handler: createProduct,
    }),
    update_product: action({
      kind: 'write',
      description: 'Change a product\'s fields; fields left out keep their value.',
      input: ProductUpdate,
      output: Product,
      rest: { method: 'PATCH', path: '/products/:id' },
      emits: ['product.updated'],
      errors: ['duplicate_sku'],
      handler: updateProduct,
    }),
    delete_product: action({
      kind: 'destructive',
      description: 'Archive a product: it disappears from lists and lookups; existing orders keep it.',
      input: ProductId,
      output: ProductDeleted,
      rest: { method: 'DELETE', path: '/products/:id' },
      emits: ['product.deleted'],
      handler: (ctx, { id }) => archiveProduct(ctx, id),
    }),
  },
});
