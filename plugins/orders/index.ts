import { action, conflict, definePlugin, onFirstCall, type ActionsOf, type EventsOf } from '../../core/sdk';
import migration001 from './migrations/001_orders.sql' with { type: 'text' };
import migration002 from './migrations/002_currency_minor_units.sql' with { type: 'text' };
import migration003 from './migrations/003_addresses_notes_refunds.sql' with { type: 'text' };
import { Refund, RefundCreate, RefundList, RefundQuery } from './refund-schemas';
import { Order, OrderCancel, OrderCreate, OrderId, OrderList, OrderQuery, OrderUpdate } from './schemas';
import migration004 from './migrations/004_line_variant.sql' with { type: 'text' };
import migration005 from './migrations/005_attribution.sql' with { type: 'text' };
import migration006 from './migrations/006_discounts_tax.sql' with { type: 'text' };
import migration007 from './migrations/007_report_indexes.sql' with { type: 'text' };
import migration008 from './migrations/008_wallet_amount.sql' with { type: 'text' };
import migration009 from './migrations/009_channel_agent_shipping.sql' with { type: 'text' };

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { cancelOrder, createOrder, getOrder, listOrders, updateOrder } = onFirstCall(() => import('./store'));
const { createRefund, listRefunds } = onFirstCall(() => import('./refunds'));

const orders = definePlugin({
  name: 'orders',
  category: 'commerce',
  description: 'Customer orders: placing them, their lifecycle, cancellation and refunds.',
  resource: 'order',
  catalog: true,
  scopes: { read: ['orders', 'orders:read'], write: ['orders', 'orders:write'] },
  events: {
    'order.created': Order,
    'order.updated': Order,
    'order.paid': Order,
    'order.fulfilled': Order,
    'order.cancelled': Order,
    // SPEC 6.1: the checkout plugin emits it when a session completes into an order.
    'checkout.completed': Order,
    // Additive (SPEC 9.5): one event per refund, besides the order.updated it causes.
    'refund.created': Refund,
  },
  errors: {
    refund_exceeds_paid: conflict('A refund would give back more than the order has left to refund; the message names the amount left.'),
    refund_exceeds_quantity: conflict('A refund names more units of a line than are left to refund.'),
    order_not_refundable: conflict('Only paid, fulfilled or completed orders can be refunded.'),
    coupon_not_applicable: conflict(
      "A discount code of the order does not apply; `param` names it (discount_codes.<n>), the message gives coupons.validate's reason.",
    ),
  },
  tables: ['orders', 'order_line_items', 'order_refunds'],
  migrations: [
    { id: 'orders/001_orders', sql: migration001 },
    { id: 'orders/002_currency_minor_units', sql: migration002 },
    { id: 'orders/003_addresses_notes_refunds', sql: migration003 },
    { id: 'orders/004_line_variant', sql: migration004 },
    { id: 'orders/005_attribution', sql: migration005 },
    { id: 'orders/006_discounts_tax', sql: migration006 },
    { id: 'orders/007_report_indexes', sql: migration007 },
    { id: 'orders/008_wallet_amount', sql: migration008 },
    { id: 'orders/009_channel_agent_shipping', sql: migration009 },
  ],
  // store: the number prefix and prices_include_tax; coupons: discount codes, redeemed in the order's transaction.
  // tax: the order's tax (and discounts, through coupons) and the ledger its report reads.
  // wholesale: a customer's group prices.
  // fulfillment: the fulfilments every order shows, the unit lock, and PATCH status fulfilled's shipment;
  // fulfillment reaches orders back by ctx.call (its `calls`). wallet: store credit spent on an order, given back by its refunds.
  requires: ['inventory', 'customers', 'products', 'store', 'coupons', 'tax', 'wholesale', 'fulfillment', 'wallet'],
  actions: {
    list_orders: action({
      kind: 'read',
      description: 'List orders, newest first; filter by status (several: paid,fulfilled), customer_id, order number (q), created range, metadata.',
      input: OrderQuery,
      output: OrderList,
      rest: { method: 'GET', path: '/orders' },
      handler: listOrders,
    }),
    get_order: action({
      kind: 'read',
      description: 'Fetch one order with its line items.',
      input: OrderId,
      output: Order,
      rest: { method: 'GET', path: '/orders/:id' },
      handler: (ctx, { id }) => getOrder(ctx, id),
    }),
    create_order: action({
      kind: 'write',
      description:
        'Place an order for active products (up to 500 lines), with up to 5 discount_codes applied in order; subtotal, discounts, tax and total are computed and stock is taken atomically.',
      input: OrderCreate,
      output: Order,
      rest: { method: 'POST', path: '/orders', status: 201 },
      example: async ({ make }) => ({
        line_items: [{ product_id: (await make('products.create_product')).id, quantity: 2 }],
        payment_method: 'card',
      }),
      emits: ['order.created', 'order.paid'],
      errors: ['insufficient_stock', 'coupon_not_applicable', 'insufficient_wallet_balance'],
      handler: createOrder,
    }),
    update_order: action({
      kind: 'write',
      description:
        'Move an order along its lifecycle (pending -> paid -> fulfilled -> completed; fulfilled ships every unit left), change its payment method, addresses, notes or metadata.',
      input: OrderUpdate,
      output: Order,
      rest: { method: 'PATCH', path: '/orders/:id' },
      example: async ({ make }) => ({ id: (await make('orders.create_order')).id, status: 'paid' as const }),
      emits: ['order.updated', 'order.paid', 'order.fulfilled', 'order.cancelled'],
      handler: updateOrder,
    }),
    cancel_order: action({
      kind: 'destructive',
      description: 'Cancel a pending or paid order and put its stock back, with an optional reason.',
      input: OrderCancel,
      output: Order,
      rest: { method: 'POST', path: '/orders/:id/cancel' },
      emits: ['order.updated', 'order.cancelled'],
      handler: (ctx, { id, reason }) => cancelOrder(ctx, id, reason),
    }),
    create_refund: action({
      // Money leaves the store and cannot be taken back: MCP clients are told to confirm.
      kind: 'destructive',
      description:
        'Refund a paid, fulfilled or completed order: by amount, by line items (line_item_id, quantity), or in full (neither); restock puts the units back. Never more than is left to refund.',
      input: RefundCreate,
      output: Refund,
      rest: { method: 'POST', path: '/orders/:id/refunds', status: 201 },
      emits: ['refund.created', 'order.updated', 'order.fulfilled'],
      errors: ['refund_exceeds_paid', 'refund_exceeds_quantity', 'order_not_refundable'],
      example: async ({ make }) => {
        // Only a paid order is refundable.
        const order = await make('orders.create_order');
        await make('orders.update_order', { id: order.id, status: 'paid' });
        return { id: order.id, amount: 1 };
      },
      handler: createRefund,
    }),
    list_refunds: action({
      kind: 'read',
      description: 'List the refunds of one order, newest first.',
      input: RefundQuery,
      output: RefundList,
      rest: { method: 'GET', path: '/orders/:id/refunds' },
      handler: listRefunds,
    }),
  },
});
export default orders;

// ctx.call('orders.list_orders', ...) in other plugins (customers' enrichment) answers these types.
declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'orders', typeof orders> {}
  // Reactions (`on: { 'order.paid': ... }`) get these payloads typed.
  interface DeclaredEvents extends EventsOf<typeof orders> {}
}
