import { action, conflict, definePlugin, job, type ActionsOf, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_campaigns.sql' with { type: 'text' };
import { Campaign, CampaignCreate, CampaignId, CampaignList, CampaignQuery, Metrics, SendJob } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { getMetrics } = onFirstCall(() => import('./metrics'));
const { runSend } = onFirstCall(() => import('./send'));
const { cancel, createCampaign, getCampaign, listCampaigns, pause, resume } = onFirstCall(() => import('./store'));

const MARKETING_TEMPLATE = {
  name: 'Spring sale',
  category: 'marketing',
  subject: 'Spring sale, {{customer.first_name}}',
  html: '<p>Hello {{customer.first_name}}, 20% off this week.</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>',
  text: 'Hello {{customer.first_name}}, 20% off this week. Unsubscribe: {{unsubscribe_url}}',
};

const campaigns = definePlugin({
  name: 'campaigns',
  category: 'marketing',
  description:
    "Email campaigns: a marketing template sent to a segment's members as a throttled job, paused and resumed without duplicates, with metrics and conversions.",
  resource: 'campaign',
  catalog: true,
  // SPEC 5.4: marketing, marketing:read, marketing:write.
  scopes: { read: ['marketing', 'marketing:read', 'marketing:write'], write: ['marketing', 'marketing:write'] },
  tables: ['campaigns', 'campaign_recipients'],
  // segments: the audience (public.ts); email: templates (ctx.call) and the sending pipeline (public.ts);
  // orders: conversions (public.ts); store: the currency.
  requires: ['store', 'segments', 'email', 'orders'],
  errors: {
    campaign_finished: conflict('The campaign is sent or cancelled: it cannot change any more.'),
    campaign_not_paused: conflict('Only a paused campaign resumes.'),
  },
  migrations: [{ id: 'campaigns/001_campaigns', sql: migration001 }],
  jobs: {
    send: job({
      description: "Sends a campaign's next minute of messages, then queues the next run.",
      input: SendJob,
      handler: runSend,
    }),
  },
  actions: {
    list_campaigns: action({
      kind: 'read',
      description: 'List campaigns, newest first, with their recipients so far; filter by status.',
      input: CampaignQuery,
      output: CampaignList,
      rest: { method: 'GET', path: '/campaigns' },
      handler: listCampaigns,
    }),
    create_campaign: action({
      kind: 'write',
      description:
        "Create a campaign: send a marketing email template (template_id) to a segment's members (segment_id), at send_at or now (send_now: true), at most send_rate_per_minute (default 600). Sending is a job; each member gets one message; suppressed addresses and customers not accepting marketing are skipped.",
      input: CampaignCreate,
      output: Campaign,
      rest: { method: 'POST', path: '/campaigns', status: 201 },
      example: async ({ make }) => ({
        name: 'Spring sale',
        segment_id: (await make('segments.create_segment')).id,
        template_id: (await make('email.create_template', MARKETING_TEMPLATE)).id,
        send_now: true,
      }),
      handler: createCampaign,
    }),
    get_campaign: action({
      kind: 'read',
      description: 'Fetch one campaign: status, schedule, recipients pending, sent and skipped.',
      input: CampaignId,
      output: Campaign,
      rest: { method: 'GET', path: '/campaigns/:id' },
      handler: (ctx, { id }) => getCampaign(ctx, id),
    }),
    get_metrics: action({
      kind: 'read',
      description:
        "A campaign's figures: sent, delivered, opened, clicked, bounced, unsubscribed, conversions and conversion_revenue (orders within conversion_window_days of an open or click), with rates in percent.",
      input: CampaignId,
      output: Metrics,
      rest: { method: 'GET', path: '/campaigns/:id/metrics' },
      handler: (ctx, { id }) => getMetrics(ctx, id),
    }),
    pause: action({
      kind: 'write',
      description: 'Pause a scheduled or sending campaign: the remaining sends stop at once (resume goes on where it stopped).',
      input: CampaignId,
      output: Campaign,
      rest: { method: 'POST', path: '/campaigns/:id/pause' },
      errors: ['campaign_finished'],
      handler: (ctx, { id }) => pause(ctx, id),
    }),
    resume: action({
      kind: 'write',
      description: 'Resume a paused campaign; members already sent to are never sent to again.',
      input: CampaignId,
      output: Campaign,
      rest: { method: 'POST', path: '/campaigns/:id/resume' },
      errors: ['campaign_finished', 'campaign_not_paused'],
      // Only a paused campaign resumes: the sweeps' one is made and paused first.
      example: async ({ make }) => {
        const c = await make('campaigns.create_campaign');
        await make('campaigns.pause', { id: c.id });
        return { id: c.id };
      },
      handler: (ctx, { id }) => resume(ctx, id),
    }),
    cancel_campaign: action({
      kind: 'write',
      description: 'Cancel a campaign that is not yet sent: nothing more goes out.',
      input: CampaignId,
      output: Campaign,
      rest: { method: 'POST', path: '/campaigns/:id/cancel' },
      errors: ['campaign_finished'],
      handler: (ctx, { id }) => cancel(ctx, id),
    }),
  },
});
export default campaigns;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'campaigns', typeof campaigns> {}
}
