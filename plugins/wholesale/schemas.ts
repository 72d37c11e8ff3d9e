import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Group = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'A customer tag: customers whose tags hold it are in the group (e.g. wholesale).',
});
const Money = (description: string) => Type.Number({ minimum: 0, maximum: 1e12, description });

export const Price = Type.Object({
  object: Type.Literal('wholesale_price'),
  id: Uuid(),
  customer_group: Type.String(),
  product_id: Uuid(),
  variant_id: Type.Union([Uuid(), Type.Null()], { description: "null: the product's price (every variant without its own)." }),
  price: Type.Number(),
  currency: Type.String(),
  quantity_breaks: Type.Array(Type.Object({ min_quantity: Type.Integer(), price: Type.Number() })),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const SetPricing = Input({
  customer_group: Group,
  prices: Type.Array(
    Input({
      product_id: Uuid('A product of this store'),
      variant_id: Type.Optional(Uuid('One of its variants; left out, the price is for the product (all its variants without their own).')),
      price: Money("The group's unit price, in the product's currency."),
      quantity_breaks: Type.Optional(
        Type.Array(Input({ min_quantity: Type.Integer({ minimum: 2, maximum: 100000 }), price: Money('The unit price from this quantity on.') }), {
          maxItems: 20,
          description: 'Lower unit prices from a quantity on; the best one reached applies.',
        }),
      ),
    }),
    { minItems: 1, maxItems: 500 },
  ),
});

export const PricingSet = Type.Object({
  object: Type.Literal('wholesale_pricing'),
  customer_group: Type.String(),
  prices: Type.Array(Price),
});

export const PriceQuery = Input({
  ...ListParams,
  customer_group: Type.Optional(Group),
  product_id: Type.Optional(Uuid('Only prices of this product.')),
});
export const PriceList = ListOf(Price);

export const BulkOrder = Input({
  customer_id: Uuid("One of this store's customers; their groups' prices apply."),
  line_items: Type.Array(
    Input({
      sku: Type.String({ minLength: 1, maxLength: 100, description: 'The SKU of a product or variant.' }),
      quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
    }),
    { minItems: 1, maxItems: 500 },
  ),
  payment_method: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  discount_codes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 5 })),
});

/** The order as orders answers it (orders' own schema is its; this names what a client reads first). */
export const PlacedOrder = Type.Object(
  { object: Type.Literal('order'), id: Uuid(), order_number: Type.String(), status: Type.String(), total: Type.Number(), currency: Type.String() },
  { additionalProperties: true },
);
