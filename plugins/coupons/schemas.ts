import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Money = (description: string) => Type.Number({ minimum: 0, maximum: 1e12, description });

export const CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$';

export const Coupon = Type.Object({
  object: Type.Literal('coupon'),
  id: Uuid(),
  code: Type.String(),
  percent_off: Nullable(Type.Number()),
  amount_off: Nullable(Type.Number()),
  currency: Nullable(Type.String()),
  minimum_subtotal: Nullable(Type.Number()),
  product_ids: Type.Array(Uuid()),
  collection_ids: Type.Array(Uuid()),
  starts_at: Nullable(Timestamp()),
  ends_at: Nullable(Timestamp()),
  usage_limit: Nullable(Type.Integer()),
  usage_limit_per_customer: Nullable(Type.Integer()),
  customer_id: Nullable(Type.String({ description: "Only this customer's orders may use it (a loyalty reward's coupon)." })),
  times_redeemed: Type.Integer({ description: 'Orders this coupon discounted.' }),
  active: Type.Boolean({ description: 'false once deactivated.' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

const Instant = (description: string) =>
  Type.String({ minLength: 1, maxLength: 40, description: `${description} ISO 8601, e.g. 2026-06-01T00:00:00Z.` });

export const CouponCreate = Input({
  code: Type.String({
    pattern: CODE_PATTERN,
    errorMessage: 'must be 1 to 50 letters, digits, _ or -, starting with a letter or digit',
    description: 'What shoppers type; unique in the store, ignoring case (SUMMER10 and summer10 are one code).',
  }),
  percent_off: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'A percentage off the eligible lines (0 < p ≤ 100).' })),
  amount_off: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, maximum: 1e12, description: 'A fixed amount off the eligible lines, in `currency`.' }),
  ),
  currency: Type.Optional(
    Type.String({
      pattern: '^[A-Z]{3}$',
      errorMessage: 'must be an ISO 4217 currency code, e.g. USD',
      description: 'Required with amount_off or minimum_subtotal.',
    }),
  ),
  minimum_subtotal: Type.Optional(Money('The order subtotal (before discounts) must reach this, in `currency`.')),
  product_ids: Type.Optional(Type.Array(Uuid(), { maxItems: 100, description: 'Only lines of these products are discounted.' })),
  collection_ids: Type.Optional(Type.Array(Uuid(), { maxItems: 100, description: 'Only lines of products in these collections are discounted.' })),
  starts_at: Type.Optional(Instant('Not valid before this instant.')),
  ends_at: Type.Optional(Instant('Not valid from this instant on.')),
  usage_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1e9, description: 'Orders it may discount in all.' })),
  usage_limit_per_customer: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1e9, description: 'Orders it may discount per customer; an order without a customer_id cannot use it.' }),
  ),
  customer_id: Type.Optional(Uuid("One of this store's customers: only that customer's orders may use the code.")),
});

export const LineItems = Type.Array(
  Input({
    product_id: Uuid('An active product of this store'),
    variant_id: Type.Optional(Uuid('Required when the product is variable.')),
    quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
  }),
  { minItems: 1, maxItems: 500 },
);

export const ValidateInput = Input({
  code: Type.String({ minLength: 1, maxLength: 50 }),
  line_items: LineItems,
  customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Counts against usage_limit_per_customer.' })),
});

export const REASON_CODES = [
  'unknown_code',
  'not_started',
  'expired',
  'inactive',
  'minimum_subtotal',
  'no_eligible_items',
  'usage_limit_reached',
  'customer_limit_reached',
] as const;

export const Validation = Type.Object({
  object: Type.Literal('coupon_validation'),
  code: Type.String(),
  coupon_id: Nullable(Uuid()),
  valid: Type.Boolean(),
  discount_amount: Type.Number({ description: 'What it takes off these lines (0 when not valid).' }),
  currency: Nullable(Type.String()),
  reason_code: Nullable(Type.Union(REASON_CODES.map((c) => Type.Literal(c)))),
  reason: Nullable(Type.String()),
});

export const CouponQuery = Input({
  ...ListParams,
  active: Type.Optional(Type.Boolean({ description: 'Only active (true) or deactivated (false) coupons.' })),
  code: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'The coupon with this code (ignoring case).' })),
});
export const CouponId = Input({ id: Uuid('Coupon id') });
export const CouponList = ListOf(Coupon);
