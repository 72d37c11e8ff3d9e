import { Type } from '@sinclair/typebox';
import { action, conflict, definePlugin, job, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_email.sql' with { type: 'text' };
import migration002 from './migrations/002_approval_notices.sql' with { type: 'text' };
import migration003 from './migrations/003_daily_stats.sql' with { type: 'text' };
import migration004 from './migrations/004_hourly_sends.sql' with { type: 'text' };
import { EmailConfig, SMTP_MISSING } from './config';
import {
  PreviewInput,
  Rendered,
  RenderInput,
  Template,
  TemplateCreate,
  TemplateId,
  TemplateList,
  TemplateQuery,
  TemplateUpdate,
  TemplateVersionList,
} from './schemas';
import { Deleted, noExample } from '../../core/sdk';
import { DeliverInput, Message, MessageId, MessageList, MessageQuery, SendInput } from './schemas';
import { Domain, DomainCreate, DomainId, DomainList, DomainQuery } from './domain-schemas';
import { EmailEvent, EventList } from './event-schemas';
import { trackingActions } from './tracking-actions';
import { Stats, StatsQuery } from './stats-schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { notifyApprovers, watchApprovals } = onFirstCall(() => import('./approvers'));
const { createTemplate, deleteTemplate, getTemplate, listTemplates, listVersions, previewTemplate, updateTemplate } = onFirstCall(
  () => import('./templates'),
);
const { getMessage, listEvents, listMessages } = onFirstCall(() => import('./messages'));
const { sendEmail } = onFirstCall(() => import('./send'));
const { createDomain, deleteDomain, getDomain, listDomains } = onFirstCall(() => import('./domains'));
const { recheckDomains, verifyDomain } = onFirstCall(() => import('./verify'));
const { startDnsListener } = onFirstCall(() => import('./dns'));
// delivery.ts: its transports exist only once its jobs have run through these, so a stop closes
// them only then (and never loads the module just to find nothing to close).
let delivery: Promise<typeof import('./delivery')> | undefined;
const { deliverBatch, requeueStale } = onFirstCall(() => (delivery ??= import('./delivery')));
const closeTransports = () => delivery?.then((m) => m.closeTransports());
const { emailStats } = onFirstCall(() => import('./stats'));

const template = (over: Record<string, unknown> = {}) => ({
  name: 'Order confirmation',
  slug: `order-confirmation-${crypto.randomUUID().slice(0, 8)}`,
  subject: 'Your order {{order.number}}',
  html: '<p>Hello {{customer.name}}, thank you for order {{order.number}}.</p>',
  text: 'Hello {{customer.name}}, thank you for order {{order.number}}.',
  ...over,
});

/**
 * Transactional email (issue 28): versioned Handlebars templates, sending through a pg-boss job
 * over SMTP with DKIM, sending domains verified in DNS, tracking and stats. README: Email.
 */
export default definePlugin({
  name: 'email',
  category: 'marketing',
  catalog: true,
  description: 'Transactional and marketing email: templates, sending, delivery status and tracking.',
  resource: 'email',
  scopes: { read: ['marketing', 'marketing:read', 'marketing:write'], write: ['marketing', 'marketing:write'] },
  config: EmailConfig,
  errors: {
    duplicate_slug: conflict('Another template of the store has this slug.'),
    duplicate_domain: conflict('The store has already added this domain.'),
  },
  events: Object.fromEntries(['delivered', 'opened', 'clicked', 'bounced', 'complained', 'unsubscribed'].map((e) => [`email.${e}`, EmailEvent])),
  jobs: {
    // Deliveries of many stores' messages together: one claim and one record per batch (delivery.ts).
    deliver: job({ description: 'Hands queued messages to the relay.', input: DeliverInput, batch: deliverBatch }),
    // Messages queued while no relay was configured (or whose retry job was lost) are picked up again.
    requeue: job({ input: Type.Object({}), cron: '*/10 * * * *', handler: (ctx) => requeueStale(ctx) }),
    // Records that disappear after verification are noticed: the domain goes back to pending.
    recheck: job({ input: Type.Object({}), cron: '23 * * * *', handler: (ctx) => recheckDomains(ctx) }),
    // Executions entering pending_approval (or escalated) mail their approvers (approvers.ts): the
    // start's listener does it at once; this sweep catches what no listener heard.
    approvers: job({ input: Type.Object({}), cron: '* * * * *', handler: (ctx) => notifyApprovers(ctx) }),
  },
  start: async ({ db, clock, log, registry, config, role, print }) => {
    // Missing optional settings are said once, here at start (never by a job every minute).
    if (!config.smtp_url) print(`email: ${SMTP_MISSING}`);
    if (!config.from) print('email: SVC_EMAIL_FROM is not set: approver email is off, and every send must give its own from.');
    // (Opens waiting for their batch are written by the core at shutdown: opens.ts.)
    const stops: (() => unknown)[] = [closeTransports];
    // Approvers are mailed when an execution is held, where jobs run (the minute's sweep remains).
    if (role !== 'api' && config.from) stops.push(await watchApprovals({ db, clock, log, registry, config }));
    if (config.dns_listen && config.dns_zone) {
      const dns = await startDnsListener({
        db,
        zone: config.dns_zone.toLowerCase().replace(/\.$/, ''),
        listen: config.dns_listen,
        spf: config.spf,
        log: print,
      });
      stops.push(dns.stop);
    } else if (config.dns_zone) {
      print('email: SVC_EMAIL_DNS_ZONE is set but SVC_DNS_LISTEN is not: nothing answers for the zone, so domains cannot verify.');
    }
    return { stop: () => Promise.all(stops.map((s) => s())) };
  },
  // users/public.ts: the approvers' addresses.
  requires: ['users'],
  tables: [
    'email_templates',
    'email_template_versions',
    'email_domains',
    'email_messages',
    'email_suppressions',
    'email_events',
    'email_approval_notices',
    'email_event_firsts',
    'email_daily_stats',
    'email_hourly_sends',
  ],
  migrations: [
    { id: 'email/001_email', sql: migration001 },
    { id: 'email/002_approval_notices', sql: migration002 },
    { id: 'email/003_daily_stats', sql: migration003 },
    { id: 'email/004_hourly_sends', sql: migration004 },
  ],
  actions: {
    send_email: action({
      kind: 'write',
      description:
        'Send an email: either template_id with variables (and tags), or from/subject/html/text. Answers the message, queued for delivery.',
      input: SendInput,
      output: Message,
      rest: { method: 'POST', path: '/email/send', status: 201 },
      // One writing statement (send.ts): the message, its counts and its delivery job.
      atomic: true,
      errors: ['rate_limit_exceeded', 'provider_not_configured'],
      example: { to: 'ada@example.com', subject: 'Hello', text: 'Hello Ada' },
      handler: sendEmail,
    }),
    list_messages: action({
      kind: 'read',
      description: 'List sent email messages, newest first; filter by status, tag or recipient.',
      input: MessageQuery,
      output: MessageList,
      rest: { method: 'GET', path: '/email/messages' },
      handler: listMessages,
    }),
    get_message: action({
      kind: 'read',
      description: 'Fetch one email message and its delivery status.',
      input: MessageId,
      output: Message,
      rest: { method: 'GET', path: '/email/messages/:id' },
      example: async ({ make }) => ({ id: (await make('email.send_email')).id }),
      handler: (ctx, { id }) => getMessage(ctx, id),
    }),
    list_message_events: action({
      kind: 'read',
      description: 'The events of one message (delivered, opened, clicked, bounced, complained, unsubscribed), oldest first.',
      input: MessageId,
      output: EventList,
      rest: { method: 'GET', path: '/email/messages/:id/events' },
      example: async ({ make }) => ({ id: (await make('email.send_email')).id }),
      handler: (ctx, { id }) => listEvents(ctx, id),
    }),
    create_domain: action({
      kind: 'write',
      description: 'Add a sending domain; answers the DNS records to publish (SPF, DKIM, DMARC, tracking), then verify it.',
      input: DomainCreate,
      output: Domain,
      rest: { method: 'POST', path: '/email/domains', status: 201 },
      errors: ['duplicate_domain', 'provider_not_configured'],
      example: () => Promise.resolve({ domain: `m${crypto.randomUUID().slice(0, 8)}.example.com` }),
      handler: createDomain,
    }),
    list_domains: action({
      kind: 'read',
      description: 'List the sending domains of the store.',
      input: DomainQuery,
      output: DomainList,
      rest: { method: 'GET', path: '/email/domains' },
      errors: ['provider_not_configured'],
      handler: listDomains,
    }),
    get_domain: action({
      kind: 'read',
      description: 'Fetch one sending domain with its DNS records and findings.',
      input: DomainId,
      output: Domain,
      rest: { method: 'GET', path: '/email/domains/:id' },
      errors: ['provider_not_configured'],
      handler: (ctx, { id }) => getDomain(ctx, id),
    }),
    email_stats: action({
      kind: 'read',
      description: 'Sending stats for a date range: sent, delivered, opened, clicked, bounced, complained, unsubscribed, and rates in percent.',
      input: StatsQuery,
      output: Stats,
      rest: { method: 'GET', path: '/email/stats' },
      handler: emailStats,
    }),
    ...trackingActions,
    verify_domain: action({
      kind: 'write',
      description: "Look up the domain's DNS records now; all valid makes it verified, otherwise the findings say what is wrong.",
      input: DomainId,
      output: Domain,
      rest: { method: 'POST', path: '/email/domains/:id/verify' },
      errors: ['provider_not_configured'],
      // DNS lookups take up to seconds: never inside a transaction; a repeat simply checks again.
      external: true,
      handler: (ctx, { id }) => verifyDomain(ctx, id),
    }),
    delete_domain: action({
      kind: 'destructive',
      description: 'Remove a sending domain (its DKIM key is deleted; mail from it is no longer allowed).',
      input: DomainId,
      output: Deleted,
      rest: { method: 'DELETE', path: '/email/domains/:id' },
      handler: (ctx, { id }) => deleteDomain(ctx, id),
    }),
    list_templates: action({
      kind: 'read',
      description: 'List email templates, newest first.',
      input: TemplateQuery,
      output: TemplateList,
      rest: { method: 'GET', path: '/email/templates' },
      handler: listTemplates,
    }),
    create_template: action({
      kind: 'write',
      description:
        'Create a Handlebars email template (subject, html, text; text is required). Marketing templates must use {{unsubscribe_url}} in html and text.',
      input: TemplateCreate,
      output: Template,
      rest: { method: 'POST', path: '/email/templates', status: 201 },
      errors: ['duplicate_slug'],
      example: template(),
      handler: createTemplate,
    }),
    get_template: action({
      kind: 'read',
      description: 'Fetch one email template (its latest version).',
      input: TemplateId,
      output: Template,
      rest: { method: 'GET', path: '/email/templates/:id' },
      handler: (ctx, { id }) => getTemplate(ctx, id),
    }),
    update_template: action({
      kind: 'write',
      description: 'Change a template; a change to subject, html or text makes a new version.',
      input: TemplateUpdate,
      output: Template,
      rest: { method: 'PATCH', path: '/email/templates/:id' },
      errors: ['duplicate_slug'],
      handler: updateTemplate,
    }),
    delete_template: action({
      kind: 'destructive',
      description: 'Delete a template and its versions (messages sent with it keep their content).',
      input: TemplateId,
      output: Deleted,
      rest: { method: 'DELETE', path: '/email/templates/:id' },
      handler: (ctx, { id }) => deleteTemplate(ctx, id),
    }),
    list_template_versions: action({
      kind: 'read',
      description: 'Every version of a template, newest first.',
      input: TemplateId,
      output: TemplateVersionList,
      rest: { method: 'GET', path: '/email/templates/:id/versions' },
      handler: (ctx, { id }) => listVersions(ctx, id),
    }),
    preview_template: action({
      kind: 'read',
      description: 'Render a template with variables; lists the variables it uses that were not given.',
      input: PreviewInput,
      output: Rendered,
      rest: { method: 'POST', path: '/email/templates/:id/preview' },
      handler: (ctx, input) => previewTemplate(ctx, input, ctx.registry.site.publicUrl),
    }),
    render_template: action({
      kind: 'read',
      description: 'Render a template by id with variables, as preview does (subject, html, text, missing variables).',
      input: RenderInput,
      output: Rendered,
      rest: { method: 'POST', path: '/email/render' },
      example: async ({ make }) => ({ template_id: (await make('email.create_template')).id, variables: { customer: { name: 'Ada' } } }),
      handler: (ctx, { template_id, ...rest }) => previewTemplate(ctx, { id: template_id, ...rest }, ctx.registry.site.publicUrl),
    }),
  },
});
