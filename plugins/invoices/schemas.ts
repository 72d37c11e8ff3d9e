import { Type } from '@sinclair/typebox';
import { Email, Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const Line = Type.Object({
  description: Type.String(),
  quantity: Type.Integer(),
  unit_price: Type.Number(),
  amount: Type.Number({ description: 'quantity × unit_price.' }),
});
const BillTo = Type.Object({
  name: Nullable(Type.String()),
  email: Nullable(Type.String()),
  address: Nullable(
    Type.Object({
      name: Type.Optional(Type.String()),
      line1: Type.String(),
      line2: Type.Optional(Type.String()),
      city: Type.String(),
      region: Type.Optional(Type.String()),
      postal_code: Type.Optional(Type.String()),
      country: Type.String(),
    }),
  ),
});

export const INVOICE_STATUSES = ['open', 'paid'] as const;
const Status = Type.Union(INVOICE_STATUSES.map((s) => Type.Literal(s)));

export const Invoice = Type.Object({
  object: Type.Literal('invoice'),
  id: Uuid(),
  number: Type.String({ description: "The store's invoice_prefix and a gapless six-digit sequence: INV-000001." }),
  status: Status,
  order_id: Nullable(Uuid()),
  customer_id: Nullable(Type.String()),
  bill_to: BillTo,
  currency: Type.String(),
  lines: Type.Array(Line),
  subtotal: Type.Number(),
  discounts: Type.Array(Type.Object({ code: Type.String(), amount: Type.Number() })),
  discount_total: Type.Number(),
  tax_lines: Type.Array(Type.Object({ name: Type.String(), percentage: Type.Number(), amount: Type.Number() })),
  tax_total: Type.Number(),
  prices_include_tax: Type.Boolean(),
  total: Type.Number(),
  amount_due: Type.Number({ description: 'total while open, 0 once paid.' }),
  memo: Nullable(Type.String()),
  due_at: Nullable(Timestamp()),
  paid_at: Nullable(Timestamp()),
  sent_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

// Either an order, or free lines for a customer: stated in the schema (if/then), as email's send is.
const CREATE_RULES = [
  {
    if: { not: { required: ['order_id'] } },
    then: { required: ['lines', 'customer_id'], errorMessage: 'give order_id, or lines with customer_id' },
  },
];

export const InvoiceCreate = Type.Object(
  {
    order_id: Type.Optional(Uuid('Invoice this order (one invoice per order): its lines, discounts, tax and customer.')),
    customer_id: Type.Optional(Uuid('Without order_id: the customer billed (required with lines).')),
    lines: Type.Optional(
      Type.Array(
        Input({
          description: Type.String({ minLength: 1, maxLength: 200 }),
          quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
          unit_price: Type.Number({ minimum: 0, maximum: 1e9, description: 'In `currency`.' }),
        }),
        { minItems: 1, maxItems: 500, description: 'Without order_id: what is billed (no tax is added to free lines).' },
      ),
    ),
    currency: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{3}$',
        errorMessage: 'must be an ISO 4217 currency code, e.g. USD',
        description: "Free lines' currency; default the store's.",
      }),
    ),
    due_at: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'When payment is due. ISO 8601.' })),
    memo: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A note printed on the invoice.' })),
  },
  { additionalProperties: false, allOf: CREATE_RULES },
);

export const InvoiceId = Input({ id: Uuid('Invoice id') });
export const InvoiceSend = Input({
  id: Uuid('Invoice id'),
  to: Type.Optional(Email('Recipient; default the billed email.')),
});
export const InvoiceQuery = Input({
  ...ListParams,
  status: Type.Optional(Status),
  order_id: Type.Optional(Uuid('The invoice of this order.')),
  customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Only this customer's invoices." })),
});
export const InvoiceList = ListOf(Invoice);
