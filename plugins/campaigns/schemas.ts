import { Type } from '@sinclair/typebox';
import { Input, ListOf, ListParams, Timestamp, Uuid } from '../../core/sdk';

export const STATUSES = ['scheduled', 'sending', 'paused', 'sent', 'cancelled'] as const;
const Status = Type.Union(
  STATUSES.map((s) => Type.Literal(s)),
  { description: 'scheduled, sending, paused, sent or cancelled.' },
);
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const Campaign = Type.Object({
  object: Type.Literal('campaign'),
  id: Uuid(),
  name: Type.String(),
  segment_id: Uuid(),
  template_id: Uuid(),
  from: Type.Union([Type.String(), Type.Null()], { description: "The sender; null: the instance's SVC_EMAIL_FROM." }),
  status: Status,
  send_at: Timestamp(),
  send_rate_per_minute: Type.Integer(),
  conversion_window_days: Type.Integer(),
  recipients: Type.Object(
    { total: Type.Integer(), pending: Type.Integer(), sent: Type.Integer(), skipped: Type.Integer() },
    {
      description: 'The audience, taken when sending starts (all 0 before): pending, sent, or skipped (no email, no marketing consent, suppressed).',
    },
  ),
  last_error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()], {
    description: 'Why sending paused by itself (a missing setting, a deleted template); resume once it is fixed.',
  }),
  started_at: Nullable(Timestamp()),
  finished_at: Nullable(Timestamp()),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const CampaignCreate = Input({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  segment_id: Uuid('The segment whose members receive it (evaluated when sending starts).'),
  template_id: Uuid('An email template of category marketing.'),
  send_at: Type.Optional(Type.String({ maxLength: 40, description: 'When to start: an ISO 8601 date-time with its zone, in the future.' })),
  send_now: Type.Optional(Type.Boolean({ description: 'true: start now (instead of send_at).' })),
  from: Type.Optional(
    Type.String({ minLength: 3, maxLength: 320, description: "On a verified domain of the store; default the instance's SVC_EMAIL_FROM." }),
  ),
  send_rate_per_minute: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100_000, description: "Messages a minute (default 600), at most the plan's email limit per hour." }),
  ),
  conversion_window_days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 90, description: 'Orders within this many days of an open or click count as conversions (default 5).' }),
  ),
});
export const CampaignId = Input({ id: Uuid('Campaign id') });
export const CampaignQuery = Input({ ...ListParams, status: Type.Optional(Status) });
export const CampaignList = ListOf(Campaign);

export const Metrics = Type.Object({
  object: Type.Literal('campaign_metrics'),
  campaign_id: Uuid(),
  status: Status,
  recipients: Type.Integer({ description: 'The audience taken when sending started.' }),
  sent: Type.Integer(),
  skipped: Type.Integer(),
  delivered: Type.Integer(),
  opened: Type.Integer({ description: 'Recipients who opened (machine opens left out) or clicked.' }),
  clicked: Type.Integer(),
  bounced: Type.Integer(),
  unsubscribed: Type.Integer(),
  conversions: Type.Integer({ description: "Recipients' counted orders within conversion_window_days of their first open or click." }),
  conversion_revenue: Type.Number({ description: 'Their net sales (after discounts and refunds), in currency.' }),
  currency: Type.String(),
  rates: Type.Object(
    { delivery: Type.Number(), open: Type.Number(), click: Type.Number(), conversion: Type.Number() },
    { description: 'Percentages: delivered / sent, opened / delivered, clicked / delivered, conversions / delivered.' },
  ),
});

export const SendJob = Type.Object({ campaign_id: Uuid() });
