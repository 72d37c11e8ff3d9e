import { Type, type Static } from '@sinclair/typebox';
import { actionFor, definePlugin, Email, Input, job, ListOf, ListParams, providerSettings, Uuid, WebUrl, When, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_status.sql' with { type: 'text' };
import migration002 from './migrations/002_providers.sql' with { type: 'text' };
import { onProviderOutcome } from '../telemetry/public';
import { probeProviders, probesOf, recordOutcome } from './providers';
import { CHECK_INTERVAL_S, checkIncidents } from './checks';
import { notify, subscribe, Subscription } from './subscriptions';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { getStatus, listIncidents, readiness } = onFirstCall(() => import('./status'));

export const StatusConfig = Type.Object({
  backlog_s: Type.Integer({
    minimum: 1,
    default: 300,
    env: 'SVC_STATUS_BACKLOG_S',
    description: 'A backlog incident opens when the oldest waiting job has waited longer than this (seconds).',
  }),
  probe_interval_s: Type.Integer({
    minimum: 1,
    default: 30,
    env: 'SVC_STATUS_PROBE_INTERVAL_S',
    description: 'How often each configured provider is probed with its cheapest authenticated GET (seconds).',
  }),
  // The providers to probe: the operator's settings every provider plugin reads.
  ...providerSettings,
});
const action = actionFor(StatusConfig);

const Incident = Type.Object({
  object: Type.Literal('incident'),
  id: Type.String(),
  kind: Type.String({ description: 'workers_gone, backlog, provider_failing or webhook_disabled.' }),
  scope: Type.Union([Type.Literal('instance'), Type.Literal('store')], { description: "instance: every store's; store: this store's alone." }),
  title: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
  opened_at: Type.String(),
  resolved_at: Type.Union([Type.String(), Type.Null()]),
});

const Status = Type.Object({
  object: Type.Literal('status'),
  status: Type.Union([Type.Literal('operational'), Type.Literal('degraded')], { description: 'degraded while an instance incident is open.' }),
  version: Type.String(),
  database: Type.Object({ status: Type.Literal('ok'), backend: Type.String() }),
  queue: Type.Object({ depth: Type.Integer(), lag_seconds: Type.Integer({ description: 'How long the oldest due job has waited.' }) }),
  workers: Type.Object({ live: Type.Integer(), stale: Type.Integer() }),
  providers: Type.Array(Type.Object({ name: Type.String(), status: Type.String() })),
  open_incidents: Type.Integer(),
});

const Health = Type.Object({ status: Type.String() }, { additionalProperties: true });

/**
 * SPEC 4.10 `svc_status`: the instance's health, incidents that open and close by themselves, and
 * subscriptions to them; `/healthz` and `/readyz` for load balancers (README.md).
 */
const svc_status = definePlugin({
  name: 'svc_status',
  category: 'platform',
  description: "This svc instance's health: database, job queue, workers, incidents (open and past), and subscriptions to incident notices.",
  resource: 'incident',
  catalog: true,
  requires: ['local_agent', 'telemetry'],
  calls: ['email'],
  // SPEC 5.4: platform or platform:read, for subscribe too.
  scopes: { read: ['platform', 'platform:read'], write: ['platform', 'platform:read'] },
  tables: ['svc_status_incidents', 'svc_status_subscriptions', 'svc_status_providers'],
  config: StatusConfig,
  migrations: [
    { id: 'svc_status/001_status', sql: migration001 },
    { id: 'svc_status/002_providers', sql: migration002 },
  ],
  jobs: {
    notify: job({
      description: 'Sends incident.opened or incident.resolved to one subscription.',
      input: Type.Object({ subscription_id: Uuid(), event: Type.Object({}, { additionalProperties: true }) }),
      handler: (ctx, input) => notify(ctx, input),
    }),
  },
  actions: {
    get_status: action({
      kind: 'read',
      description:
        'The instance now: status (operational, degraded), version, database, job queue depth and lag, live and stale workers, open incidents.',
      input: Input({}),
      output: Status,
      rest: { method: 'GET', path: '/status' },
      handler: getStatus,
    }),
    get_incidents: action({
      kind: 'read',
      description: "Incidents, newest first: the instance's (workers gone, job backlog) and this store's (a webhook endpoint disabled).",
      input: Input({ ...ListParams, status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved')])) }),
      output: ListOf(Incident),
      rest: { method: 'GET', path: '/status/incidents' },
      handler: listIncidents,
    }),
    subscribe: action({
      kind: 'write',
      description: 'Hear incident.opened and incident.resolved: at an HTTPS URL (signed like webhooks; the secret is answered once) or by email.',
      input: Type.Object(
        {
          channel: Type.Union([Type.Literal('webhook'), Type.Literal('email')]),
          url: Type.Optional(WebUrl('The HTTPS endpoint (channel webhook).', { httpsOnly: true })),
          email: Type.Optional(Email('The address (channel email).')),
        },
        {
          additionalProperties: false,
          allOf: [
            When('channel', ['webhook'], { required: ['url'], forbidden: { email: 'is for the email channel' } }),
            When('channel', ['email'], { required: ['email'], forbidden: { url: 'is for the webhook channel' } }),
          ],
        },
      ),
      output: Subscription,
      rest: { method: 'POST', path: '/status/subscriptions', status: 201 },
      example: { channel: 'webhook', url: 'https://hooks.example.com/svc-status' },
      handler: subscribe,
    }),
    healthz: action({
      kind: 'read',
      description: 'The process is up (no credential; for liveness probes).',
      input: Input({}),
      output: Health,
      rest: { method: 'GET', path: '/healthz', scope: 'global', auth: 'public', response: 'raw', contentType: 'application/json' },
      handler: async () => new Response('{"status":"ok"}', { headers: { 'Content-Type': 'application/json' } }) as any,
    }),
    readyz: action({
      kind: 'read',
      description: 'The database answers and every migration is applied: 200, else 503 (no credential; for readiness probes).',
      input: Input({}),
      output: Health,
      rest: { method: 'GET', path: '/readyz', scope: 'global', auth: 'public', response: 'raw', contentType: 'application/json' },
      handler: async (ctx) => (await readiness(ctx.db, ctx.registry)) as any,
    }),
  },
  // Every process checks (an API-only one too: with every worker gone no job would).
  start: async ({ db, clock, config, log }) => {
    const settings = config as Static<typeof StatusConfig>;
    const check = () => checkIncidents(db, clock, settings.backlog_s).catch((e) => log.warn('status check failed', { error: String(e) }));
    const timer = setInterval(check, CHECK_INTERVAL_S * 1000);
    timer.unref?.();
    // Providers: probed on a timer, and every call this process makes counts too (heard through telemetry's tracer).
    const probes = probesOf(settings);
    const probe = () => probeProviders(db, clock, probes).catch((e) => log.warn('provider probe failed', { error: String(e) }));
    const prober = probes.length ? setInterval(probe, settings.probe_interval_s * 1000) : undefined;
    prober?.unref?.();
    const unhear = onProviderOutcome((name, ok, error) => {
      recordOutcome(db, clock, name, ok, error).catch((e) => log.warn('provider outcome not recorded', { error: String(e) }));
    });
    return {
      stop: () => {
        clearInterval(timer);
        if (prober) clearInterval(prober);
        unhear();
      },
    };
  },
});
export default svc_status;
