import { Type, type TSchema } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid, WebUrl } from '../../core/sdk';
import { API_VERSIONS } from '../../core/platform';

// The registered plugins declare the event types, so the handler checks them against the registry,
// naming the bad entry (`events.2`) with the list of valid types; OpenAPI lists them under webhooks.
const EventType = Type.String({
  maxLength: 100,
  description: 'An event type, e.g. order.created (the list: OpenAPI `webhooks`), or `*` for every type, including types added later.',
});
// Room for every type the catalog declares (over 50 once the whole catalog is in), as Stripe lists all of its own.
const Events = Type.Array(EventType, { minItems: 1, maxItems: 256, description: 'Event types to receive; `["*"]` receives all.' });
const ApiVersion = Type.Union(
  API_VERSIONS.map((v) => Type.Literal(v)),
  { description: 'The API version whose shape event payloads are sent in (SPEC 9).' },
);
const Secret = Type.String({
  minLength: 16,
  maxLength: 200,
  pattern: '^[!-~]+$',
  errorMessage: 'must be visible ASCII characters only (no spaces)',
  description: 'Your own signing secret (16-200 visible ASCII characters); by default one is generated (whsec_...).',
});
const Url = WebUrl('HTTPS URL receiving the POSTs.', { httpsOnly: true });
const Description = Type.String({ maxLength: 500 });

export const WebhookEndpoint = Type.Object({
  object: Type.Literal('outbound_webhook_endpoint'),
  id: Uuid(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  signing_secret: Type.Optional(Type.String({ description: 'Returned by create and roll-secret only: keep it to verify deliveries.' })),
  api_version: Type.String({ description: 'The API version event payloads are shaped by: the X-API-Version of the create request, or the latest.' }),
  previous_secret_expires_at: Type.Union([Timestamp(), Type.Null()], {
    description: 'After a roll-secret: until when deliveries also carry a signature made with the replaced secret.',
  }),
  is_active: Type.Boolean(),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  total_delivered: Type.Integer(),
  total_failed: Type.Integer(),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const WebhookCreate = Input({
  url: Url,
  events: Events,
  description: Type.Optional(Description),
  secret: Type.Optional(Secret),
  api_version: Type.Optional(ApiVersion),
});

export const WebhookUpdate = Input({
  id: Uuid(),
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
  is_active: Type.Optional(Type.Boolean({ description: 'true re-enables an endpoint disabled after failures or a 410.' })),
  api_version: Type.Optional(ApiVersion),
});

/** Hours the replaced secret keeps signing beside the new one: 0 drops it at once, at most 7 days. */
export const MAX_OVERLAP_HOURS = 168;
export const WebhookRoll = Input({
  id: Uuid('Webhook endpoint id'),
  expires_in_hours: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_OVERLAP_HOURS,
      default: 24,
      description: 'How long the replaced secret keeps signing deliveries beside the new one, in hours (0 to 168, default 24; 0 ends it now).',
    }),
  ),
  secret: Type.Optional(Secret),
});

export const WebhookId = Input({ id: Uuid('Webhook endpoint id') });
export const WebhookQuery = Input({ ...ListParams });
export const WebhookList = ListOf(WebhookEndpoint);
export const WebhookDeleted = Type.Object({ object: Type.Literal('outbound_webhook_endpoint'), id: Uuid(), deleted: Type.Boolean() });

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const DeliveryAttempt = Type.Object({
  object: Type.Literal('webhook_delivery_attempt'),
  attempt: Type.Integer({ description: '1 for the first request, counting every retry and resend.' }),
  succeeded: Type.Boolean(),
  status_code: Nullable(Type.Integer()),
  duration_ms: Type.Integer(),
  response: Nullable(Type.String({ description: 'The first 500 characters of the answer.' })),
  error: Nullable(Type.String()),
  created_at: Timestamp(),
});

export const Delivery = Type.Object({
  object: Type.Literal('webhook_delivery'),
  id: Uuid(),
  endpoint_id: Uuid(),
  event_id: Type.String(),
  event_type: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  attempt: Type.Integer({ description: 'Attempts made so far.' }),
  status_code: Nullable(Type.Integer()),
  duration_ms: Nullable(Type.Integer()),
  response: Nullable(Type.String()),
  error: Nullable(Type.String()),
  next_retry_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  request_body: Nullable(
    Type.String({
      description: "The JSON body of the POST, the same bytes on every attempt (rendered for the endpoint's api_version).",
    }),
  ),
  attempts: Type.Array(DeliveryAttempt),
});

export const DeliveryQuery = Input({
  id: Uuid('Webhook endpoint id'),
  ...ListParams,
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
});
export const DeliveryList = ListOf(Delivery);
export const DeliveryRef = Input({ id: Uuid('Webhook endpoint id'), delivery_id: Uuid('Delivery id') });
export const Replayed = Type.Object({ object: Type.Literal('webhook_replay'), endpoint_id: Uuid(), replayed: Type.Integer() });
