import { action, definePlugin, onFirstCall, type ActionsOf } from '../../core/sdk';
import migration001 from './migrations/001_wholesale.sql' with { type: 'text' };
import { BulkOrder, PlacedOrder, PriceList, PriceQuery, PricingSet, SetPricing } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createBulkOrder, listPrices, setPricing } = onFirstCall(() => import('./store'));

const wholesale = definePlugin({
  name: 'wholesale',
  category: 'commerce',
  description: 'Wholesale: price lists per customer group (a customer tag) with quantity breaks, and bulk orders by SKU.',
  resource: 'wholesale price',
  catalog: true,
  // SPEC 5.4: commerce, commerce:read, commerce:write.
  scopes: { read: ['commerce', 'commerce:read', 'commerce:write'], write: ['commerce', 'commerce:write'] },
  tables: ['wholesale_prices'],
  // products: prices, variants and SKUs; customers: a customer's groups (tags).
  requires: ['products', 'customers'],
  // orders requires wholesale (its group prices), so create_bulk_order reaches orders as this plugin through `calls`.
  calls: ['orders'],
  events: { 'wholesale.pricing_set': PricingSet },
  migrations: [{ id: 'wholesale/001_wholesale', sql: migration001 }],
  actions: {
    list_prices: action({
      kind: 'read',
      description: 'List wholesale prices, newest first; filter by customer_group or product_id.',
      input: PriceQuery,
      output: PriceList,
      rest: { method: 'GET', path: '/wholesale/prices' },
      handler: listPrices,
    }),
    set_pricing: action({
      kind: 'write',
      description:
        "Set a customer group's prices (the group is a customer tag, e.g. wholesale): per product or variant a unit price and optional quantity_breaks [{min_quantity, price}]. A line pays the lowest of retail, its groups' prices and the best break reached.",
      input: SetPricing,
      output: PricingSet,
      rest: { method: 'POST', path: '/wholesale/pricing' },
      emits: ['wholesale.pricing_set'],
      example: async ({ make }) => ({
        customer_group: 'wholesale',
        prices: [{ product_id: (await make('products.create_product')).id, price: 10, quantity_breaks: [{ min_quantity: 10, price: 8 }] }],
      }),
      handler: setPricing,
    }),
    create_bulk_order: action({
      kind: 'write',
      description:
        "Place one order for a customer from SKUs and quantities (up to 500 lines), all or nothing, at the customer's group prices; a bad line is refused naming line_items.<n>.sku.",
      input: BulkOrder,
      output: PlacedOrder,
      rest: { method: 'POST', path: '/wholesale/orders', status: 201 },
      errors: ['insufficient_stock', 'coupon_not_applicable'],
      example: async ({ make }) => ({
        customer_id: (await make('customers.create_customer')).id,
        line_items: [{ sku: (await make('products.create_product', { sku: `BULK-${crypto.randomUUID().slice(0, 8)}` })).sku!, quantity: 2 }],
      }),
      handler: createBulkOrder,
    }),
  },
});
export default wholesale;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'wholesale', typeof wholesale> {}
}
