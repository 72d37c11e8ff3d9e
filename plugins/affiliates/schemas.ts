import { Type } from '@sinclair/typebox';
import { Email, Input, ListOf, ListParams, Timestamp, Uuid, When } from '../../core/sdk';

// A percentage is at most 100: stated in the schema (if/then), checked from it.
const PERCENT = [When('type', ['percentage'], { properties: { value: { maximum: 100 } } })];

const Kind = Type.Union([Type.Literal('percentage'), Type.Literal('fixed')]);
const Rule = (description: string) =>
  Type.Object(
    {
      type: Kind,
      value: Type.Number({ minimum: 0, maximum: 1e9, description: 'A percentage (0-100) or an amount in the store currency.' }),
    },
    { additionalProperties: false, description, allOf: PERCENT },
  );

export const Affiliate = Type.Object({
  object: Type.Literal('affiliate'),
  id: Uuid(),
  name: Type.String(),
  email: Type.String(),
  code: Type.String(),
  link: Type.String({ description: "Counts a click and redirects to the store's website_url with ?ref=<code>." }),
  commission: Type.Object({ type: Kind, value: Type.Number() }),
  product_commissions: Type.Array(Type.Object({ product_id: Uuid(), type: Kind, value: Type.Number() })),
  refund_window_days: Type.Integer(),
  clicks: Type.Integer(),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const AffiliateCreate = Input({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Email(),
  code: Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,49}$',
    errorMessage: 'must be 1 to 50 letters, digits, _ or -, starting with a letter or digit',
    description: 'The ref code in links; unique in the store, ignoring case.',
  }),
  commission: Rule('percentage: of the subtotal after discounts (no tax or shipping); fixed: an amount per order.'),
  product_commissions: Type.Optional(
    Type.Array(
      Type.Object(
        {
          product_id: Uuid(),
          type: Kind,
          value: Type.Number({ minimum: 0, maximum: 1e9, description: 'A percentage of its lines, or a fixed amount per unit.' }),
        },
        { additionalProperties: false, allOf: PERCENT },
      ),
      { maxItems: 200, description: "A product's own rule; it wins over commission for that product's lines." },
    ),
  ),
  refund_window_days: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 365, default: 30, description: 'Earnings stay pending this many days after the order (default 30).' }),
  ),
});

export const AffiliateQuery = Input({ ...ListParams, code: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })) });
export const AffiliateList = ListOf(Affiliate);
export const AffiliateId = Input({ id: Uuid('Affiliate id') });

export const Commission = Type.Object({
  object: Type.Literal('affiliate_commission'),
  id: Uuid(),
  affiliate_id: Uuid(),
  order_id: Uuid(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('payable'), Type.Literal('paid')]),
  earned: Type.Number({ description: 'What the order earned when attributed.' }),
  amount: Type.Number({ description: 'What it earns now: lowered by refunds in the window, 0 once cancelled.' }),
  currency: Type.String(),
  payable_at: Timestamp(),
  payout_id: Type.Union([Uuid(), Type.Null()]),
  created_at: Timestamp(),
});

export const Payout = Type.Object({
  object: Type.Literal('affiliate_payout'),
  id: Uuid(),
  affiliate_id: Uuid(),
  amount: Type.Number(),
  currency: Type.String(),
  created_at: Timestamp(),
});

export const Earnings = Type.Object({
  object: Type.Literal('affiliate_earnings'),
  affiliate_id: Uuid(),
  pending: Type.Number(),
  payable: Type.Number(),
  paid: Type.Number(),
  currency: Type.String(),
  commissions: Type.Array(Commission),
  payouts: Type.Array(Payout),
});

export const Attribution = Input({
  order_id: Uuid('The order to credit.'),
  code: Type.String({ minLength: 1, maxLength: 50, description: 'The ref code the shop received (?ref=).' }),
});

export const LinkInput = Type.Object({ store_id: Type.String(), code: Type.String() });
