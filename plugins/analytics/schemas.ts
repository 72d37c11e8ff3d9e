import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Input } from '../../core/sdk';

const DateText = (what: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', errorMessage: 'must be a date (YYYY-MM-DD)', description: what });
const period = {
  from: Type.Optional(DateText("First day of the period, inclusive, in the store's time zone (default: 29 days before `to`).")),
  to: Type.Optional(DateText("Last day of the period, inclusive, in the store's time zone (default: today there).")),
  compare: Type.Optional(Type.Boolean({ description: 'true adds `previous`: the same report for as many days just before.' })),
};
const GroupBy = Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('month')], {
  description: 'Buckets of `series`: day, week (from Monday) or month (default day).',
});

export const SalesQuery = Input({ ...period, group_by: Type.Optional(GroupBy) });
export const InventoryQuery = Input({
  ...period,
  low_stock_threshold: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'At or below this many units on hand a product is low on stock (default 5).' }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'How many products `products` lists, most sold first (default 100).' }),
  ),
});
export const CustomerQuery = Input({ ...period });
export type SalesInput = Static<typeof SalesQuery>;
export type InventoryInput = Static<typeof InventoryQuery>;
export type CustomerInput = Static<typeof CustomerQuery>;

const Money = (d: string) => Type.Number({ description: `${d}, in the store's currency.` });
const Period = { from: Type.String(), to: Type.String(), currency: Type.String() };

const salesFigures = {
  gross_sales: Money('Line totals before discounts and tax'),
  discounts: Money('Discount codes applied'),
  refunds: Money('Refunds made in the period (on their own date)'),
  net_sales: Money('gross_sales - discounts - refunds'),
  tax: Money('Tax charged'),
  shipping: Money('Shipping charged (orders carry none yet: 0)'),
  total_sales: Money('net_sales + tax + shipping'),
  orders: Type.Integer({ description: 'Counted orders (paid, fulfilled, completed) created in the period.' }),
  average_order_value: Money('(gross_sales - discounts) / orders; 0 without orders'),
};
const SalesBody = {
  ...Period,
  group_by: Type.String(),
  ...salesFigures,
  top_products: Type.Array(
    Type.Object({ product_id: Type.String(), name: Type.String(), units: Type.Integer(), net_sales: Money('After discounts, before tax') }),
  ),
  series: Type.Array(Type.Object({ bucket: Type.String({ description: 'First day of the bucket.' }), ...salesFigures })),
};
const withPrevious = <T extends Record<string, TSchema>>(object: string, body: T) =>
  Type.Object({ object: Type.Literal(object), ...body, previous: Type.Optional(Type.Object(body)) });
export const SalesReport = withPrevious('sales_report', SalesBody);

const InventoryBody = {
  ...Period,
  low_stock_threshold: Type.Integer(),
  stock_value: Money('Units on hand x retail price, over live products'),
  low_stock: Type.Array(Type.Object({ product_id: Type.String(), name: Type.String(), on_hand: Type.Integer() })),
  products: Type.Array(
    Type.Object({
      product_id: Type.String(),
      name: Type.String(),
      on_hand: Type.Integer(),
      units_sold: Type.Integer({ description: 'In the period.' }),
      sell_through_rate: Type.Number({ description: 'units_sold / (units_sold + on_hand), 0 to 1.' }),
      days_of_cover: Type.Union([Type.Number(), Type.Null()], {
        description: 'on_hand / units sold per day over the 30 days to `to`; null when none sold.',
      }),
    }),
  ),
};
export const InventoryReport = withPrevious('inventory_report', InventoryBody);

const CustomerBody = {
  ...Period,
  customers: Type.Integer({ description: 'Customers with a counted order in the period.' }),
  new_customers: Type.Integer({ description: 'Whose first counted order is in the period.' }),
  returning_customers: Type.Integer({ description: 'Who ordered in the period and before it.' }),
  average_lifetime_value: Money('Net sales of all their orders (to the end of the period), over customers with one'),
  top_customers: Type.Array(Type.Object({ customer_id: Type.String(), orders: Type.Integer(), lifetime_value: Money('Net sales') })),
  cohorts: Type.Array(
    Type.Object({
      cohort: Type.String({ description: 'YYYY-MM of the first counted order.' }),
      customers: Type.Integer(),
      retained: Type.Array(Type.Integer(), { description: 'Of them, how many ordered in each later month (first: the next one) up to `to`.' }),
    }),
  ),
};
export const CustomerReport = withPrevious('customer_report', CustomerBody);
