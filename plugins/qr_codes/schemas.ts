import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid, WebUrl, When } from '../../core/sdk';

export const QR_TYPES = ['product', 'coupon', 'landing_page', 'custom'] as const;
export const QR_STATUSES = ['active', 'deactivated', 'expired', 'maxed_out'] as const;
const Literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

export const CODE_PATTERN = '^[A-Za-z0-9_-]{1,64}$';
const Code = (description: string) => Type.String({ pattern: CODE_PATTERN, errorMessage: 'must be 1 to 64 letters, digits, _ or -', description });
const Hex = (description: string) =>
  Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', errorMessage: 'must be a hex color such as #1a73e8', description });
const Url = (description: string) => WebUrl(description);
const Text = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const CampaignName = Type.String({ minLength: 1, maxLength: 100, description: 'Groups codes for campaign analytics.' });

const landingFields = {
  title: Text(200, 'Headline of the landing page.'),
  description: Text(2000, 'Body text.'),
  image_url: Url('An http(s) image shown on the page.'),
  cta_text: Text(100, 'Label of the call-to-action button.'),
  cta_url: Url('Where the call-to-action leads (http or https); following it counts as a conversion.'),
  background_color: Hex('Page background.'),
  text_color: Hex('Text color.'),
  accent_color: Hex('Button color.'),
};
type LandingKey = keyof typeof landingFields;
export const LANDING_KEYS = Object.keys(landingFields) as LandingKey[];

export const LandingPage = Type.Object(Object.fromEntries(LANDING_KEYS.map((k) => [k, Type.Optional(Type.String())])) as Record<LandingKey, any>, {
  description: 'The page a landing_page code shows.',
});
const LandingInput = Input(Object.fromEntries(LANDING_KEYS.map((k) => [k, Type.Optional(landingFields[k])])) as any);
/** On update a subfield set to null is cleared; the others are kept. */
const LandingPatch = Input(Object.fromEntries(LANDING_KEYS.map((k) => [k, Type.Optional(Nullable(landingFields[k]))])) as any);

const editable = {
  destination_url: Url('Redirect target (http or https, no user:password@). Required for product, coupon and custom codes.'),
  brand_color: Hex('Color of the modules; too light a color to scan on white is refused.'),
  logo_url: Url('A PNG logo (http or https, at most 256 KB) put in the centre; fetched once and kept.'),
  campaign_name: CampaignName,
  expires_at: Type.String({ maxLength: 40, description: 'ISO 8601; after it the code stops redirecting.' }),
  max_scans: Type.Integer({ minimum: 1, maximum: 2_000_000_000, description: 'Scans allowed; the scan that reaches it is the last to redirect.' }),
  expired_message: Text(1000, 'Shown instead of redirecting once the code is expired, maxed out or deactivated.'),
  track_conversions: Type.Boolean({
    description: 'Append svc_scan=<scan id> to the destination so an order can be attributed to the scan (default true).',
  }),
};

export const QrCode = Type.Object({
  object: Type.Literal('qr_code'),
  id: Uuid(),
  code: Type.String(),
  type: Literals(QR_TYPES),
  status: Literals(QR_STATUSES),
  destination_url: Nullable(Type.String()),
  brand_color: Nullable(Type.String()),
  logo_url: Nullable(Type.String()),
  campaign_name: Nullable(Type.String()),
  expires_at: Nullable(Timestamp()),
  max_scans: Nullable(Type.Integer()),
  total_scans: Type.Integer(),
  remaining: Nullable(Type.Integer({ description: 'max_scans minus total_scans; null without max_scans.' })),
  expired_message: Nullable(Type.String()),
  landing_page: Nullable(LandingPage),
  track_conversions: Type.Boolean(),
  image_url: Type.String(),
  scan_url: Type.String(),
  created_at: Timestamp(),
  updated_at: Timestamp(),
  image: Type.Optional(
    Type.Object(
      { object: Type.Literal('image'), mime_type: Type.String(), data: Type.String({ description: 'base64' }) },
      { description: 'The image, when include_image asked for it (MCP clients get it as image content).' },
    ),
  ),
});

// What each type needs, stated in the schema (if/then) and checked from it (issue 44).
export const QrCreate = Type.Object(
  {
    code: Type.Optional(Code('Unique across the instance; generated when omitted.')),
    type: Literals(QR_TYPES),
    ...Object.fromEntries(Object.entries(editable).map(([k, v]) => [k, Type.Optional(v)])),
    landing_page: Type.Optional(LandingInput),
  } as any,
  {
    additionalProperties: false,
    allOf: [
      When('type', ['product', 'coupon', 'custom'], { required: ['destination_url'] }),
      When('type', ['landing_page'], { required: ['landing_page'], properties: { landing_page: { required: ['title'] } } }),
    ],
  },
);

export const QrUpdate = Input({
  code: Code('The code to change.'),
  ...Object.fromEntries(Object.entries(editable).map(([k, v]) => [k, Type.Optional(k === 'track_conversions' ? v : Nullable(v as any))])),
  landing_page: Type.Optional(Nullable(LandingPatch)),
  status: Type.Optional(
    Type.Literal('active', { description: 'Reactivate a deactivated, expired or maxed-out code (with a new expires_at or max_scans as needed).' }),
  ),
} as any);

export const QrCodeRef = Input({ code: Code('The code.') });
export const QrGet = Input({
  code: Code('The code.'),
  include_image: Type.Optional(Type.Boolean({ description: 'Add the PNG image (base64; MCP: image content).' })),
});
export const QrImageQuery = Input({
  code: Code('The code.'),
  size: Type.Optional(Type.Integer({ minimum: 64, maximum: 2048, description: 'Pixels per side (default 300).' })),
  format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('svg')], { description: 'png (default) or svg.' })),
});
export const QrQuery = Input({
  ...ListParams,
  status: Type.Optional(Literals(QR_STATUSES)),
  type: Type.Optional(Literals(QR_TYPES)),
  campaign_name: Type.Optional(CampaignName),
});
export const QrList = ListOf(QrCode);

const Day = (description: string) =>
  Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', errorMessage: 'must be a date such as 2026-04-01', description });
const range = {
  from: Type.Optional(Day('First UTC day (default: 29 days before to).')),
  to: Type.Optional(Day('Last UTC day, inclusive (default: today). At most 366 days after from.')),
};
export const QrAnalyticsQuery = Input({ code: Code('The code.'), ...range });
export const CampaignAnalyticsQuery = Input({ campaign_name: CampaignName, ...range });

const Counts = Type.Record(Type.String(), Type.Integer());
export const Analytics = Type.Object({
  object: Type.Literal('qr_analytics'),
  code: Nullable(Type.String({ description: 'The code; null for a campaign.' })),
  campaign_name: Nullable(Type.String()),
  from: Type.String(),
  to: Type.String(),
  total_scans: Type.Integer(),
  unique_scans: Type.Integer(),
  by_city: Counts,
  by_device: Counts,
  by_day: Type.Array(Type.Object({ date: Type.String(), scans: Type.Integer() })),
  conversions: Type.Integer({ description: 'Scans that led to an order or a followed call-to-action.' }),
  conversion_rate: Type.Number({ description: 'conversions / total_scans, a fraction (0 without scans).' }),
});

/** A public scan: the code, and anything else a printed URL may carry (utm_* parameters) is let through. */
export const ScanInput = Type.Object(
  {
    code: Type.String({ description: 'The code (an unknown one is a 404 page).' }),
    scan: Type.Optional(Type.String({ description: 'The scan id (call-to-action).' })),
  },
  { additionalProperties: true },
);
export const Page = Type.Object({}, { description: 'A redirect or an HTML page.' });
