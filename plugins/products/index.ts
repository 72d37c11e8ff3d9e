import { action, definePlugin, type ActionsOf, type ExampleKit, onFirstCall } from '../../core/sdk';
import { conflict } from '../../core/sdk';
import migration001 from './migrations/001_products.sql' with { type: 'text' };
import migration002 from './migrations/002_currency_minor_units.sql' with { type: 'text' };
import migration003 from './migrations/003_variants_metadata_search.sql' with { type: 'text' };
import migration004 from './migrations/004_sku_space.sql' with { type: 'text' };
import migration005 from './migrations/005_search_pending_list.sql' with { type: 'text' };
import migration006 from './migrations/006_stock_in_inventory.sql' with { type: 'text' };
import migration007 from './migrations/007_tax_class.sql' with { type: 'text' };
import migration008 from './migrations/008_weight.sql' with { type: 'text' };
import { BulkInput, BulkResult, MAX_BULK_ITEMS, bulkProducts } from './bulk';
import {
  Product,
  ProductCreate,
  ProductDeleted,
  ProductId,
  ProductList,
  ProductQuery,
  ProductUpdate,
  Variant,
  VariantCreate,
  VariantDeleted,
  VariantId,
  VariantList,
  VariantUpdate,
} from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { archiveProduct, createProduct, getProductRow, listProducts, productOut, updateProduct } = onFirstCall(() => import('./store'));
const { createVariant, deleteVariant, getVariant, listVariants, updateVariant } = onFirstCall(() => import('./variant-actions'));

/** For the sweeps' examples: a variable product with one option (size S), hence one variant. */
const variableProduct = (make: ExampleKit['make']) =>
  make('products.create_product', { name: 'Tee', type: 'variable', options: [{ name: 'size', values: ['S'] }], stock_quantity: undefined });
const firstVariant = (p: { id: string; variants: { id: string }[] }) => ({ id: p.id, variant_id: p.variants[0].id });

const products = definePlugin({
  name: 'products',
  category: 'commerce',
  description: "The store's product catalog: prices, SKUs and stock.",
  resource: 'product',
  catalog: true,
  scopes: { read: ['products', 'products:read'], write: ['products', 'products:write'] },
  events: { 'product.created': Product, 'product.updated': Product, 'product.deleted': Product },
  errors: { duplicate_sku: conflict('Another live product or variant of the store has this SKU.') },
  tables: ['products', 'product_variants', 'product_skus'],
  migrations: [
    { id: 'products/001_products', sql: migration001 },
    { id: 'products/002_currency_minor_units', sql: migration002 },
    { id: 'products/003_variants_metadata_search', sql: migration003 },
    { id: 'products/004_sku_space', sql: migration004 },
    { id: 'products/005_search_pending_list', sql: migration005 },
    { id: 'products/006_stock_in_inventory', sql: migration006 },
    { id: 'products/007_tax_class', sql: migration007 },
    { id: 'products/008_weight', sql: migration008 },
  ],
  requires: ['inventory', 'store'],
  // list_products' collection_id filter asks collections for the members (it requires products).
  calls: ['collections'],
  actions: {
    list_products: action({
      kind: 'read',
      description:
        "List the store's products, newest first. Filter by q (name or SKU contains, ignoring case), sku, status, type, collection_id, " +
        'created range and metadata pairs. Paginate with starting_after.',
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
      handler: async (ctx, { id }) => productOut(ctx.db, ctx.store.id, await getProductRow(ctx, id)),
    }),
    create_product: action({
      kind: 'write',
      description:
        'Create a product. Only name is required; SKU must be unique in the store. A variable product (type variable) takes options ' +
        '(up to 3, each with values) and variants (each with its own sku, price, status, stock_quantity); without variants one per combination is made.',
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
      description: "Change a product's fields; fields left out keep their value.",
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
    bulk_products: action({
      kind: 'write',
      description:
        `Create, update (price, status, stock and other fields) or archive up to ${MAX_BULK_ITEMS} products in one request, all or nothing: ` +
        'if one item fails nothing is changed and the error names it (param items.N.field). One product event per item.',
      input: BulkInput,
      output: BulkResult,
      rest: { method: 'POST', path: '/products/bulk', since: 'v2026-01-15' },
      emits: ['product.created', 'product.updated', 'product.deleted'],
      errors: ['duplicate_sku'],
      example: { items: [{ action: 'create', name: 'Bulk mug', pricing_data: { retail: 9.5 }, stock_quantity: 3 }] },
      handler: bulkProducts,
    }),
    list_variants: action({
      kind: 'read',
      description: "List a variable product's live variants, oldest first (all of them: a product has at most 100).",
      input: ProductId,
      output: VariantList,
      rest: { method: 'GET', path: '/products/:id/variants' },
      example: async ({ make }) => ({ id: (await variableProduct(make)).id }),
      handler: listVariants,
    }),
    get_variant: action({
      kind: 'read',
      description: 'Fetch one variant of a product, with its price and stock.',
      input: VariantId,
      output: Variant,
      rest: { method: 'GET', path: '/products/:id/variants/:variant_id' },
      example: async ({ make }) => firstVariant(await variableProduct(make)),
      handler: getVariant,
    }),
    create_variant: action({
      kind: 'write',
      description:
        'Add a variant to a variable product: options gives one value per option (a new value is added to that option), ' +
        'with its own sku, price, status and stock_quantity.',
      input: VariantCreate,
      output: Variant,
      rest: { method: 'POST', path: '/products/:id/variants', status: 201 },
      emits: ['product.updated'],
      errors: ['duplicate_sku'],
      example: async ({ make }) => ({ id: (await variableProduct(make)).id, options: { size: 'M' }, price: 21 }),
      handler: createVariant,
    }),
    update_variant: action({
      kind: 'write',
      description: "Change a variant's sku, price, status, stock_quantity or metadata; fields left out keep their value.",
      input: VariantUpdate,
      output: Variant,
      rest: { method: 'PATCH', path: '/products/:id/variants/:variant_id' },
      emits: ['product.updated'],
      errors: ['duplicate_sku'],
      example: async ({ make }) => ({ ...firstVariant(await variableProduct(make)), price: 22 }),
      handler: updateVariant,
    }),
    delete_variant: action({
      kind: 'destructive',
      description: "Delete (archive) a variant: its SKU is free again, its stock leaves the product's total; orders keep naming it.",
      input: VariantId,
      output: VariantDeleted,
      rest: { method: 'DELETE', path: '/products/:id/variants/:variant_id' },
      emits: ['product.updated'],
      example: async ({ make }) => firstVariant(await variableProduct(make)),
      handler: deleteVariant,
    }),
  },
});
export default products;

// ctx.call('products.get_product', ...) in other plugins answers these actions' output types.
declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'products', typeof products> {}
}
