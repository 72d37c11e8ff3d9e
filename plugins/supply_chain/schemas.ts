import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

const Name = (d: string) =>
  Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$', errorMessage: 'must be 1 to 200 characters, no NUL', description: d });
export const ShipmentStatus = Type.Union(
  ['pending', 'in_transit', 'delivered', 'exception'].map((s) => Type.Literal(s)),
  {
    description: 'pending, in_transit, delivered or exception.',
  },
);
export const PoStatus = Type.Union(['draft', 'sent', 'partially_received', 'received', 'cancelled'].map((s) => Type.Literal(s)));

export const Supplier = Type.Object({
  object: Type.Literal('supplier'),
  id: Uuid(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  phone: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const SupplierCreate = Input({
  name: Name('The supplier name.'),
  email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: 40, pattern: '^[0-9+() .-]+$', errorMessage: 'must be a phone number' })),
});
export const SupplierList = ListOf(Supplier);
export const ListQuery = Input({ ...ListParams });

export const Shipment = Type.Object({
  object: Type.Literal('shipment'),
  id: Uuid(),
  po_id: Uuid(),
  carrier: Type.String(),
  tracking_number: Type.String(),
  status: ShipmentStatus,
  occurred_at: Type.Union([Timestamp(), Type.Null()]),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const PurchaseOrder = Type.Object({
  object: Type.Literal('purchase_order'),
  id: Uuid(),
  supplier_id: Uuid(),
  location_id: Type.Union([Uuid(), Type.Null()]),
  status: PoStatus,
  currency: Type.String(),
  line_items: Type.Array(
    Type.Object({
      id: Uuid(),
      product_id: Uuid(),
      quantity: Type.Integer(),
      received_quantity: Type.Integer(),
      unit_cost: Type.Number(),
    }),
  ),
  total: Type.Number({ description: 'Sum of quantity x unit_cost, in the store currency.' }),
  shipments: Type.Array(Shipment),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const PoList = ListOf(PurchaseOrder);
export const PoQuery = Input({ ...ListParams, status: Type.Optional(PoStatus), supplier_id: Type.Optional(Uuid()) });
export const PoCreate = Input({
  supplier_id: Uuid('One of the store suppliers.'),
  location_id: Type.Optional(Uuid('Where received goods go (default: the store default location).')),
  line_items: Type.Array(
    Type.Object(
      {
        product_id: Uuid(),
        quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
        unit_cost: Type.Number({ minimum: 0, maximum: 1e9, description: 'Cost per unit, in the store currency.' }),
      },
      { additionalProperties: false },
    ),
    { minItems: 1, maxItems: 250 },
  ),
});
export const PoId = Input({ id: Uuid('Purchase order id') });
export const PoReceive = Input({
  id: Uuid('Purchase order id'),
  line_items: Type.Array(
    Type.Object({ line_item_id: Uuid(), quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }) }, { additionalProperties: false }),
    { minItems: 1, maxItems: 250, description: 'Units arrived per line; more than still outstanding is 409 and moves nothing.' },
  ),
});
export const TrackShipment = Input({
  po_id: Type.Optional(Uuid('New shipment: the purchase order it carries.')),
  carrier: Type.Optional(Name('New shipment: the carrier (e.g. ups).')),
  tracking_number: Type.Optional(Name('New shipment: the tracking number.')),
  id: Type.Optional(Uuid('Update: the shipment id.')),
  status: Type.Optional(ShipmentStatus),
});
