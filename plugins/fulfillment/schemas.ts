import { Type } from '@sinclair/typebox';
import { Input, Timestamp, Uuid, WebUrl } from '../../core/sdk';

export const FULFILLMENT_STATUSES = ['unfulfilled', 'partially_fulfilled', 'fulfilled'] as const;
export const FulfillmentStatus = Type.Union(
  FULFILLMENT_STATUSES.map((s) => Type.Literal(s)),
  { description: 'unfulfilled (no unit shipped), partially_fulfilled, or fulfilled (every unit not refunded shipped).' },
);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const FulfillmentLine = Type.Object({ line_item_id: Uuid(), quantity: Type.Integer() });

export const Fulfillment = Type.Object({
  object: Type.Literal('fulfillment'),
  id: Uuid(),
  order_id: Uuid(),
  carrier: Nullable(Type.String()),
  tracking_number: Nullable(Type.String()),
  tracking_url: Nullable(Type.String()),
  line_items: Type.Array(FulfillmentLine, { description: 'The units this shipment carries.' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

const Carrier = Type.String({ minLength: 1, maxLength: 100, description: 'Who carries it: UPS, DHL, La Poste...' });
const TrackingNumber = Type.String({ minLength: 1, maxLength: 200 });
const TrackingUrl = WebUrl('Where the customer follows the parcel (http or https).');

export const FulfillmentCreate = Input({
  order_id: Uuid('A paid order of this store.'),
  line_items: Type.Optional(
    Type.Array(
      Input({
        line_item_id: Uuid('A line of the order.'),
        quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
      }),
      { minItems: 1, maxItems: 500, description: 'The units shipped; left out: every unit left to fulfil.' },
    ),
  ),
  carrier: Type.Optional(Carrier),
  tracking_number: Type.Optional(TrackingNumber),
  tracking_url: Type.Optional(TrackingUrl),
});

export const TrackingUpdate = Input({
  id: Uuid('Fulfillment id'),
  carrier: Type.Optional(Type.Union([Carrier, Type.Null()])),
  tracking_number: Type.Optional(Type.Union([TrackingNumber, Type.Null()])),
  tracking_url: Type.Optional(Type.Union([TrackingUrl, Type.Null()])),
});

export const StatusQuery = Input({ order_id: Uuid('The order.') });

export const LineStatus = Type.Object({
  line_item_id: Uuid(),
  quantity: Type.Integer(),
  quantity_refunded: Type.Integer(),
  quantity_fulfilled: Type.Integer(),
  quantity_remaining: Type.Integer({ description: 'Units neither shipped nor refunded.' }),
});

export const Status = Type.Object({
  object: Type.Literal('fulfillment_status'),
  order_id: Uuid(),
  status: FulfillmentStatus,
  order_status: Type.String({ description: "The order's own status (paid, fulfilled, ...)." }),
  lines: Type.Array(LineStatus),
  fulfillments: Type.Array(Fulfillment, { description: 'Oldest first.' }),
});
