import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Money = (description: string) => Type.Number({ minimum: 0, description });

const PricingInput = Input({
  retail: Money('Selling price in the currency\'s major unit, with at most its decimals (USD 2, JPY 0, KWD 3).'),
  compare_at: Type.Optional(Money('Former price, shown struck through.')),
  currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', errorMessage: 'must be an ISO 4217 currency code, e.g. USD', description: 'ISO 4217 code, default USD.' })),
});

export const ProductStatus = Type.Union([Type.Literal('draft'), Type.Literal('active')]);
export const ProductType = Type.Union([Type.Literal('simple'), Type.Literal('digital')]);

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
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

const Sku = Type.String({ minLength: 1, maxLength: 100 });
const Name = Type.String({ minLength: 1, maxLength: 500 });
const Description = Type.String({ maxLength: 20000 });
const Stock = Type.Integer({ minimum: 0, maximum: 2_000_000_000 });

export const ProductCreate = Input({
  name: Name,
  sku: Type.Optional(Sku),
  description: Type.Optional(Description),
  type: Type.Optional(ProductType),
  status: Type.Optional(ProductStatus),
  pricing_data: Type.Optional(PricingInput),
  stock_quantity: Type.Optional(Stock),
});

export const ProductUpdate = Input({
  id: Uuid(),
  name: Type.Optional(Name),
  sku: Type.Optional(Type.Union([Sku, Type.Null()])),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  type: Type.Optional(ProductType),
  status: Type.Optional(ProductStatus),
  pricing_data: Type.Optional(Input({
    retail: Type.Optional(Money('New selling price.')),
    compare_at: Type.Optional(Type.Union([Money('New former price.'), Type.Null()])),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', errorMessage: 'must be an ISO 4217 currency code, e.g. USD' })),
  })),
  stock_quantity: Type.Optional(Stock),
});

export const ProductQuery = Input({
  ...ListParams,
  status: Type.Optional(Type.Union([ProductStatus, Type.Literal('archived')], { description: 'Filter by status; archived products are listed only when asked for.' })),
});

export const ProductId = Input({ id: Uuid('Product id') });
export const ProductList = ListOf(Product);
export const ProductDeleted = Type.Object({ object: Type.Literal('product'), id: Uuid(), deleted: Type.Boolean(), status: Type.String() });
