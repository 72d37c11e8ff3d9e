import { Type, type Static } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'contains', 'in', 'exists'] as const;

const Condition = Type.Object(
  {
    field: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'email, first_name, last_name, tags, accepts_marketing, created_at, metadata.<key>, or over counted orders: total_spent (net, store currency), orders_count, average_order_value, last_order_at.',
    }),
    operator: Type.Union(
      OPERATORS.map((o) => Type.Literal(o)),
      { description: 'eq, neq, gt, gte, lt, lte (numbers and dates), contains (text, tags), in (a list), exists (value true or false).' },
    ),
    value: Type.Optional(Type.Unknown({ description: 'What the field is compared with; a list for `in`; true or false for `exists`.' })),
    within_days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 3650, description: 'Order fields only: count orders of the last this many days.' }),
    ),
  },
  { additionalProperties: false },
);
export const Rules = Type.Object(
  {
    match: Type.Union([Type.Literal('all'), Type.Literal('any')], { description: 'all: every condition holds; any: at least one.' }),
    conditions: Type.Array(Condition, { minItems: 1, maxItems: 50 }),
  },
  { additionalProperties: false },
);
export type RulesT = Static<typeof Rules>;

export const Segment = Type.Object({
  object: Type.Literal('segment'),
  id: Uuid(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  rules: Rules,
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const SegmentCreate = Input({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  rules: Rules,
});
export const SegmentId = Input({ id: Uuid('Segment id') });
export const SegmentQuery = Input({ ...ListParams });
export const SegmentList = ListOf(Segment);
export const MembersQuery = Input({ id: Uuid('Segment id'), ...ListParams });

export const Member = Type.Object({
  object: Type.Literal('customer'),
  id: Uuid(),
  email: Type.Union([Type.String(), Type.Null()]),
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  accepts_marketing: Type.Boolean(),
  created_at: Timestamp(),
});
export const MemberList = ListOf(Member);
