import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const CustomerId = Uuid("One of this store's customers.");

export const Entry = Type.Object({
  object: Type.Literal('loyalty_entry'),
  id: Uuid(),
  customer_id: Uuid(),
  points: Type.Integer({ description: 'Signed: earned (+) or spent or taken back (-).' }),
  kind: Type.Union(['earn', 'refund', 'redeem', 'manual'].map((k) => Type.Literal(k))),
  reason: Type.String(),
  order_id: Nullable(Uuid()),
  refund_id: Nullable(Uuid()),
  reward_id: Nullable(Uuid()),
  coupon_id: Nullable(Uuid()),
  created_at: Timestamp(),
});
export const EntryList = ListOf(Entry);

export const Balance = Type.Object({
  object: Type.Literal('loyalty_balance'),
  customer_id: Uuid(),
  points: Type.Integer({ description: "The sum of the customer's entries; never below zero." }),
});

export const Reward = Type.Object({
  object: Type.Literal('loyalty_reward'),
  id: Uuid(),
  name: Type.String(),
  points_cost: Type.Integer(),
  percent_off: Nullable(Type.Number()),
  amount_off: Nullable(Type.Number()),
  currency: Nullable(Type.String()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const RewardList = ListOf(Reward);

export const Program = Type.Object({
  object: Type.Literal('loyalty_program'),
  points_per_unit: Type.Integer({ description: 'Points earned per whole 1.00 of an order subtotal after discounts (no tax, no shipping).' }),
  currency: Type.String({ description: "The store's currency (its settings)." }),
  updated_at: Nullable(Timestamp()),
});

export const Redemption = Type.Object({
  object: Type.Literal('loyalty_redemption'),
  customer_id: Uuid(),
  reward_id: Uuid(),
  points_spent: Type.Integer(),
  balance: Type.Integer({ description: 'Points left after this redemption.' }),
  coupon_id: Uuid(),
  coupon_code: Type.String({ description: "A single-use code only this customer's orders can use." }),
  entry: Entry,
});

export const BalanceQuery = Input({ customer_id: CustomerId });
export const EntryQuery = Input({ ...ListParams, customer_id: CustomerId });
export const PointsAdd = Input({
  customer_id: CustomerId,
  points: Type.Integer({ minimum: -1e9, maximum: 1e9, description: 'Points to add (negative: take away; never below zero).' }),
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why: kept on the entry.' }),
});
export const RedeemInput = Input({ customer_id: CustomerId, reward_id: Uuid('The reward to buy with points.') });
export const RewardCreate = Input({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  points_cost: Type.Integer({ minimum: 1, maximum: 1e9 }),
  percent_off: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, description: 'A percentage off an order (0 < p ≤ 100).' })),
  amount_off: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e9, description: "An amount off an order, in the store's currency." })),
});
export const RewardQuery = Input({ ...ListParams });
export const ProgramUpdate = Input({
  points_per_unit: Type.Integer({ minimum: 0, maximum: 10000, description: 'Points per whole 1.00 spent; 0 stops earning.' }),
});
