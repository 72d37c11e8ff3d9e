import { Type } from '@sinclair/typebox';
import { action, definePlugin, job, onFirstCall, type ActionsOf } from '../../core/sdk';
import migration001 from './migrations/001_rollups.sql' with { type: 'text' };
import migration002 from './migrations/002_customer_lifetimes.sql' with { type: 'text' };
import migration003 from './migrations/003_history.sql' with { type: 'text' };
import { CustomerQuery, CustomerReport, InventoryQuery, InventoryReport, SalesQuery, SalesReport } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { customerReport, inventoryReport, salesReport } = onFirstCall(() => import('./reports'));
const { backfill, onOrderEvent, sweep } = onFirstCall(() => import('./rollups'));

const PERIOD = "from/to are inclusive dates in the store's time zone (default the last 30 days); compare: true adds `previous`.";

const analytics = definePlugin({
  name: 'analytics',
  category: 'intelligence',
  description: "Sales, inventory and customer reports over the store's paid, fulfilled and completed orders, in its currency and time zone.",
  resource: 'report',
  catalog: true,
  // SPEC 5.4: analytics, analytics:read (reports only read).
  scopes: { read: ['analytics', 'analytics:read'], write: ['analytics'] },
  tables: [
    'analytics_rollup_state',
    'analytics_daily_sales',
    'analytics_daily_products',
    'analytics_monthly_products',
    'analytics_daily_customers',
    'analytics_monthly_customers',
    // Made by 002, dropped by 003 (the history rows replace it).
    'analytics_customers',
    'analytics_product_history',
    'analytics_customer_history',
    'analytics_cohorts',
  ],
  requires: ['store', 'products', 'orders'],
  migrations: [
    { id: 'analytics/001_rollups', sql: migration001 },
    { id: 'analytics/002_customer_lifetimes', sql: migration002 },
    { id: 'analytics/003_history', sql: migration003 },
  ],
  // The daily rollups (rollups.ts): each event recomputes the days it touches, so a replay changes nothing.
  on: {
    'order.created': (ctx, event) => onOrderEvent(ctx, [event.data.created_at, ...event.data.refunds.map((f) => f.created_at)]),
    'order.updated': (ctx, event) => onOrderEvent(ctx, [event.data.created_at, ...event.data.refunds.map((f) => f.created_at)]),
    'refund.created': (ctx, event) => onOrderEvent(ctx, [event.data.created_at]),
  },
  jobs: {
    backfill: job({
      description: "Rebuilds the store's daily rollups from its orders (queued when they are missing or cut in another time zone or currency).",
      input: Type.Object({}),
      handler: backfill,
    }),
    sweep: job({
      description: 'Backfills the daily rollups of stores that have none yet.',
      input: Type.Object({}),
      cron: '*/10 * * * *',
      handler: sweep,
    }),
  },
  actions: {
    sales_report: action({
      kind: 'read',
      description: `Sales: gross_sales, discounts, refunds (on their own date), net_sales, tax, shipping, total_sales, orders, average_order_value, top_products and a series by day, week (from Monday) or month (group_by). ${PERIOD}`,
      input: SalesQuery,
      output: SalesReport,
      rest: { method: 'GET', path: '/analytics/sales' },
      handler: salesReport,
    }),
    inventory_report: action({
      kind: 'read',
      description: `Stock: stock_value (on hand x retail), low_stock (at or below low_stock_threshold, default 5), and per product units_sold, sell_through_rate and days_of_cover. ${PERIOD}`,
      input: InventoryQuery,
      output: InventoryReport,
      rest: { method: 'GET', path: '/analytics/inventory' },
      handler: inventoryReport,
    }),
    customer_report: action({
      kind: 'read',
      description: `Customers: new and returning customers, average_lifetime_value, top_customers and monthly cohorts with retention. ${PERIOD}`,
      input: CustomerQuery,
      output: CustomerReport,
      rest: { method: 'GET', path: '/analytics/customers' },
      handler: customerReport,
    }),
  },
});
export default analytics;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'analytics', typeof analytics> {}
}
