import { Type } from '@sinclair/typebox';
import { Deleted, Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Country = Type.String({ pattern: '^[A-Z]{2}$', errorMessage: 'must be a two-letter ISO 3166-1 country code in capitals, e.g. US' });
const Region = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'State, province or county as addresses write it (e.g. CA); compared ignoring case.',
});
const PostalPrefix = Type.String({
  minLength: 1,
  maxLength: 16,
  pattern: '^[A-Za-z0-9 -]+$',
  errorMessage: 'must be letters, digits, spaces or hyphens',
  description: 'Postal codes starting with this (spaces and case ignored), e.g. 940 or SW1.',
});
const TaxClass = Type.String({ minLength: 1, maxLength: 50, pattern: '^[a-z0-9_-]+$', errorMessage: 'must be lowercase letters, digits, _ or -' });

export const Rate = Type.Object({
  object: Type.Literal('tax_rate'),
  id: Uuid(),
  name: Type.String(),
  country: Type.String(),
  region: Nullable(Type.String()),
  postal_code_prefix: Nullable(Type.String()),
  percentage: Type.Number(),
  tax_class: Type.String(),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const RateCreate = Input({
  name: Type.String({ minLength: 1, maxLength: 100, description: 'Shown on orders and invoices, e.g. "CA sales tax".' }),
  country: Country,
  region: Type.Optional(Region),
  postal_code_prefix: Type.Optional(PostalPrefix),
  percentage: Type.Number({
    minimum: 0,
    maximum: 100,
    description: 'e.g. 8.875; up to 4 decimals. Rates never stack: give a place one combined rate.',
  }),
  tax_class: Type.Optional(Type.String({ ...TaxClass, description: 'The products it applies to (their tax_class); default standard.' })),
});

export const RateUpdate = Input({
  id: Uuid('Tax rate id'),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  country: Type.Optional(Country),
  region: Type.Optional(Nullable(Region)),
  postal_code_prefix: Type.Optional(Nullable(PostalPrefix)),
  percentage: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  tax_class: Type.Optional(TaxClass),
});

export const RateQuery = Input({
  ...ListParams,
  country: Type.Optional(Country),
  tax_class: Type.Optional(TaxClass),
});
export const RateId = Input({ id: Uuid('Tax rate id') });
export const RateList = ListOf(Rate);
export const RateDeleted = Deleted;

export const AddressInput = Input({
  country: Country,
  region: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  postal_code: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
  line1: Type.Optional(Type.String({ maxLength: 200 })),
  city: Type.Optional(Type.String({ maxLength: 100 })),
});

export const CalculateInput = Input({
  line_items: Type.Array(
    Input({
      product_id: Uuid('An active product of this store'),
      variant_id: Type.Optional(Uuid('Required when the product is variable.')),
      quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
    }),
    { minItems: 1, maxItems: 500 },
  ),
  shipping_address: AddressInput,
  discount_codes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 5 })),
  prices_include_tax: Type.Optional(Type.Boolean({ description: "Default: the store's setting." })),
  customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'For discount codes limited per customer.' })),
});

const TaxLine = Type.Object({ rate_id: Uuid(), name: Type.String(), percentage: Type.Number(), amount: Type.Number() });

export const Calculation = Type.Object({
  object: Type.Literal('tax_calculation'),
  currency: Type.String(),
  prices_include_tax: Type.Boolean(),
  lines: Type.Array(
    Type.Object({
      product_id: Uuid(),
      variant_id: Nullable(Uuid()),
      quantity: Type.Integer(),
      amount: Type.Number({ description: 'Unit price × quantity.' }),
      discount: Type.Number(),
      taxable_amount: Type.Number({ description: 'The amount after discounts, which the tax is on.' }),
      tax: Type.Number(),
      rate_id: Nullable(Uuid()),
    }),
  ),
  tax_lines: Type.Array(TaxLine),
  subtotal: Type.Number(),
  discounts: Type.Array(Type.Object({ code: Type.String(), amount: Type.Number() })),
  discount_total: Type.Number(),
  tax_total: Type.Number(),
  total: Type.Number(),
});

const DateText = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', errorMessage: 'must be a date, YYYY-MM-DD', description });
export const ReportInput = Input({
  from: DateText("First day, inclusive, in the store's timezone."),
  to: DateText("Last day, inclusive, in the store's timezone."),
});
export const Report = Type.Object({
  object: Type.Literal('tax_report'),
  from: Type.String(),
  to: Type.String(),
  timezone: Type.String(),
  rates: Type.Array(
    Type.Object({
      rate_id: Uuid(),
      name: Type.String(),
      currency: Type.String(),
      taxable_amount: Type.Number(),
      tax_amount: Type.Number(),
      orders: Type.Integer({ description: 'Orders placed in the range that charged this rate.' }),
    }),
  ),
});
