import { Type } from '@sinclair/typebox';
import { DateRange, Input, ListOf, ListParams, Metadata, MetadataFilter, MetadataPatch, Timestamp, Uuid } from '../../core/sdk';
import { Address, AddressInput } from './addresses';
import { Refund } from './refund-schemas';
import { Fulfillment, FulfillmentStatusSchema } from '../fulfillment/public';

export const ORDER_STATUSES = ['pending', 'paid', 'fulfilled', 'completed', 'cancelled'] as const;
const Status = Type.Union(ORDER_STATUSES.map((s) => Type.Literal(s)));

export const CHANNELS = ['api', 'ucp', 'acp'] as const;
const Channel = Type.Union(
  CHANNELS.map((c) => Type.Literal(c)),
  { description: "Where the order came from: 'api' (REST, MCP, the console), or the agentic protocol its checkout spoke (ucp, acp)." },
);
export const Agent = Type.Object({
  protocol: Type.String({ description: 'ucp, acp, or api (a checkout session opened through REST).' }),
  profile_url: Type.Optional(Type.String({ description: "A UCP agent's profile URL." })),
  api_key_id: Type.Optional(Type.String({ description: 'The API key an ACP agent (or a REST checkout) authenticated with.' })),
  name: Type.Optional(Type.String()),
});
const AgentInput = Input({
  protocol: Type.Union([Type.Literal('api'), Type.Literal('ucp'), Type.Literal('acp')]),
  profile_url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
  api_key_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const LineItem = Type.Object({
  object: Type.Literal('line_item'),
  id: Uuid(),
  product_id: Uuid(),
  variant_id: Type.Union([Uuid(), Type.Null()], { description: 'The variant sold, for a variable product; null otherwise.' }),
  name: Type.String(),
  sku: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Integer(),
  unit_price: Type.Number(),
  total: Type.Number(),
  quantity_refunded: Type.Integer({ description: 'Units of this line refunded so far.' }),
  discount: Type.Number({ description: 'What the discount codes took off this line.' }),
  tax: Type.Number({ description: "This line's tax, on its amount after discounts." }),
});

const Discount = Type.Object({ code: Type.String(), amount: Type.Number() });
const TaxLine = Type.Object({
  rate_id: Uuid(),
  name: Type.String(),
  percentage: Type.Number(),
  amount: Type.Number(),
});

export const Order = Type.Object({
  object: Type.Literal('order'),
  id: Uuid(),
  order_number: Type.String(),
  status: Type.String(),
  currency: Type.String(),
  total: Type.Number({ description: 'subtotal - discount_total + tax_total + shipping_total (tax not added again when prices include it).' }),
  subtotal: Type.Number({ description: 'The lines at their unit prices, before discounts.' }),
  discounts: Type.Array(Discount, { description: 'Each discount code applied, in the order given, and what it took.' }),
  discount_total: Type.Number(),
  tax_lines: Type.Array(TaxLine, { description: 'Tax per rate, as computed when the order was placed.' }),
  tax_total: Type.Number(),
  prices_include_tax: Type.Boolean({ description: "Whether the lines' prices included their tax (the store setting when the order was placed)." }),
  customer_id: Type.Union([Type.String(), Type.Null()]),
  payment_method: Type.Union([Type.String(), Type.Null()]),
  line_items: Type.Array(LineItem),
  shipping_address: Type.Union([Address, Type.Null()]),
  billing_address: Type.Union([Address, Type.Null()]),
  customer_note: Type.Union([Type.String(), Type.Null()]),
  merchant_note: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Record(Type.String(), Type.String()),
  amount_refunded: Type.Number({ description: 'Sum of the refunds, in the order currency; never more than total.' }),
  refunds: Type.Array(Refund, { description: 'Refunds of this order, oldest first.' }),
  fulfillment_status: FulfillmentStatusSchema,
  fulfillments: Type.Array(Fulfillment, { description: 'Shipments of this order (the fulfillment tool), oldest first.' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  cancelled_at: Type.Union([Timestamp(), Type.Null()]),
  cancel_reason: Type.Union([Type.String(), Type.Null()]),
  attribution: Type.Union([Type.Object({ qr_scan_id: Uuid() }), Type.Null()], {
    description: 'Where the order came from, as given on create (a QR scan: qr_scan_id); null when not given.',
  }),
  wallet_amount: Type.Number({ description: "Paid from the customer's store credit (wallet)." }),
  amount_due: Type.Number({ description: 'total - wallet_amount: what is left to pay by other means.' }),
  channel: Channel,
  agent: Type.Union([Agent, Type.Null()], { description: 'The shopping agent that placed the order through a checkout; null otherwise.' }),
  shipping_method: Type.Union([Type.String(), Type.Null()], { description: 'The shipping method sold with the order (a checkout), or null.' }),
  shipping_total: Type.Number({ description: 'What the shipping cost, part of total (untaxed).' }),
});

const Note = (description: string) => Type.String({ minLength: 1, maxLength: 5000, description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/** Addresses, notes and metadata: the same on create and update (where null clears). */
const details = {
  shipping_address: AddressInput,
  billing_address: AddressInput,
  customer_note: Note("The customer's note on the order (e.g. leave at the door)."),
  merchant_note: Note("The merchant's own note; not meant for the customer."),
};

export const OrderCreate = Input({
  customer_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "Id of one of this store's customers; another id is 404 resource_missing naming customer_id.",
    }),
  ),
  payment_method: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'e.g. card' })),
  // Additive (SPEC 9.5): an order whose payment was taken elsewhere (a till, a marketplace) is placed paid.
  status: Type.Optional(
    Type.Union([Type.Literal('pending'), Type.Literal('paid')], {
      description: "'pending' (default), or 'paid' when the payment was already taken.",
    }),
  ),
  line_items: Type.Array(
    Input({
      product_id: Uuid('An active product of this store'),
      variant_id: Type.Optional(Uuid('Required when the product is variable: which of its active variants.')),
      quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
    }),
    { minItems: 1, maxItems: 500 },
  ),
  discount_codes: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
      maxItems: 5,
      description:
        'Coupon codes, applied in this order, each to what the previous left. One that does not apply refuses the order: 409 coupon_not_applicable naming discount_codes.<n>.',
    }),
  ),
  shipping_address: Type.Optional(details.shipping_address),
  billing_address: Type.Optional(details.billing_address),
  customer_note: Type.Optional(details.customer_note),
  merchant_note: Type.Optional(details.merchant_note),
  metadata: Type.Optional(Metadata()),
  // Optional and additive (SPEC 9.5): orders placed without it are unchanged.
  attribution: Type.Optional(
    Input({ qr_scan_id: Uuid("The svc_scan value a QR code's redirect appended to the shop URL: the order counts as that scan's conversion.") }),
  ),
  channel: Type.Optional(Channel),
  agent: Type.Optional(AgentInput),
  shipping: Type.Optional(
    Type.Object(
      {
        method: Type.String({ minLength: 1, maxLength: 200, description: 'The shipping method, e.g. Standard.' }),
        amount: Type.Number({ minimum: 0, maximum: 1e12, description: 'Its price, added to the total (untaxed).' }),
      },
      { additionalProperties: false, description: 'Shipping sold with the order (the checkout engine sets it from the chosen option).' },
    ),
  ),
  wallet_amount: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1e12,
      description:
        "Pay this much from the customer's store credit (needs customer_id; at most the total). Too little credit: 409 insufficient_wallet_balance. Covering the total places the order paid.",
    }),
  ),
});

export const OrderUpdate = Input({
  id: Uuid(),
  status: Type.Optional(Status),
  payment_method: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  shipping_address: Type.Optional(Nullable(details.shipping_address)),
  billing_address: Type.Optional(Nullable(details.billing_address)),
  customer_note: Type.Optional(Nullable(details.customer_note)),
  merchant_note: Type.Optional(Nullable(details.merchant_note)),
  metadata: Type.Optional(MetadataPatch()),
});

const STATUS_LIST = `^(?:${ORDER_STATUSES.join('|')})(?:,(?:${ORDER_STATUSES.join('|')}))*$`;

export const OrderQuery = Input({
  ...ListParams,
  status: Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: STATUS_LIST,
      errorMessage: `must be one of: ${ORDER_STATUSES.join(', ')}, or several of them separated by commas`,
      description: 'Only orders in one of these statuses, comma-separated: status=paid,fulfilled.',
    }),
  ),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'Search by order number: 1001 or #1001 (exact).' })),
  created: Type.Optional(DateRange('Only orders placed in this range: created[gte]=2026-04-01, created[lt]=... (any of gt, gte, lt, lte).')),
  metadata: Type.Optional(MetadataFilter()),
  customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Only this customer's orders." })),
});
export const OrderId = Input({ id: Uuid('Order id') });
export const OrderCancel = Input({
  id: Uuid('Order id'),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why it was cancelled; kept on the order as cancel_reason.' })),
});
export const OrderList = ListOf(Order);
