import { action, definePlugin } from '../../core/sdk';
import migration001 from './migrations/001_orders.sql' with { type: 'text' };
import migration002 from './migrations/002_currency_minor_units.sql' with { type: 'text' };
import migration003 from './migrations/003_line_variant.sql' with { type: 'text' };
import { Order, OrderCreate, OrderId, OrderList, OrderQuery, OrderUpdate } from './schemas';
import { cancelOrder, createOrder, getOrder, listOrders, updateOrder } from './store';

export default definePlugin({
  name: 'orders',
  category: 'commerce',
  description: "Customer orders: placing them, their lifecycle and cancellation.",
  resource: 'order',
  catalog: true,
  scopes: { read: ['orders', 'orders:read'], write: ['orders', 'orders:write'] },
  events: {
    'order.created': Order,
    'order.updated': Order,
    'order.paid': Order,
    'order.fulfilled': Order,
    'order.cancelled': Order,
    // SPEC 6.1 names it; nothing emits it until checkout exists.
    'checkout.completed': Order,
  },
  migrations: [
    { id: 'orders/001_orders', sql: migration001 },
    { id: 'orders/002_currency_minor_units', sql: migration002 },
    { id: 'orders/003_line_variant', sql: migration003 },
  ],
  requires: ['inventory', 'customers'],
  actions: {
    list_orders: action({
      kind: 'read',
      description: 'List orders, newest first, optionally filtered by status.',
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
      description: 'Place an order for active products; the total is computed and stock is taken atomically.',
      input: OrderCreate,
      output: Order,
      rest: { method: 'POST', path: '/orders', status: 201 },
      emits: ['order.created'],
      errors: ['insufficient_stock'],
      handler: createOrder,
    }),
    update_order: action({
      kind: 'write',
      description: 'Move an order along its lifecycle (pending -> paid -> fulfilled -> completed) or change its payment method.',
      input: OrderUpdate,
      output: Order,
      rest: { method: 'PATCH', path: '/orders/:id' },
      emits: ['order.updated', 'order.paid', 'order.fulfilled', 'order.cancelled'],
      handler: updateOrder,
    }),
    cancel_order: action({
      kind: 'destructive',
      description: 'Cancel a pending or paid order and put its stock back.',
      input: OrderId,
      output: Order,
      rest: { method: 'POST', path: '/orders/:id/cancel' },
      emits: ['order.updated', 'order.cancelled'],
      handler: (ctx, { id }) => cancelOrder(ctx, id),
    }),
  },
});
