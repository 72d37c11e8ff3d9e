import { action, conflict, definePlugin, onFirstCall } from '../../core/sdk';
import { Location, LocationCreate, LocationDeleted, LocationId, LocationList, LocationQuery, LocationUpdate } from './schemas';
import migration001 from './migrations/001_locations.sql' with { type: 'text' };

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { deleteLocation } = onFirstCall(() => import('./delete'));
const { createLocation, listLocations, locationRow, toLocation, updateLocation } = onFirstCall(() => import('./store'));

/**
 * The places stock is kept (warehouses, shops). The stock ledger (inventory) requires this plugin
 * and reaches the table through ./public.ts; this plugin asks the ledger about a location's stock
 * with ctx.call (its update and delete checks).
 */
export default definePlugin({
  name: 'locations',
  category: 'operations',
  // SPEC 5.4 lists inventory and inventory:write; the read/write split of the contract adds
  // inventory:read for the one read action, so read-only inventory keys can see where stock is.
  resource: 'location',
  catalog: true,
  scopes: { read: ['inventory', 'inventory:read'], write: ['inventory', 'inventory:write'] },
  // First made by inventory/000_stock (the stock tables came first); 001 owns it since, a no-op where it exists.
  tables: ['locations'],
  migrations: [{ id: 'locations/001_locations', sql: migration001 }],
  // Inventory requires locations: its location_stock and vacate_location run as this plugin.
  calls: ['inventory'],
  errors: { location_not_empty: conflict('The location still holds stock of live products; move it or write it off first.') },
  actions: {
    list_locations: action({
      kind: 'read',
      description:
        "List the store's stock locations, newest first; the default location (created with the store's first stock) is always there. " +
        'Filter with active. Use a location id with inventory adjust_stock and transfer_stock.',
      input: LocationQuery,
      output: LocationList,
      rest: { method: 'GET', path: '/locations' },
      handler: listLocations,
    }),
    get_location: action({
      kind: 'read',
      description: 'Fetch one stock location by id (name, address, whether it is the default and active).',
      input: LocationId,
      output: Location,
      rest: { method: 'GET', path: '/locations/:id' },
      handler: async (ctx, { id }) => toLocation(await locationRow(ctx, id)),
    }),
    create_location: action({
      kind: 'write',
      description: 'Add a stock location (warehouse, shop). The name must be unique in the store, ignoring case; the address is optional.',
      input: LocationCreate,
      output: Location,
      rest: { method: 'POST', path: '/locations', status: 201 },
      example: { name: 'Back room', address: { city: 'Portland', country: 'US' } },
      handler: createLocation,
    }),
    update_location: action({
      kind: 'write',
      description:
        'Rename a location, change or clear its address, or (de)activate it. The default location and a location still ' +
        'holding stock cannot be deactivated: move its stock away first with inventory transfer_stock.',
      input: LocationUpdate,
      output: Location,
      rest: { method: 'PATCH', path: '/locations/:id' },
      handler: updateLocation,
    }),
    delete_location: action({
      kind: 'destructive',
      description:
        'Delete a stock location that holds nothing: 409 location_not_empty says how many units of how many products are still there ' +
        '(move them with inventory transfer_stock first). The default location cannot be deleted. Its stock history is kept.',
      input: LocationId,
      output: LocationDeleted,
      rest: { method: 'DELETE', path: '/locations/:id' },
      errors: ['location_not_empty'],
      handler: (ctx, { id }) => deleteLocation(ctx, id),
    }),
  },
});
