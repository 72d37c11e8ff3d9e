import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const RefundLine = Type.Object({
  line_item_id: Uuid(),
  quantity: Type.Integer(),
  amount: Type.Number({ description: 'What these units were sold for, in the order currency.' }),
});

export const Refund = Type.Object({
  object: Type.Literal('refund'),
  id: Uuid(),
  order_id: Uuid(),
  amount: Type.Number({ description: 'Money given back, in the order currency.' }),
  currency: Type.String(),
  reason: Type.Union([Type.String(), Type.Null()]),
  restock: Type.Boolean(),
  lines: Type.Array(RefundLine),
  created_at: Timestamp(),
});

export const RefundCreate = Input({
  id: Uuid('Order id'),
  amount: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description:
        'Money to give back, in the order currency with at most its decimals. Left out: the value of `lines`, or without lines everything not yet refunded (a full refund).',
    }),
  ),
  lines: Type.Optional(
    Type.Array(
      Input({
        line_item_id: Uuid('A line item of this order'),
        quantity: Type.Integer({ minimum: 1, maximum: 100000, description: 'Units of that line refunded, at most those not refunded yet.' }),
      }),
      { minItems: 1, maxItems: 100, description: 'The units refunded; `amount` defaults to what they were sold for.' },
    ),
  ),
  restock: Type.Optional(
    Type.Boolean({ description: 'Put the refunded units back in stock where they were taken from (default false). Needs `lines` or a full refund.' }),
  ),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why, for the books (e.g. damaged in transit).' })),
});

export const RefundQuery = Input({ id: Uuid('Order id'), ...ListParams });
export const RefundList = ListOf(Refund);
