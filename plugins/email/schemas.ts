import { Type } from '@sinclair/typebox';
import { Email, Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

/** Limits of one message and one template (README, Email: limits). */
export const LIMITS = {
  recipients: 50,
  subject: 998, // RFC 5322's line limit: a longer subject cannot be one header line
  body: 256 * 1024,
  // Decoded bytes, all attachments together; the whole request stays under the API's 1 MiB body limit.
  attachmentsTotal: 512 * 1024,
  attachments: 10,
};

const SAFE_TEXT = '^(?:[^\\u0000\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$';
const SafeText = (opts: { minLength?: number; maxLength: number; description?: string }) =>
  Type.String({ ...opts, pattern: SAFE_TEXT, errorMessage: 'must not contain NUL characters or unpaired surrogates' });

export const CATEGORIES = ['transactional', 'marketing'] as const;
const Category = Type.Union(
  CATEGORIES.map((c) => Type.Literal(c)),
  { description: 'transactional (default) or marketing; marketing mail must carry {{unsubscribe_url}} and gets List-Unsubscribe headers.' },
);
const Slug = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9]+(?:[-_][a-z0-9]+)*$',
  errorMessage: 'must be lower-case letters and digits, in words joined by single hyphens or underscores (e.g. order-confirmation)',
  description: 'Unique in the store, e.g. order-confirmation.',
});
const Variables = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'Template variables: customer.name, customer.email, order.number, order.total, order.items (each name, quantity, price), store.name, store.url; unsubscribe_url is filled in by svc.',
});

export const Template = Type.Object({
  object: Type.Literal('email_template'),
  id: Uuid(),
  name: Type.String(),
  slug: Type.String(),
  category: Type.String(),
  subject: Type.String(),
  html: Type.String(),
  text: Type.String(),
  version: Type.Integer({ description: '1 on create; every change to subject, html or text makes n+1.' }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const TemplateList = ListOf(Template);

const templateFields = {
  name: SafeText({ minLength: 1, maxLength: 200 }),
  slug: Slug,
  category: Type.Optional(Category),
  subject: SafeText({ minLength: 1, maxLength: LIMITS.subject, description: 'Handlebars, rendered as plain text.' }),
  html: SafeText({ maxLength: LIMITS.body, description: 'Handlebars; variables are HTML-escaped.' }),
  text: SafeText({ minLength: 1, maxLength: LIMITS.body, description: 'The plain-text part; required for every template.' }),
};
export const TemplateCreate = Input(templateFields);
export const TemplateUpdate = Input({
  id: Uuid('Template id'),
  name: Type.Optional(templateFields.name),
  slug: Type.Optional(templateFields.slug),
  category: Type.Optional(Category),
  subject: Type.Optional(templateFields.subject),
  html: Type.Optional(templateFields.html),
  text: Type.Optional(templateFields.text),
});
export const TemplateId = Input({ id: Uuid('Template id') });
export const TemplateQuery = Input({ ...ListParams });

export const TemplateVersion = Type.Object({
  object: Type.Literal('email_template_version'),
  template_id: Uuid(),
  version: Type.Integer(),
  subject: Type.String(),
  html: Type.String(),
  text: Type.String(),
  created_at: Timestamp(),
});
export const TemplateVersionList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(TemplateVersion),
  has_more: Type.Boolean(),
  url: Type.String(),
});

export const PreviewInput = Input({
  id: Uuid('Template id'),
  variables: Type.Optional(Variables),
  version: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'A past version; default the latest.' })),
  // An editor's unsaved text, rendered in place of the stored field (the console's live preview).
  subject: Type.Optional({ ...templateFields.subject, description: 'Unsaved subject to render instead of the stored one.' }),
  html: Type.Optional({ ...templateFields.html, description: 'Unsaved HTML to render instead of the stored one.' }),
  text: Type.Optional({ ...templateFields.text, description: 'Unsaved text to render instead of the stored one.' }),
});
export const Rendered = Type.Object({
  object: Type.Literal('rendered_template'),
  template_id: Uuid(),
  version: Type.Integer(),
  subject: Type.String(),
  html: Type.String(),
  text: Type.String(),
  missing_variables: Type.Array(Type.String(), { description: 'Variables the template uses that the input lacks.' }),
});
export const RenderInput = Input({
  template_id: Uuid('Template id'),
  variables: Type.Optional(Variables),
  version: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
});

const Address = Email();
export const Attachment = Type.Object(
  {
    filename: SafeText({ minLength: 1, maxLength: 255 }),
    content_type: Type.String({
      minLength: 3,
      maxLength: 255,
      pattern: '^[\\w.+-]+/[\\w.+-]+$',
      errorMessage: 'must be a media type such as application/pdf',
    }),
    content: Type.String({ maxLength: Math.ceil((LIMITS.attachmentsTotal * 4) / 3) + 4, description: 'The bytes, base64.' }),
  },
  { additionalProperties: false },
);

// Either a template or the content itself: stated in the schema (if/then), checked from it (issue 44).
const SEND_RULES = [
  {
    if: { not: { required: ['template_id'] } },
    then: {
      required: ['subject'],
      anyOf: [{ required: ['html'] }, { required: ['text'] }],
      errorMessage: 'give html or text (or both) without template_id',
    },
  },
  {
    if: { required: ['template_id'] },
    then: {
      properties: Object.fromEntries(
        ['subject', 'html', 'text'].map((k) => [
          k,
          { not: {}, errorMessage: 'give either template_id (with variables) or subject with html/text, not both' },
        ]),
      ),
    },
  },
];

export const SendInput = Type.Object(
  {
    to: Type.Union([Address, Type.Array(Address, { minItems: 1, maxItems: LIMITS.recipients })], {
      description: `One address or up to ${LIMITS.recipients}.`,
    }),
    template_id: Type.Optional(Uuid('Send this template (its latest version unless `version` is given).')),
    version: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Template version to use.' })),
    variables: Type.Optional(Variables),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 10 })),
    from: Type.Optional(
      Type.String({
        minLength: 3,
        maxLength: 320,
        description: "On a verified domain of the store, or the instance's SVC_EMAIL_FROM (the default).",
      }),
    ),
    subject: Type.Optional(templateFields.subject),
    html: Type.Optional(SafeText({ maxLength: LIMITS.body })),
    text: Type.Optional(SafeText({ maxLength: LIMITS.body })),
    reply_to: Type.Optional(Address),
    category: Type.Optional(Category),
    attachments: Type.Optional(Type.Array(Attachment, { maxItems: LIMITS.attachments })),
  },
  { additionalProperties: false, allOf: SEND_RULES },
);

export const MESSAGE_STATUSES = ['queued', 'sending', 'delivered', 'bounced', 'failed', 'suppressed'] as const;
export const Message = Type.Object({
  object: Type.Literal('email_message'),
  id: Uuid(),
  to: Type.Array(Type.String()),
  from: Type.String(),
  reply_to: Type.Union([Type.String(), Type.Null()]),
  subject: Type.String(),
  status: Type.String({ description: MESSAGE_STATUSES.join(', ') }),
  category: Type.String(),
  template_id: Type.Union([Uuid(), Type.Null()]),
  template_version: Type.Union([Type.Integer(), Type.Null()]),
  tags: Type.Array(Type.String()),
  smtp_response: Type.Union([Type.String(), Type.Null()]),
  warning: Type.Optional(Type.String({ description: 'Why the message cannot leave yet (a missing setting).' })),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});
export const MessageList = ListOf(Message);
export const MessageQuery = Input({
  ...ListParams,
  status: Type.Optional(Type.Union(MESSAGE_STATUSES.map((s) => Type.Literal(s)))),
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  to: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
});
export const MessageId = Input({ id: Uuid('Message id') });

/** The deliver job's input (delivery.ts): one queued message. */
export const DeliverInput = Type.Object({ message_id: Type.String() });
