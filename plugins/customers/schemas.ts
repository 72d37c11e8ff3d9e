import { Type } from '@sinclair/typebox';
import { DateRange, Input, ListOf, ListParams, Metadata, MetadataFilter, MetadataPatch, Timestamp, Uuid } from '../../core/sdk';

/**
 * Text PostgreSQL can store: no U+0000 (text and jsonb refuse it) and no lone UTF-16 surrogate
 * (jsonb refuses the `\ud800` escape JSON.stringify writes for one). Refusing both here makes such
 * input a 400 naming the field instead of a 500 from the database. Matched per UTF-16 code unit.
 */
const SAFE_TEXT = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$';
const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates', description });

/** The WHATWG form-validation address syntax, plus a dot in the domain (no bare `user@localhost`). */
const EMAIL =
  "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$";
export const Email = Type.String({
  maxLength: 254,
  pattern: EMAIL,
  errorMessage: 'must be an email address',
  description: 'Email address; unique in the store, compared case-insensitively.',
});

/**
 * E.164-ish: a leading +, a country code not starting with 0, 7 to 15 digits in all, with the
 * common separators (space . - parentheses) tolerated; it is stored as bare E.164 (+14155550100).
 */
const Phone = Type.String({
  maxLength: 40,
  pattern: '^\\+[1-9](?:[ .()-]{0,2}[0-9]){6,14}$',
  errorMessage: 'must be a phone number in international form, e.g. +1 415 555 0100',
  description: 'Phone in international form, e.g. +1 415 555 0100; stored as E.164 (+14155550100).',
});

const Tags = Type.Array(Text(100), { maxItems: 50, description: 'Up to 50 labels of at most 100 characters; duplicates are dropped.' });

const AddressInput = Input({
  name: Type.Optional(Text(200)),
  company: Type.Optional(Text(200)),
  line1: Text(200),
  line2: Type.Optional(Text(200)),
  city: Type.Optional(Text(100)),
  state: Type.Optional(Text(100)),
  postal_code: Type.Optional(Text(20)),
  country: Type.Optional(
    Type.String({
      pattern: '^[A-Z]{2}$',
      errorMessage: 'must be a two-letter ISO 3166-1 country code in capitals, e.g. US',
      description: 'ISO 3166-1 alpha-2 code, e.g. US',
    }),
  ),
});
const Addresses = Type.Array(AddressInput, { maxItems: 10, description: 'Up to 10 addresses; the first is the default.' });

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

const SpendInCurrency = Type.Object({
  currency: Type.String(),
  orders_count: Type.Integer(),
  total_spent: Type.Number(),
  average_order_value: Type.Number(),
});

export const Enrichment = Type.Object({
  orders_count: Type.Integer({ description: 'Orders of this customer that were not cancelled.' }),
  total_spent: Type.Number({ description: "Sum of those orders' totals in `currency`, exact to the cent." }),
  average_order_value: Type.Number({ description: 'total_spent / orders in `currency`, rounded half up to the cent.' }),
  currency: Type.Union([Type.String(), Type.Null()], {
    description: 'Currency of the money figures: the one most of the orders use; null without orders.',
  }),
  by_currency: Type.Array(SpendInCurrency, { description: 'The same figures for every currency the customer ordered in.' }),
  first_order_at: Type.Union([Timestamp(), Type.Null()]),
  last_order_at: Type.Union([Timestamp(), Type.Null()]),
  segments: Type.Array(Type.String(), {
    description: 'Segment hints: prospect, new, repeat, vip, lapsed (thresholds in plugins/customers/README.md).',
  }),
  enriched_at: Timestamp(),
});

const Address = Type.Object({
  name: Type.Optional(Type.String()),
  company: Type.Optional(Type.String()),
  line1: Type.String(),
  line2: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  postal_code: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
});

export const Customer = Type.Object({
  object: Type.Literal('customer'),
  id: Uuid(),
  email: Type.String(),
  first_name: Type.Union([Type.String(), Type.Null()]),
  last_name: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  accepts_marketing: Type.Boolean(),
  tags: Type.Array(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  addresses: Type.Array(Address),
  enrichment: Type.Union([Enrichment, Type.Null()]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const CustomerCreate = Input({
  email: Email,
  first_name: Type.Optional(Text(200)),
  last_name: Type.Optional(Text(200)),
  phone: Type.Optional(Phone),
  accepts_marketing: Type.Optional(Type.Boolean({ description: 'Consent to marketing email; default false.' })),
  tags: Type.Optional(Tags),
  metadata: Type.Optional(Metadata()),
  addresses: Type.Optional(Addresses),
});

export const CustomerUpdate = Input({
  id: Uuid('Customer id'),
  email: Type.Optional(Email),
  first_name: Type.Optional(Nullable(Text(200))),
  last_name: Type.Optional(Nullable(Text(200))),
  phone: Type.Optional(Nullable(Phone)),
  accepts_marketing: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Tags),
  metadata: Type.Optional(MetadataPatch()),
  addresses: Type.Optional(Addresses),
});

export const CustomerQuery = Input({
  ...ListParams,
  email: Type.Optional(
    Type.String({
      maxLength: 254,
      pattern: SAFE_TEXT,
      errorMessage: 'must not contain NUL characters or unpaired surrogates',
      description: 'Only the customer with this email (case-insensitive).',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: SAFE_TEXT,
      errorMessage: 'must not contain NUL characters or unpaired surrogates',
      description: 'Search: customers whose name (first, last, or "first last") or email contains this text, ignoring case.',
    }),
  ),
  metadata: Type.Optional(MetadataFilter()),
  created: Type.Optional(DateRange('Only customers created in this range: created[gte]=2026-04-01, created[lt]=... (any of gt, gte, lt, lte).')),
});

/** What delete_customer answers and customer.deleted carries: the id only, no personal data. */
export const CustomerDeleted = Type.Object({ object: Type.Literal('customer'), id: Uuid(), deleted: Type.Literal(true) });

export const CustomerId = Input({ id: Uuid('Customer id') });
export const CustomerList = ListOf(Customer);
