import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

/** PostgreSQL text cannot hold U+0000: refuse it here (400) instead of failing in the database (500). */
const NO_NUL = '^[^\\u0000]*$';
const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: NO_NUL, errorMessage: 'must not contain NUL characters', description });
const Name = Text(200, 'Unique in the store, ignoring case; surrounding spaces are trimmed.');

/** Shopify's location address: only the country is required, so a warehouse can be named before it is fully described. */
export const AddressInput = Input({
  line1: Type.Optional(Text(200)),
  line2: Type.Optional(Text(200)),
  city: Type.Optional(Text(100)),
  region: Type.Optional(Text(100, 'State, province or region.')),
  postal_code: Type.Optional(Text(20)),
  country: Type.String({
    pattern: '^[A-Z]{2}$',
    errorMessage: 'must be a two-letter ISO 3166-1 country code in capitals, e.g. US',
    description: 'ISO 3166-1 alpha-2 code, e.g. US.',
  }),
});

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const Address = Type.Object({
  line1: Nullable(Type.String()),
  line2: Nullable(Type.String()),
  city: Nullable(Type.String()),
  region: Nullable(Type.String()),
  postal_code: Nullable(Type.String()),
  country: Type.String(),
});

export const Location = Type.Object({
  object: Type.Literal('location'),
  id: Uuid(),
  name: Type.String(),
  is_default: Type.Boolean({ description: 'The location new stock and orders use first; there is exactly one.' }),
  active: Type.Boolean({ description: 'Inactive locations receive no stock and orders do not take from them.' }),
  address: Type.Union([Address, Type.Null()]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const LocationQuery = Input({
  ...ListParams,
  active: Type.Optional(Type.Boolean({ description: 'Only active (true) or only inactive (false) locations.' })),
});

export const LocationCreate = Input({
  name: Name,
  address: Type.Optional(AddressInput),
});

export const LocationUpdate = Input({
  id: Uuid('Location id'),
  name: Type.Optional(Name),
  address: Type.Optional(Type.Union([AddressInput, Type.Null()], { description: 'Replaces the whole address; null clears it.' })),
  active: Type.Optional(
    Type.Boolean({
      description: 'false deactivates: refused for the default location and for a location still holding stock.',
    }),
  ),
});

export const LocationList = ListOf(Location);

export const LocationId = Input({ id: Uuid('Location id') });

/** What delete_location answers. */
export const LocationDeleted = Type.Object({ object: Type.Literal('location'), id: Uuid(), deleted: Type.Literal(true) });
