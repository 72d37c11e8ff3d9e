import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid, When } from '../../core/sdk';

export const TEMPLATES = ['invoice', 'packing_slip', 'quote', 'custom'] as const;
const Template = Type.Union(
  TEMPLATES.map((t) => Type.Literal(t)),
  { description: 'invoice, packing_slip and quote are drawn by svc (the invoices’ PDF); custom prints your Handlebars HTML with Chromium.' },
);

const ExpiresIn = Type.Integer({
  minimum: 1,
  maximum: 604_800,
  description: 'The signed URL’s lifetime in seconds (default SVC_MEDIA_SIGNED_URL_TTL_S, 3600).',
});

// What the schema can state; "order_id or data" for the drawn templates is checked by the handler.
const CREATE_RULES = [
  When('template', ['custom'], { required: ['html'] }),
  When('template', ['invoice', 'packing_slip', 'quote'], {
    forbidden: {
      html: 'is for custom: invoice, quote and packing_slip are drawn by svc',
      landscape: 'is for custom: drawn templates are A4 portrait',
    },
  }),
];

export const DocumentCreate = Type.Object(
  {
    template: Template,
    order_id: Type.Optional(
      Uuid('Draw this order (invoice: its invoice, made if it has none). For custom, the order is `order` in the HTML’s data.'),
    ),
    data: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'Without order_id, what invoice, quote and packing_slip draw: {number?, customer?: {name, email, address}, currency?, lines: [{description, quantity, unit_price}], memo?, due_date?}. For custom, the values the HTML’s {{placeholders}} read.',
      }),
    ),
    html: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 500_000,
        description: 'custom only: a Handlebars template of the HTML page (scripts do not run; images load through the egress guard).',
      }),
    ),
    filename: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Of the PDF (default <template>-<number>.pdf).' })),
    landscape: Type.Optional(Type.Boolean({ description: 'custom only: A4 landscape (a CSS @page size wins).' })),
    expires_in: Type.Optional(ExpiresIn),
  },
  { additionalProperties: false, allOf: CREATE_RULES },
);

const Address = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    line1: Type.String({ minLength: 1, maxLength: 200 }),
    line2: Type.Optional(Type.String({ maxLength: 200 })),
    city: Type.String({ minLength: 1, maxLength: 100 }),
    region: Type.Optional(Type.String({ maxLength: 100 })),
    postal_code: Type.Optional(Type.String({ maxLength: 20 })),
    country: Type.String({ minLength: 2, maxLength: 60 }),
  },
  { additionalProperties: false },
);

/** What the drawn templates read from `data` (checked in the handler: custom's data is free). */
export const SheetData = Type.Object(
  {
    number: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    customer: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ maxLength: 200 })),
          email: Type.Optional(Type.String({ maxLength: 320 })),
          address: Type.Optional(Address),
        },
        { additionalProperties: false },
      ),
    ),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', errorMessage: 'must be an ISO 4217 currency code, e.g. USD' })),
    lines: Type.Array(
      Type.Object(
        {
          description: Type.String({ minLength: 1, maxLength: 200 }),
          quantity: Type.Integer({ minimum: 1, maximum: 100000 }),
          unit_price: Type.Optional(Type.Number({ minimum: 0, maximum: 1e9 })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 500 },
    ),
    memo: Type.Optional(Type.String({ maxLength: 1000 })),
    due_date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', errorMessage: 'must be a date, YYYY-MM-DD' })),
  },
  { additionalProperties: false },
);

export const Document = Type.Object({
  object: Type.Literal('document'),
  id: Uuid(),
  template: Template,
  number: Type.Union([Type.String(), Type.Null()], {
    description: 'The invoice’s number, Q-/PS- and the order number, data.number; null for custom.',
  }),
  order_id: Type.Union([Uuid(), Type.Null()]),
  media_id: Uuid('The private media asset holding the PDF.'),
  filename: Type.String(),
  content_type: Type.Literal('application/pdf'),
  size: Type.Integer({ description: 'Bytes.' }),
  url: Type.Union([Type.String(), Type.Null()], { description: 'A signed URL of the PDF; null once its media asset was deleted.' }),
  url_expires_at: Type.Union([Timestamp(), Type.Null()]),
  created_at: Timestamp(),
});

export const DocumentId = Input({ id: Uuid('Document id'), expires_in: Type.Optional(ExpiresIn) });
export const DocumentQuery = Input({
  ...ListParams,
  template: Type.Optional(Template),
  order_id: Type.Optional(Uuid('Only this order’s documents.')),
});
export const DocumentList = ListOf(Document);
