import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const ORDER_STATUSES = ['pending', 'paid', 'fulfilled', 'completed', 'cancelled'] as const;
const Status = Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)));

export const LineItem = Type.Object({
  object: Type.Literal('line_item'),
  id: Uuid(),
  product_id: Uuid(),
  variant_id: Type.Union([Uuid(), Type.Null()], { description: 'The variant sold, for a variable product; null otherwise.' }),
  name: Type.String(),
  sku: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Integer(),
  unit_price: Type.Number(),
  total: Type.Number(),
});

export const Order = Type.Object({
  object: Type.Literal('order'),
  id: Uuid(),
  order_number: Type.String(),
  status: Type.String(),
  currency: Type.String(),
  total: Type.Number(),
  customer_id: Type.Union([Type.String(), Type.Null()]),
  payment_method: Type.Union([Type.String(), Type.Null()]),
  line_items: Type.Array(LineItem),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  cancelled_at: Type.Union([Timestamp(), Type.Null()]),
});

export const OrderCreate = Input({
  customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Id of one of this store\'s customers; another id is 404 resource_missing naming customer_id.' })),
  payment_method: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'e.g. card' })),
  line_items: Type.Array(
    Input({
      product_id: Uuid('An active product of this store'),
      variant_id: Type.Optional(Uuid('Required when the product is variable: which of its active variants.')),
      quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
    }),
    { minItems: 1, maxItems: 100 },
  ),
});

export const OrderUpdate = Input({
  id: Uuid(),
  status: Type.Optional(Status),
  payment_method: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
});

export const OrderQuery = Input({
  ...ListParams,
  status: Type.Optional(Status),
  customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this customer\'s orders.' })),
});
export const OrderId = Input({ id: Uuid('Order id') });
export const OrderList = ListOf(Order);
