import { action, conflict, definePlugin, type ActionsOf, type ExampleKit, onFirstCall } from '../../core/sdk';
import migration000 from './migrations/000_stock.sql' with { type: 'text' };
import migration001 from './migrations/001_inventory.sql' with { type: 'text' };
import migration002 from './migrations/002_location_delete.sql' with { type: 'text' };
import migration003 from './migrations/003_variant_levels.sql' with { type: 'text' };
import migration004 from './migrations/004_totals_and_retired.sql' with { type: 'text' };
import {
  InventoryGet,
  InventoryItem,
  InventoryList,
  InventoryQuery,
  LocationStock,
  LocationStockQuery,
  LocationVacated,
  StockAdjust,
  StockTransfer,
} from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { locationStock, vacateLocation } = onFirstCall(() => import('./location-stock'));
const { adjustStock, getInventory, listInventory, transferStock } = onFirstCall(() => import('./store'));

/** Moving one unit of a product stocked at the default location to a second location. */
async function transferExample({ make }: ExampleKit) {
  const product = await make('products.create_product');
  const stock = await make('inventory.get_inventory', { product_id: product.id });
  const to = await make('locations.create_location');
  return { product_id: product.id, from_location_id: stock.levels[0].location_id, to_location_id: to.id, quantity: 1 };
}

/**
 * Stock per product and location, over the stock ledger it owns (./stock.ts, shared through ./public.ts). Orders take and return
 * stock themselves; this plugin is for people and agents counting, receiving and moving units.
 */
const inventory = definePlugin({
  name: 'inventory',
  category: 'commerce',
  resource: 'inventory item',
  catalog: true,
  scopes: { read: ['inventory', 'inventory:read'], write: ['inventory', 'inventory:write'] },
  events: { 'inventory.adjusted': InventoryItem, 'inventory.transferred': InventoryItem },
  errors: { insufficient_stock: conflict('Fewer units are in stock than the change needs; nothing moved.') },
  tables: ['inventory_levels', 'inventory_adjustments', 'inventory_retired'],
  // The places stock is kept are the locations plugin's (its public.ts: the default location, a
  // location held while units move); its migration makes the table before 000 references it.
  requires: ['locations'],
  // Products requires inventory (it shows the totals), so the ledger asks products for a product
  // (get_product, list_products) through ctx.call, as this plugin.
  calls: ['products'],
  migrations: [
    { id: 'inventory/000_stock', sql: migration000 },
    { id: 'inventory/001_inventory', sql: migration001 },
    { id: 'inventory/002_location_delete', sql: migration002 },
    { id: 'inventory/003_variant_levels', sql: migration003 },
    { id: 'inventory/004_totals_and_retired', sql: migration004 },
  ],
  actions: {
    list_inventory: action({
      kind: 'read',
      description:
        "List stock for the store's products (newest product first): each item has the total and the quantity at each location. " +
        'Filter by product_id or location_id (what is stocked at one location). Paginate with starting_after (a product id).',
      input: InventoryQuery,
      output: InventoryList,
      rest: { method: 'GET', path: '/inventory' },
      handler: listInventory,
    }),
    get_inventory: action({
      kind: 'read',
      description:
        "Fetch one product's stock: the total and the quantity at each location. " +
        'Set include_adjustments to see the recent manual adjustments and transfers (why stock changed).',
      input: InventoryGet,
      output: InventoryItem,
      rest: { method: 'GET', path: '/inventory/:product_id' },
      example: async ({ make }) => ({ product_id: (await make('products.create_product')).id, include_adjustments: true }),
      handler: getInventory,
    }),
    adjust_stock: action({
      kind: 'write',
      description:
        'Add or remove units of a product at one location (the default location when location_id is left out), e.g. goods received, ' +
        'damage or a stock count correction. Stock never goes below zero: removing more than is there fails with insufficient_stock.',
      input: StockAdjust,
      output: InventoryItem,
      rest: { method: 'POST', path: '/inventory/adjust' },
      example: async ({ make }) => ({ product_id: (await make('products.create_product')).id, delta: 5, reason: 'received' }),
      emits: ['inventory.adjusted'],
      errors: ['insufficient_stock'],
      handler: adjustStock,
    }),
    transfer_stock: action({
      kind: 'write',
      description:
        "Move units of a product from one location to another; the product's total does not change. " +
        'Fails with insufficient_stock, moving nothing, when the source holds fewer units than asked.',
      input: StockTransfer,
      output: InventoryItem,
      rest: { method: 'POST', path: '/inventory/transfer', since: 'v2026-01-15' },
      example: transferExample,
      emits: ['inventory.transferred'],
      errors: ['insufficient_stock'],
      handler: transferStock,
    }),
    // Locations' checks and deletion, which need this plugin's levels (locations calls: ['inventory']).
    location_stock: action({
      kind: 'read',
      internal: true,
      description: 'The units of live products held at a location, and how many products they are (update_location deactivating one).',
      input: LocationStockQuery,
      output: LocationStock,
      handler: locationStock,
    }),
    vacate_location: action({
      kind: 'write',
      internal: true,
      description:
        "delete_location's stock half: with the location locked, counts its live units; when there are none, its levels go " +
        "(deleted products' units to the default location).",
      input: LocationStockQuery,
      output: LocationVacated,
      handler: vacateLocation,
    }),
  },
});

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'inventory', typeof inventory> {}
}

export default inventory;
