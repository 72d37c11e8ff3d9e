import { action, conflict, definePlugin, onFirstCall, type ActionsOf } from '../../core/sdk';
import migration001 from './migrations/001_tax.sql' with { type: 'text' };
import { Calculation, CalculateInput, Rate, RateCreate, RateDeleted, RateId, RateList, RateQuery, RateUpdate, Report, ReportInput } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { calculateTax } = onFirstCall(() => import('./calculate'));
const { createRate, deleteRate, getRate, listRates, updateRate } = onFirstCall(() => import('./rates'));
const { taxReport } = onFirstCall(() => import('./report'));

let places = 0;

const tax = definePlugin({
  name: 'tax',
  category: 'commerce',
  description: 'Sales tax: rates by country, region and postal prefix per tax class, the tax of an order, and a report of tax collected.',
  resource: 'tax rate',
  catalog: true,
  // SPEC 5.4 lists commerce and commerce:read; writes (the rates) take commerce:write, as email did.
  scopes: { read: ['commerce', 'commerce:read', 'commerce:write'], write: ['commerce', 'commerce:write'] },
  tables: ['tax_rates', 'tax_entries'],
  // products prices lines; coupons applies discount codes before tax; store says whether prices include it.
  requires: ['products', 'coupons', 'store'],
  events: { 'tax_rate.created': Rate, 'tax_rate.updated': Rate, 'tax_rate.deleted': Rate },
  errors: {
    rate_exists: conflict('Another rate covers the same place and tax class: rates never stack.'),
    coupon_not_applicable: conflict(
      "A discount code does not apply; `param` names it (discount_codes.<n>), the message gives coupons.validate's reason.",
    ),
  },
  migrations: [{ id: 'tax/001_tax', sql: migration001 }],
  actions: {
    calculate_tax: action({
      kind: 'read',
      description:
        'The tax of line items shipped to an address, after optional discount_codes: per line, per rate (tax_lines), tax_total, subtotal and total. Nothing is written.',
      input: CalculateInput,
      output: Calculation,
      rest: { method: 'POST', path: '/tax/calculate' },
      errors: ['coupon_not_applicable'],
      example: async ({ make }) => ({
        line_items: [{ product_id: (await make('products.create_product')).id, quantity: 2 }],
        shipping_address: { country: 'US', region: 'CA', postal_code: '94103' },
      }),
      handler: calculateTax,
    }),
    list_rates: action({
      kind: 'read',
      description: 'List tax rates, newest first; filter by country or tax_class.',
      input: RateQuery,
      output: RateList,
      rest: { method: 'GET', path: '/tax/rates' },
      handler: listRates,
    }),
    get_rate: action({
      kind: 'read',
      description: 'Fetch one tax rate.',
      input: RateId,
      output: Rate,
      rest: { method: 'GET', path: '/tax/rates/:id' },
      handler: (ctx, { id }) => getRate(ctx, id),
    }),
    get_report: action({
      kind: 'read',
      description:
        'Tax collected per rate between two dates (inclusive, store timezone): taxable_amount, tax_amount and orders, of paid, fulfilled and completed orders by the day placed; refunds subtract their share on their own day.',
      input: ReportInput,
      output: Report,
      rest: { method: 'GET', path: '/tax/report' },
      example: { from: '2026-01-01', to: '2026-12-31' },
      handler: taxReport,
    }),
    create_rate: action({
      kind: 'write',
      description:
        'Add a tax rate: name, country, optional region and postal_code_prefix, percentage, tax_class (default standard). The most specific matching rate applies; rates never stack, so give a place its combined rate.',
      input: RateCreate,
      output: Rate,
      rest: { method: 'POST', path: '/tax/rates', status: 201 },
      emits: ['tax_rate.created'],
      errors: ['rate_exists'],
      // A new place each time: one rate per place and class.
      example: async () => ({
        name: 'Sweep tax',
        country: 'US',
        postal_code_prefix: `9${++places}${crypto
          .randomUUID()
          .slice(0, 5)
          .replace(/[^0-9a-z]/g, '1')}`,
        percentage: 7.25,
      }),
      handler: createRate,
    }),
    update_rate: action({
      kind: 'write',
      description: 'Change a tax rate. Orders already placed keep the tax they were charged.',
      input: RateUpdate,
      output: Rate,
      rest: { method: 'PATCH', path: '/tax/rates/:id' },
      emits: ['tax_rate.updated'],
      errors: ['rate_exists'],
      example: { percentage: 8.5 },
      handler: updateRate,
    }),
    delete_rate: action({
      kind: 'destructive',
      description: 'Delete a tax rate. Orders already placed keep the tax they were charged.',
      input: RateId,
      output: RateDeleted,
      rest: { method: 'DELETE', path: '/tax/rates/:id' },
      emits: ['tax_rate.deleted'],
      handler: (ctx, { id }) => deleteRate(ctx, id),
    }),
  },
});
export default tax;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'tax', typeof tax> {}
}
