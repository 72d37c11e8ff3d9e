import { Type } from '@sinclair/typebox';
import { DateRange, Input, ListOf, ListParams, Metadata, MetadataFilter, MetadataPatch, Timestamp, Uuid } from '../../core/sdk';

const Money = (description: string) => Type.Number({ minimum: 0, description });

const TaxClass = Type.String({
  minLength: 1,
  maxLength: 50,
  pattern: '^[a-z0-9_-]+$',
  errorMessage: 'must be lowercase letters, digits, _ or -, e.g. reduced',
  description: 'Which tax rates apply (tax rates have a tax_class); left out or null: standard.',
});

const PricingInput = Input({
  retail: Money("Selling price in the currency's major unit, with at most its decimals (USD 2, JPY 0, KWD 3)."),
  compare_at: Type.Optional(Money('Former price, shown struck through.')),
  currency: Type.Optional(
    Type.String({
      pattern: '^[A-Z]{3}$',
      errorMessage: 'must be an ISO 4217 currency code, e.g. USD',
      description: "ISO 4217 code; default: the store's currency setting (USD unless changed).",
    }),
  ),
});

export const ProductStatus = Type.Union([Type.Literal('draft'), Type.Literal('active')]);
export const ProductType = Type.Union([Type.Literal('simple'), Type.Literal('digital'), Type.Literal('variable')], {
  description: 'simple, digital, or variable (has options and variants, each with its own SKU, price and stock).',
});

/** Text PostgreSQL can store (no U+0000, no lone surrogate): a 400, never a 500. */
const SAFE_TEXT = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$';
const PlainText = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates', description });

export const MAX_OPTIONS = 3;
export const MAX_VARIANTS = 100;

const OptionValue = PlainText(100, 'One value of an option, e.g. M or red.');
export const ProductOption = Type.Object({ name: Type.String(), values: Type.Array(Type.String()) });
const OptionsInput = Type.Array(
  Input({
    name: PlainText(50, 'Option name, e.g. size or colour; unique in the product, ignoring case.'),
    values: Type.Array(OptionValue, { minItems: 1, maxItems: MAX_VARIANTS }),
  }),
  { minItems: 1, maxItems: MAX_OPTIONS, description: `Up to ${MAX_OPTIONS} options of a variable product, each with its values.` },
);
const VariantOptions = Type.Record(Type.String(), OptionValue, {
  minProperties: 1,
  maxProperties: MAX_OPTIONS,
  description: 'The combination this variant is: one value for each of the product\'s options, e.g. {"size": "M", "colour": "red"}.',
});

export const Variant = Type.Object({
  object: Type.Literal('product_variant'),
  id: Uuid(),
  product_id: Uuid(),
  sku: Type.Union([Type.String(), Type.Null()]),
  options: Type.Record(Type.String(), Type.String()),
  price: Type.Number({ description: "In the product's currency." }),
  status: Type.String({ description: 'draft or active; only active variants can be ordered.' }),
  stock_quantity: Type.Integer({ description: 'Units across all locations (inventory ledger).' }),
  stock_status: Type.Union([Type.Literal('in_stock'), Type.Literal('out_of_stock')]),
  metadata: Type.Record(Type.String(), Type.String()),
  weight_grams: Type.Union([Type.Integer(), Type.Null()], { description: "Grams; null: the product's weight applies." }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const Product = Type.Object({
  object: Type.Literal('product'),
  id: Uuid(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  sku: Type.Union([Type.String(), Type.Null()]),
  type: Type.String(),
  status: Type.String({ description: 'draft, active, or archived (deleted products)' }),
  pricing_data: Type.Object({
    retail: Type.Number(),
    compare_at: Type.Union([Type.Number(), Type.Null()]),
    currency: Type.String(),
  }),
  stock_quantity: Type.Integer(),
  stock_status: Type.Union([Type.Literal('in_stock'), Type.Literal('out_of_stock')]),
  metadata: Type.Record(Type.String(), Type.String()),
  tax_class: Type.Union([Type.String(), Type.Null()], { description: 'Which tax rates apply; null: standard.' }),
  weight_grams: Type.Union([Type.Integer(), Type.Null()], { description: 'Grams, for shipping by weight; null: not given.' }),
  options: Type.Array(ProductOption, { description: "A variable product's options; empty for other types." }),
  variants: Type.Array(Variant, {
    description: "A variable product's live variants, oldest first; empty for other types. stock_quantity adds them up.",
  }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

const Sku = Type.String({ minLength: 1, maxLength: 100 });
const Name = Type.String({ minLength: 1, maxLength: 500 });
const Description = Type.String({ maxLength: 20000 });
const Stock = Type.Integer({ minimum: 0, maximum: 2_000_000_000 });

const VariantFields = {
  sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Unique among the store's live products and variants." })),
  price: Type.Optional(Money("Price in the product's currency; the product's retail price when left out.")),
  status: Type.Optional(ProductStatus),
  stock_quantity: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_000_000_000, description: 'Initial units, at the default location.' })),
  metadata: Type.Optional(Metadata()),
  weight_grams: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'Weight in grams (shipping by weight).' })),
};

export const VariantInput = Input({ options: VariantOptions, ...VariantFields });

export const ProductCreate = Input({
  name: Name,
  sku: Type.Optional(Sku),
  description: Type.Optional(Description),
  type: Type.Optional(ProductType),
  status: Type.Optional(ProductStatus),
  pricing_data: Type.Optional(PricingInput),
  stock_quantity: Type.Optional(Stock),
  metadata: Type.Optional(Metadata()),
  tax_class: Type.Optional(TaxClass),
  weight_grams: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'Weight in grams (shipping by weight).' })),
  options: Type.Optional(OptionsInput),
  variants: Type.Optional(
    Type.Array(VariantInput, {
      maxItems: MAX_VARIANTS,
      description: `A variable product\'s variants (up to ${MAX_VARIANTS}); left out, one per combination of the options is made.`,
    }),
  ),
});

export const ProductUpdate = Input({
  id: Uuid(),
  name: Type.Optional(Name),
  sku: Type.Optional(Type.Union([Sku, Type.Null()])),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  type: Type.Optional(ProductType),
  status: Type.Optional(ProductStatus),
  pricing_data: Type.Optional(
    Input({
      retail: Type.Optional(Money('New selling price.')),
      compare_at: Type.Optional(Type.Union([Money('New former price.'), Type.Null()])),
      currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', errorMessage: 'must be an ISO 4217 currency code, e.g. USD' })),
    }),
  ),
  stock_quantity: Type.Optional(Stock),
  metadata: Type.Optional(MetadataPatch()),
  tax_class: Type.Optional(Type.Union([TaxClass, Type.Null()])),
  weight_grams: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'Weight in grams (shipping by weight).' }), Type.Null()]),
  ),
});

export const ProductQuery = Input({
  ...ListParams,
  q: Type.Optional(PlainText(200, "Search: products whose name or SKU (or a variant's SKU) contains this text, ignoring case.")),
  sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the product with this SKU, or whose variant has it (exact).' })),
  type: Type.Optional(ProductType),
  collection_id: Type.Optional(Uuid('Only products in this collection.')),
  created: Type.Optional(DateRange('Only products created in this range: created[gte]=2026-04-01, created[lt]=... (any of gt, gte, lt, lte).')),
  metadata: Type.Optional(MetadataFilter()),
  status: Type.Optional(
    Type.Union([ProductStatus, Type.Literal('archived')], { description: 'Filter by status; archived products are listed only when asked for.' }),
  ),
});

export const ProductId = Input({ id: Uuid('Product id') });
export const ProductList = ListOf(Product);
export const ProductDeleted = Type.Object({ object: Type.Literal('product'), id: Uuid(), deleted: Type.Boolean(), status: Type.String() });

export const VariantCreate = Input({ id: Uuid('Product id'), options: VariantOptions, ...VariantFields });
export const VariantId = Input({ id: Uuid('Product id'), variant_id: Uuid('Variant id') });
export const VariantUpdate = Input({
  id: Uuid('Product id'),
  variant_id: Uuid('Variant id'),
  sku: Type.Optional(Type.Union([Sku, Type.Null()])),
  price: Type.Optional(Money('New price.')),
  status: Type.Optional(ProductStatus),
  stock_quantity: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_000_000_000, description: "New total; the default location's level changes." }),
  ),
  metadata: Type.Optional(MetadataPatch()),
  weight_grams: Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'Weight in grams (shipping by weight).' }), Type.Null()]),
  ),
});
export const VariantList = ListOf(Variant);
export const VariantDeleted = Type.Object({ object: Type.Literal('product_variant'), id: Uuid(), product_id: Uuid(), deleted: Type.Literal(true) });
