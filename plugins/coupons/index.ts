import { action, conflict, definePlugin, onFirstCall, type ActionsOf } from '../../core/sdk';
import migration001 from './migrations/001_coupons.sql' with { type: 'text' };
import migration002 from './migrations/002_customer.sql' with { type: 'text' };
import { Coupon, CouponCreate, CouponId, CouponList, CouponQuery, ValidateInput, Validation } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createCoupon, deactivate, getCoupon, listCoupons, validate } = onFirstCall(() => import('./store'));

let codes = 0;

const coupons = definePlugin({
  name: 'coupons',
  category: 'commerce',
  description: 'Discount codes: percent or amount off, limited to products or collections, dates, a minimum subtotal and usage limits.',
  resource: 'coupon',
  catalog: true,
  // SPEC 5.4: commerce, commerce:read, commerce:write.
  scopes: { read: ['commerce', 'commerce:read', 'commerce:write'], write: ['commerce', 'commerce:write'] },
  tables: ['coupons', 'coupon_redemptions'],
  // products' public.ts prices lines and checks product_ids; collections' checks collection_ids and membership;
  // customers' checks customer_id.
  requires: ['products', 'collections', 'customers'],
  events: { 'coupon.created': Coupon, 'coupon.deactivated': Coupon },
  errors: { duplicate_code: conflict('Another coupon of this store has this code (codes ignore case).') },
  migrations: [
    { id: 'coupons/001_coupons', sql: migration001 },
    { id: 'coupons/002_customer', sql: migration002 },
  ],
  actions: {
    list_coupons: action({
      kind: 'read',
      description: 'List coupons, newest first; filter by active or code.',
      input: CouponQuery,
      output: CouponList,
      rest: { method: 'GET', path: '/coupons' },
      handler: listCoupons,
    }),
    get_coupon: action({
      kind: 'read',
      description: 'Fetch one coupon, with times_redeemed.',
      input: CouponId,
      output: Coupon,
      rest: { method: 'GET', path: '/coupons/:id' },
      handler: (ctx, { id }) => getCoupon(ctx, id),
    }),
    create_coupon: action({
      kind: 'write',
      description:
        'Create a discount code: percent_off, or amount_off with currency; optional minimum_subtotal, product_ids, collection_ids (then only those lines are discounted), starts_at, ends_at, usage_limit, usage_limit_per_customer, customer_id (only that customer may use it).',
      input: CouponCreate,
      output: Coupon,
      rest: { method: 'POST', path: '/coupons', status: 201 },
      emits: ['coupon.created'],
      errors: ['duplicate_code'],
      // A fresh code each time: codes are unique per store.
      example: async () => ({ code: `SAVE${++codes}${crypto.randomUUID().slice(0, 6)}`, percent_off: 10 }),
      handler: createCoupon,
    }),
    validate: action({
      kind: 'read',
      description:
        'Check a code against line items (and a customer_id, for per-customer limits) without using it: answers valid, the discount_amount, or a reason_code (unknown_code, not_started, expired, inactive, minimum_subtotal, no_eligible_items, usage_limit_reached, customer_limit_reached).',
      input: ValidateInput,
      output: Validation,
      rest: { method: 'POST', path: '/coupons/validate' },
      example: async ({ make }) => ({ code: 'ANY-CODE', line_items: [{ product_id: (await make('products.create_product')).id, quantity: 1 }] }),
      handler: validate,
    }),
    deactivate: action({
      kind: 'write',
      description: 'Deactivate a coupon: no order can use it from now on (final; orders that used it keep their discount).',
      input: CouponId,
      output: Coupon,
      rest: { method: 'POST', path: '/coupons/:id/deactivate' },
      emits: ['coupon.deactivated'],
      handler: (ctx, { id }) => deactivate(ctx, id),
    }),
  },
});
export default coupons;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'coupons', typeof coupons> {}
}
