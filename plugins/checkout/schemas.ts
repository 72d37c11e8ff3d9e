import { Type } from '@sinclair/typebox';
import { Input, Timestamp, Uuid } from '../../core/sdk';
import { AddressInput } from '../orders/public';

const LineIn = Input({
  item_id: Uuid('A product id, or the variant id of a variable product.'),
  quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
});
const BuyerIn = Input({
  email: Type.Optional(Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', errorMessage: 'must be an email address' })),
  first_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  last_name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
});
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const changes = {
  line_items: Type.Optional(Type.Array(LineIn, { maxItems: 100, description: 'The whole cart (replaces the lines on update).' })),
  buyer: Type.Optional(Nullable(BuyerIn)),
  shipping_address: Type.Optional(Nullable(AddressInput)),
  billing_address: Type.Optional(Nullable(AddressInput)),
  shipping_option_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'One of shipping_options[].id.' }))),
  discount_codes: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
      maxItems: 5,
      description: 'Applied in order; one that does not apply is left out with a warning.',
    }),
  ),
};
export const SessionCreate = Input(changes);
export const SessionUpdate = Input({ id: Uuid(), ...changes });
export const SessionId = Input({ id: Uuid() });
export const SessionComplete = Input({
  id: Uuid(),
  payment: Type.Optional(
    Input({
      handler: Type.Optional(Type.Union([Type.Literal('manual'), Type.Literal('stripe')])),
      token: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'A Stripe Shared Payment Token or PaymentMethod id.' })),
    }),
  ),
});

const Money = Type.Number();
const Message = Type.Object({
  type: Type.String(),
  code: Type.String(),
  path: Type.Optional(Type.String()),
  content: Type.String(),
  severity: Type.String(),
});
/** A session as svc's REST shows it: the engine's, with decimal amounts. */
export const Session = Type.Object({
  object: Type.Literal('checkout_session'),
  id: Uuid(),
  status: Type.String({ description: 'incomplete, ready_for_complete, requires_escalation, completed or canceled.' }),
  channel: Type.String(),
  currency: Type.String(),
  line_items: Type.Array(
    Type.Object({
      id: Type.String(),
      item_id: Type.String(),
      product_id: Type.String(),
      variant_id: Type.Union([Type.String(), Type.Null()]),
      title: Type.String(),
      quantity: Type.Integer(),
      available: Type.Integer(),
      unit_price: Money,
      subtotal: Money,
      discount: Money,
      tax: Money,
      total: Money,
    }),
  ),
  shipping_options: Type.Array(
    Type.Object({
      id: Type.String(),
      title: Type.String(),
      amount: Money,
      earliest_delivery_time: Type.Union([Timestamp(), Type.Null()]),
      latest_delivery_time: Type.Union([Timestamp(), Type.Null()]),
    }),
  ),
  shipping_option_id: Type.Union([Type.String(), Type.Null()]),
  discount_codes: Type.Array(Type.String()),
  discounts: Type.Array(Type.Object({ code: Type.String(), amount: Money })),
  totals: Type.Object({ subtotal: Money, discount: Money, shipping: Money, tax: Money, total: Money }),
  messages: Type.Array(Message),
  continue_url: Type.Union([Type.String(), Type.Null()]),
  order_id: Type.Union([Uuid(), Type.Null()]),
  expires_at: Timestamp(),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

/**
 * The engine as one internal action (`checkout.run_engine`, engine-action.ts), reached only by ctx.call.
 */
export const EngineCall = Input({
  op: Type.Union(['create', 'get', 'update', 'complete', 'cancel', 'quote'].map((o) => Type.Literal(o))),
  agent: Type.Object({
    protocol: Type.Union([Type.Literal('api'), Type.Literal('ucp'), Type.Literal('acp')]),
    profile_url: Type.Optional(Type.String()),
    api_key_id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
  }),
  id: Type.Optional(Type.String({ maxLength: 100 })),
  changes: Type.Optional(Type.Object({}, { additionalProperties: true })),
  payment: Type.Optional(Type.Object({}, { additionalProperties: true })),
});
export const EngineResult = Type.Object({}, { additionalProperties: true, description: "The engine's session (engine.ts Session)." });
