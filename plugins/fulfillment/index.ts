import { action, conflict, Deleted, definePlugin, Input, Uuid, type ActionsOf, type ExampleKit, onFirstCall } from '../../core/sdk';
import { ShippingZone, ZoneCreate, ZoneId, ZoneList, ZoneQuery, ZoneUpdate } from './zone-schemas';
import migration001 from './migrations/001_fulfillments.sql' with { type: 'text' };
import migration002 from './migrations/002_shipping_zones.sql' with { type: 'text' };
import { Fulfillment, FulfillmentCreate, Status, StatusQuery, TrackingUpdate } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createZone, deleteZone, getZone, listZones, updateZone } = onFirstCall(() => import('./zones'));
const { createFulfillment, getFulfillment, getStatus, updateTracking } = onFirstCall(() => import('./store'));

/** For the sweeps: a paid order of a new product, in the same store. */
const paidOrder = async (make: ExampleKit['make']) => {
  const order = await make('orders.create_order');
  await make('orders.update_order', { id: order.id, status: 'paid' });
  return order.id as string;
};

const fulfillment = definePlugin({
  name: 'fulfillment',
  category: 'commerce',
  description: "Shipping an order's units: fulfilments with carrier and tracking, and an order's fulfilment status.",
  resource: 'fulfillment',
  catalog: true,
  // SPEC 5.4: orders, orders:write; reads take orders:read too (issue 46).
  scopes: { read: ['orders', 'orders:read', 'orders:write'], write: ['orders', 'orders:write'] },
  tables: ['fulfillments', 'shipping_zones'],
  // orders requires this plugin (its orders show fulfilments), so orders is reached by ctx.call, as fulfillment.
  calls: ['orders'],
  // store: the currency shipping zones are priced in.
  requires: ['store'],
  events: { 'fulfillment.created': Fulfillment, 'fulfillment.updated': Fulfillment },
  errors: {
    rest_of_world_zone_exists: conflict('The store already has a rest_of_world shipping zone; the message names it.'),
    fulfillment_exceeds_quantity: conflict('A fulfilment names more units of a line than are left to fulfil (not yet shipped nor refunded).'),
  },
  migrations: [
    { id: 'fulfillment/001_fulfillments', sql: migration001 },
    { id: 'fulfillment/002_shipping_zones', sql: migration002 },
  ],
  actions: {
    create_fulfillment: action({
      kind: 'write',
      description:
        "Ship units of a paid order: line_items [{line_item_id, quantity}] (left out: every unit left), with carrier, tracking_number and tracking_url. Once every unit not refunded has shipped, the order becomes 'fulfilled'.",
      input: FulfillmentCreate,
      output: Fulfillment,
      rest: { method: 'POST', path: '/fulfillments', status: 201 },
      emits: ['fulfillment.created', 'order.updated'],
      errors: ['fulfillment_exceeds_quantity'],
      example: async ({ make }) => ({ order_id: await paidOrder(make), carrier: 'UPS', tracking_number: '1Z999AA10123456784' }),
      handler: createFulfillment,
    }),
    update_tracking: action({
      kind: 'write',
      description: "Change a fulfilment's carrier, tracking_number or tracking_url (null clears one).",
      input: TrackingUpdate,
      output: Fulfillment,
      rest: { method: 'PATCH', path: '/fulfillments/:id' },
      emits: ['fulfillment.updated'],
      example: { carrier: 'DHL', tracking_number: 'JD014600006281230704' },
      handler: updateTracking,
    }),
    get_status: action({
      kind: 'read',
      description:
        "An order's fulfilment: its status (unfulfilled, partially_fulfilled, fulfilled), each line's units shipped and left, and its fulfilments.",
      input: StatusQuery,
      output: Status,
      rest: { method: 'GET', path: '/fulfillments/status' },
      example: async ({ make }) => ({ order_id: (await make('orders.create_order')).id }),
      handler: (ctx, { order_id }) => getStatus(ctx, order_id),
    }),
    create_shipping_zone: action({
      kind: 'write',
      description:
        'Where the store ships and at what price: countries (optionally regions, postal_code_prefixes) or rest_of_world, with methods (flat amount or by_weight bands, free_over_amount, min/max business days).',
      input: ZoneCreate,
      output: ShippingZone,
      rest: { method: 'POST', path: '/shipping/zones', status: 201 },
      errors: ['rest_of_world_zone_exists'],
      example: { name: 'Domestic', countries: ['US'], methods: [{ name: 'Standard', rate_type: 'flat', amount: 5, min_days: 2, max_days: 5 }] },
      handler: createZone,
    }),
    list_shipping_zones: action({
      kind: 'read',
      description: "The store's shipping zones, newest first.",
      input: ZoneQuery,
      output: ZoneList,
      rest: { method: 'GET', path: '/shipping/zones' },
      handler: listZones,
    }),
    get_shipping_zone: action({
      kind: 'read',
      description: 'Fetch one shipping zone.',
      input: ZoneId,
      output: ShippingZone,
      rest: { method: 'GET', path: '/shipping/zones/:id' },
      handler: (ctx, { id }) => getZone(ctx, id),
    }),
    update_shipping_zone: action({
      kind: 'write',
      description: 'Change a shipping zone: a field left out keeps its value; methods replaces the list (a method keeps its id by name).',
      input: ZoneUpdate,
      output: ShippingZone,
      rest: { method: 'PATCH', path: '/shipping/zones/:id' },
      errors: ['rest_of_world_zone_exists'],
      example: { name: 'Domestic (48 states)' },
      handler: updateZone,
    }),
    delete_shipping_zone: action({
      kind: 'destructive',
      description: 'Delete a shipping zone: checkouts stop offering its methods.',
      input: ZoneId,
      output: Deleted,
      rest: { method: 'DELETE', path: '/shipping/zones/:id' },
      handler: (ctx, { id }) => deleteZone(ctx, id),
    }),
    get_fulfillment: action({
      kind: 'read',
      description: 'Fetch one fulfilment by id.',
      input: Input({ id: Uuid('Fulfillment id') }),
      output: Fulfillment,
      rest: { method: 'GET', path: '/fulfillments/:id' },
      handler: (ctx, { id }) => getFulfillment(ctx, id),
    }),
  },
});
export default fulfillment;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'fulfillment', typeof fulfillment> {}
}
