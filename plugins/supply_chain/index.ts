import { action, conflict, definePlugin, forbidden, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_supply_chain.sql' with { type: 'text' };
import { receiveShipmentAction, SupplyConfig } from './inbound';
import {
  ListQuery,
  PoCreate,
  PoId,
  PoList,
  PoQuery,
  PoReceive,
  PurchaseOrder,
  Shipment,
  Supplier,
  SupplierCreate,
  SupplierList,
  TrackShipment,
} from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { receivePo } = onFirstCall(() => import('./receive'));
const { trackShipment } = onFirstCall(() => import('./shipments'));
const { createPo, createSupplier, getPo, listPos, listSuppliers, transition } = onFirstCall(() => import('./store'));

let suppliers = 0;
const supplierId = async (make: (a: any, b?: any) => Promise<any>) =>
  (await make('supply_chain.create_supplier', { name: `Supplier ${++suppliers}` })).id;
const poExample = async ({ make }: { make: (a: any, b?: any) => Promise<any> }) => ({
  supplier_id: await supplierId(make),
  line_items: [{ product_id: (await make('products.create_product')).id, quantity: 10, unit_cost: 4.5 }],
});
const sentPo = async (kit: { make: (a: any, b?: any) => Promise<any> }) => {
  const po = await kit.make('supply_chain.create_po', await poExample(kit));
  await kit.make('supply_chain.send_po', { id: po.id });
  return po;
};

/** Suppliers, purchase orders received into stock through inventory, and their inbound shipments (issue 48). */
const supply_chain = definePlugin({
  name: 'supply_chain',
  category: 'operations',
  description: 'Suppliers, purchase orders (draft, sent, partially_received, received, cancelled) received into stock, and shipment tracking.',
  resource: 'purchase order',
  catalog: true,
  // SPEC 5.4: inventory, inventory:write (reads also inventory:read).
  scopes: { read: ['inventory', 'inventory:read', 'inventory:write'], write: ['inventory', 'inventory:write'] },
  config: SupplyConfig,
  tables: ['suppliers', 'purchase_orders', 'purchase_order_lines', 'po_shipments'],
  requires: ['products', 'locations', 'inventory', 'store'],
  errors: {
    invalid_po_status: conflict('The purchase order is not in a status this action moves from.'),
    over_receipt: conflict('A receipt is over what the line ordered; nothing was received.'),
    invalid_signature: forbidden('The inbound signature does not match the body and timestamp.'),
  },
  migrations: [{ id: 'supply_chain/001_supply_chain', sql: migration001 }],
  actions: {
    list_suppliers: action({
      kind: 'read',
      description: 'List suppliers, newest first.',
      input: ListQuery,
      output: SupplierList,
      rest: { method: 'GET', path: '/suppliers' },
      handler: listSuppliers,
    }),
    create_supplier: action({
      kind: 'write',
      description: 'Create a supplier: name, optional email and phone.',
      input: SupplierCreate,
      output: Supplier,
      rest: { method: 'POST', path: '/suppliers', status: 201 },
      example: async () => ({ name: `Supplier ${++suppliers}` }),
      handler: createSupplier,
    }),
    list_purchase_orders: action({
      kind: 'read',
      description: 'List purchase orders, newest first; filter by status or supplier_id.',
      input: PoQuery,
      output: PoList,
      rest: { method: 'GET', path: '/purchase-orders' },
      handler: listPos,
    }),
    get_purchase_order: action({
      kind: 'read',
      description: 'One purchase order with its lines (ordered and received) and shipments.',
      input: PoId,
      output: PurchaseOrder,
      rest: { method: 'GET', path: '/purchase-orders/:id' },
      example: async ({ make }) => ({ id: (await make('supply_chain.create_po', await poExample({ make }))).id }),
      handler: (ctx, { id }) => getPo(ctx, id),
    }),
    create_po: action({
      kind: 'write',
      description:
        'Create a draft purchase order: supplier_id, optional location_id (default: the store default location), line_items [{product_id, quantity, unit_cost}].',
      input: PoCreate,
      output: PurchaseOrder,
      rest: { method: 'POST', path: '/purchase-orders', status: 201 },
      example: poExample,
      handler: createPo,
    }),
    send_po: action({
      kind: 'write',
      description: 'Mark a draft purchase order sent to its supplier. From any other status: 409 invalid_po_status.',
      input: PoId,
      output: PurchaseOrder,
      rest: { method: 'POST', path: '/purchase-orders/:id/send' },
      errors: ['invalid_po_status'],
      example: async ({ make }) => ({ id: (await make('supply_chain.create_po', await poExample({ make }))).id }),
      handler: (ctx, { id }) => transition(ctx, id, ['draft'], 'sent'),
    }),
    receive_po: action({
      kind: 'write',
      description:
        'Goods arrived: line_items [{line_item_id, quantity}] add stock at the PO location through inventory (one inventory.adjusted per product). ' +
        'More than ordered is 409 over_receipt and moves nothing; the PO becomes partially_received or received.',
      input: PoReceive,
      output: PurchaseOrder,
      rest: { method: 'POST', path: '/purchase-orders/:id/receive' },
      errors: ['invalid_po_status', 'over_receipt'],
      example: async (kit) => {
        const po = await sentPo(kit);
        return { id: po.id, line_items: [{ line_item_id: po.line_items[0].id, quantity: 1 }] };
      },
      handler: receivePo,
    }),
    cancel_po: action({
      kind: 'write',
      description: 'Cancel a draft or sent purchase order; once goods were received: 409 invalid_po_status.',
      input: PoId,
      output: PurchaseOrder,
      rest: { method: 'POST', path: '/purchase-orders/:id/cancel' },
      errors: ['invalid_po_status'],
      example: async ({ make }) => ({ id: (await make('supply_chain.create_po', await poExample({ make }))).id }),
      handler: (ctx, { id }) => transition(ctx, id, ['draft', 'sent'], 'cancelled'),
    }),
    track_shipment: action({
      kind: 'write',
      description:
        'Add a shipment to a purchase order ({po_id, carrier, tracking_number}, status pending) or update one ({id, status}: pending, in_transit, delivered, exception).',
      input: TrackShipment,
      output: Shipment,
      rest: { method: 'POST', path: '/shipments' },
      example: async ({ make }) => ({
        po_id: (await make('supply_chain.create_po', await poExample({ make }))).id,
        carrier: 'ups',
        tracking_number: `1Z${++suppliers}`,
      }),
      handler: trackShipment,
    }),
    receive_shipment_report: receiveShipmentAction,
  },
});
export default supply_chain;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'supply_chain', typeof supply_chain> {}
}
