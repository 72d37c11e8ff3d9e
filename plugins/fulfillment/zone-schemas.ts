import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Amount = (description: string) => Type.Number({ minimum: 0, maximum: 1e9, description });
const Days = (description: string) => Type.Integer({ minimum: 0, maximum: 365, description });
const Country = Type.String({ pattern: '^[A-Z]{2}$', errorMessage: 'must be a two-letter ISO 3166-1 country code in capitals, e.g. US' });

// A flat rate needs its amount, a by-weight one its bands: stated in the schema (if/then), as invoices' create does.
const METHOD_RULES = [
  { if: { properties: { rate_type: { const: 'flat' } } }, then: { required: ['amount'], errorMessage: 'a flat rate needs amount' } },
  {
    if: { properties: { rate_type: { const: 'by_weight' } } },
    then: { required: ['weight_rates'], errorMessage: 'a by_weight rate needs weight_rates' },
  },
];

const MethodInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, description: 'Shown to buyers: Standard, Express...' }),
    rate_type: Type.Union([Type.Literal('flat'), Type.Literal('by_weight')], { description: 'flat (amount) or by_weight (weight_rates).' }),
    amount: Type.Optional(Amount('The price of a flat rate, in the store currency.')),
    weight_rates: Type.Optional(
      Type.Array(Input({ up_to_grams: Type.Integer({ minimum: 1, maximum: 10_000_000 }), amount: Amount('The price up to this weight.') }), {
        minItems: 1,
        maxItems: 50,
        description: 'by_weight: the first band holding the cart weight applies; heavier than every band, not offered.',
      }),
    ),
    free_over_amount: Type.Optional(Amount('Free when the items (after discounts) come to at least this.')),
    min_days: Type.Optional(Days('Earliest delivery, in business days of the store timezone.')),
    max_days: Type.Optional(Days('Latest delivery, in business days of the store timezone.')),
  },
  { additionalProperties: false, allOf: METHOD_RULES },
);

const zoneFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  countries: Type.Array(Country, { maxItems: 250, description: 'ISO 3166-1 alpha-2 codes this zone ships to.' }),
  regions: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 200, description: 'Only these regions (states) of its countries.' }),
  postal_code_prefixes: Type.Array(Type.String({ minLength: 1, maxLength: 16 }), { maxItems: 500, description: 'Only postal codes starting so.' }),
  rest_of_world: Type.Boolean({ description: 'Every country no other zone names (one such zone per store; then no countries).' }),
  methods: Type.Array(MethodInput, { minItems: 1, maxItems: 20 }),
};

// Countries, or the rest of the world: stated in the schema (if/then).
const ZONE_RULES = [
  {
    if: { not: { required: ['rest_of_world'], properties: { rest_of_world: { const: true } } } },
    then: { required: ['countries'], properties: { countries: { minItems: 1 } }, errorMessage: 'name countries, or set rest_of_world: true' },
  },
];

export const ZoneCreate = Type.Object(
  {
    name: zoneFields.name,
    countries: Type.Optional(zoneFields.countries),
    regions: Type.Optional(zoneFields.regions),
    postal_code_prefixes: Type.Optional(zoneFields.postal_code_prefixes),
    rest_of_world: Type.Optional(zoneFields.rest_of_world),
    methods: zoneFields.methods,
  },
  { additionalProperties: false, allOf: ZONE_RULES },
);
export const ZoneUpdate = Input({
  id: Uuid(),
  name: Type.Optional(zoneFields.name),
  countries: Type.Optional(zoneFields.countries),
  regions: Type.Optional(zoneFields.regions),
  postal_code_prefixes: Type.Optional(zoneFields.postal_code_prefixes),
  rest_of_world: Type.Optional(zoneFields.rest_of_world),
  methods: Type.Optional(zoneFields.methods),
});
export const ZoneId = Input({ id: Uuid() });
export const ZoneQuery = Input({ ...ListParams });

export const ShippingMethod = Type.Object({
  id: Uuid(),
  name: Type.String(),
  rate_type: Type.String(),
  amount: Nullable(Type.Number()),
  weight_rates: Type.Array(Type.Object({ up_to_grams: Type.Integer(), amount: Type.Number() })),
  free_over_amount: Nullable(Type.Number()),
  min_days: Nullable(Type.Integer()),
  max_days: Nullable(Type.Integer()),
});
export const ShippingZone = Type.Object({
  object: Type.Literal('shipping_zone'),
  id: Uuid(),
  name: Type.String(),
  countries: Type.Array(Type.String()),
  regions: Type.Array(Type.String()),
  postal_code_prefixes: Type.Array(Type.String()),
  rest_of_world: Type.Boolean(),
  currency: Type.String({ description: "The store's currency when the zone was made: its amounts are in it." }),
  methods: Type.Array(ShippingMethod),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const ZoneList = ListOf(ShippingZone);
