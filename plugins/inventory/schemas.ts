import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

/** The largest product total products accept (products' Stock schema); kept here so adjustments cannot pass it. */
export const MAX_STOCK = 2_000_000_000;

/** PostgreSQL text cannot hold U+0000: refuse it here (400) instead of failing in the database (500). */
const NO_NUL = '^[^\\u0000]*$';

export const InventoryLevel = Type.Object({
  object: Type.Literal('inventory_level'),
  location_id: Uuid(),
  location_name: Type.String(),
  quantity: Type.Integer({ minimum: 0, description: 'Units on hand at this location.' }),
  updated_at: Timestamp(),
});

export const InventoryAdjustment = Type.Object({
  object: Type.Literal('inventory_adjustment'),
  id: Uuid(),
  product_id: Uuid(),
  variant_id: Type.Union([Uuid(), Type.Null()], { description: 'The variant whose stock moved; null for a product without variants.' }),
  location_id: Uuid(),
  type: Type.Union([Type.Literal('adjustment'), Type.Literal('transfer')]),
  delta: Type.Integer({ description: 'Units added (positive) or removed (negative) at the location.' }),
  quantity_after: Type.Integer({ description: "The location's level right after this change." }),
  reason: Type.Union([Type.String(), Type.Null()]),
  transfer_id: Type.Union([Uuid(), Type.Null()], { description: 'Shared by the two rows (out and in) of one transfer.' }),
  created_at: Timestamp(),
});

/** One product's stock across the store's locations (Shopify's InventoryItem with its InventoryLevels). */
export const InventoryItem = Type.Object({
  object: Type.Literal('inventory_item'),
  product_id: Uuid(),
  sku: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  total: Type.Integer({ description: "Units across all locations; always equals the product's stock_quantity." }),
  levels: Type.Array(InventoryLevel, {
    description: 'Locations where the product is stocked, default location first. A location_id filter narrows this to that location.',
  }),
  adjustments: Type.Optional(Type.Array(InventoryAdjustment, { description: 'Present only when include_adjustments was asked for.' })),
});

export const InventoryQuery = Input({
  ...ListParams,
  product_id: Type.Optional(Uuid('Only this product.')),
  location_id: Type.Optional(Uuid("Only products stocked at this location, with only that location's level.")),
});

export const InventoryGet = Input({
  product_id: Uuid('Product id'),
  include_adjustments: Type.Optional(Type.Boolean({ description: 'Add the 50 most recent manual adjustments and transfers, newest first.' })),
});

const VariantId = Type.Optional(Uuid('Required when the product has variants (type variable): the variant whose stock changes.'));

export const StockAdjust = Input({
  product_id: Uuid('The product whose stock changes.'),
  variant_id: VariantId,
  location_id: Type.Optional(Uuid("Where the stock changes; the store's default location when left out.")),
  delta: Type.Integer({
    minimum: -MAX_STOCK,
    maximum: MAX_STOCK,
    description: 'Units to add (positive) or remove (negative); not zero. Stock never goes below zero.',
  }),
  reason: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: NO_NUL,
      errorMessage: 'must not contain NUL characters',
      description: 'Why, kept in the history: e.g. received, correction, damaged, shrinkage, cycle_count, restock.',
    }),
  ),
});

export const StockTransfer = Input({
  product_id: Uuid('The product to move.'),
  variant_id: VariantId,
  from_location_id: Uuid('Location the units leave.'),
  to_location_id: Uuid('Location the units arrive at; must be active and differ from the source.'),
  quantity: Type.Integer({ minimum: 1, maximum: MAX_STOCK, description: 'Units to move.' }),
});

export const InventoryList = ListOf(InventoryItem);

/** What locations asks the ledger about one of its locations (the internal actions location_stock and vacate_location). */
export const LocationStockQuery = Input({ location_id: Uuid('A location of the store.') });
export const LocationStock = Type.Object({
  object: Type.Literal('location_stock'),
  location_id: Uuid(),
  units: Type.Integer({ minimum: 0, description: 'Units of live (not deleted) products held at the location.' }),
  products: Type.Integer({ minimum: 0, description: 'How many live products those units are of.' }),
});
export const LocationVacated = Type.Object({
  ...LocationStock.properties,
  vacated: Type.Boolean({
    description: "True when it held no live stock: its levels are gone, deleted products' units moved to the default location.",
  }),
});
