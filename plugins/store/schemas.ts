import { Type } from '@sinclair/typebox';
import { Input, Timestamp, Uuid } from '../../core/sdk';

const Text = (maxLength: number, description?: string) => Type.String({ minLength: 1, maxLength, description });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const StoreAddressInput = Input({
  line1: Text(200, 'Street and number.'),
  line2: Type.Optional(Text(200)),
  city: Text(100),
  region: Type.Optional(Text(100, 'State, province or county.')),
  postal_code: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 16,
      pattern: '^[A-Za-z0-9](?:[A-Za-z0-9 -]*[A-Za-z0-9])?$',
      errorMessage: 'must be a postal code (letters, digits, spaces and hyphens)',
    }),
  ),
  country: Type.String({ pattern: '^[A-Z]{2}$', errorMessage: 'must be a two-letter ISO 3166-1 country code in capitals, e.g. US' }),
});
const StoreAddress = Type.Object({
  line1: Type.String(),
  line2: Type.Optional(Type.String()),
  city: Type.String(),
  region: Type.Optional(Type.String()),
  postal_code: Type.Optional(Type.String()),
  country: Type.String(),
});

export const Settings = Type.Object({
  currency: Type.String({ description: 'ISO 4217; the default of new products, and the currency of loyalty and reports.' }),
  timezone: Type.String({ description: 'IANA time zone, e.g. Europe/Berlin (default UTC).' }),
  address: Nullable(StoreAddress),
  contact_email: Nullable(Type.String()),
  website_url: Nullable(Type.String()),
  order_number_prefix: Type.String({ description: 'Put before every new order number (e.g. SHOP- gives SHOP-1001); empty by default.' }),
  invoice_prefix: Type.String({ description: 'Put before every invoice number (default INV-).' }),
  prices_include_tax: Type.Boolean({ description: 'Product prices already include tax (amount × p / (100 + p) of each line is tax).' }),
  phone_number: Nullable(
    Type.String({
      description: "The store's own number of the Twilio account: calls and SMS replies come from it (null: the instance's TWILIO_PHONE_NUMBER).",
    }),
  ),
  hostnames: Type.Array(Type.String(), {
    description: "Hostnames this store answers on for the agentic endpoints (UCP, ACP): a request's Host picks the store.",
  }),
});

export const StoreInfo = Type.Object({
  object: Type.Literal('store'),
  id: Uuid(),
  name: Type.String(),
  plan: Type.String(),
  settings: Settings,
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const SettingsUpdate = Input({
  name: Type.Optional(Text(200, "The store's name.")),
  currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217 code, e.g. EUR.' })),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. America/New_York.' })),
  address: Type.Optional(Nullable(StoreAddressInput)),
  contact_email: Type.Optional(
    Nullable(Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', errorMessage: 'must be an email address' })),
  ),
  website_url: Type.Optional(Nullable(Type.String({ maxLength: 2000, pattern: '^https?://[^\\s/]+', errorMessage: 'must be an http(s) URL' }))),
  order_number_prefix: Type.Optional(Type.String({ maxLength: 20, pattern: '^[A-Za-z0-9#_-]*$', errorMessage: 'letters, digits, #, _ and - only' })),
  invoice_prefix: Type.Optional(Type.String({ maxLength: 20, pattern: '^[A-Za-z0-9#_/-]*$', errorMessage: 'letters, digits, #, _, / and - only' })),
  prices_include_tax: Type.Optional(Type.Boolean()),
  phone_number: Type.Optional(
    Nullable(
      Type.String({
        pattern: '^\\+[1-9][0-9]{6,14}$',
        errorMessage: 'must be a phone number in E.164 form (+15551234567)',
        description: "A number of the store's Twilio account (E.164) calls and SMS replies come from; null: the instance's TWILIO_PHONE_NUMBER.",
      }),
    ),
  ),
  hostnames: Type.Optional(
    Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 253,
        pattern: '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$',
        errorMessage: 'must be a hostname such as shop.example.com (no scheme, port or path)',
      }),
      {
        maxItems: 20,
        description: 'Replaces the hostnames the store claims (unique across the instance: 409 hostname_taken); [] releases them.',
      },
    ),
  ),
});

const Limit = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description: `${description} (null: unlimited).` });
export const PlanInfo = Type.Object({
  object: Type.Literal('plan'),
  name: Type.String(),
  limits: Type.Object({
    requests_per_minute: Limit('API requests per minute'),
    burst_per_second: Limit('API requests per second'),
    emails_per_hour: Limit('Emails sent per hour'),
    workflow_runs_per_hour: Limit('Workflow runs started per hour'),
    media_upload_bytes: Limit('Largest media upload, in bytes'),
    media_storage_bytes: Limit("All of the store's media, in bytes"),
  }),
});
