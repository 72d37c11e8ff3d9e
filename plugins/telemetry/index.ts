import { Type } from '@sinclair/typebox';
import { timingSafeEqual } from 'node:crypto';
import { actionFor, definePlugin, errors, Input, job, type Db } from '../../core/sdk';
import { installTracer } from '../../core/platform';
import migration001 from './migrations/001_telemetry.sql' with { type: 'text' };
import { TelemetryConfig, type TelemetrySettings } from './config';
import { promMetrics, type PromMetrics } from './prom';
import { ErrorList, ErrorQuery, getMetrics, Metrics, MetricsQuery, queryErrors, querySpans, SpanList, SpanQuery } from './reads';
import { prune } from './store';
import { startTracer, type RunningTracer } from './tracer';

const action = actionFor(TelemetryConfig);

/** The process's tracer while `svc serve` runs it (start below); tests start their own. */
let running: RunningTracer | undefined;
/** Without a tracer, /metrics still answers the queue depth (read at the scrape). */
let idle: PromMetrics | undefined;

/** Starts tracing in this process: every hook of the core reports to it until `stop`. */
export function startTelemetry(db: Db, settings: TelemetrySettings, log: Parameters<typeof startTracer>[2]) {
  const tracer = startTracer(db, settings, log);
  running = tracer;
  installTracer(tracer);
  return {
    tracer,
    stop: async () => {
      installTracer(undefined);
      if (running === tracer) running = undefined;
      await tracer.stop();
    },
  };
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * SPEC 4.10 `telemetry`: OpenTelemetry traces of requests, tool calls, jobs and queries, kept per
 * store (bounded) and exported over OTLP; error groups; a store's metrics; the instance's
 * Prometheus metrics at GET /metrics (README.md).
 */
const telemetry = definePlugin({
  name: 'telemetry',
  category: 'platform',
  description: "This store's traces (spans of requests, tool calls, jobs, queries), its error groups and its recent metrics.",
  resource: 'span',
  catalog: true,
  // SPEC 5.4: platform or platform:read (every action reads).
  scopes: { read: ['platform', 'platform:read'], write: ['platform', 'platform:read'] },
  tables: ['telemetry_spans', 'telemetry_errors', 'telemetry_rollups'],
  config: TelemetryConfig,
  migrations: [{ id: 'telemetry/001_telemetry', sql: migration001 }],
  jobs: {
    prune: job({
      description: 'Keeps the span store bounded: the retention, and 100,000 spans per store.',
      input: Type.Object({}),
      cron: '*/10 * * * *',
      handler: (ctx) => prune(ctx.db, ctx.clock.now(), (ctx.config as TelemetrySettings).retention_hours),
    }),
  },
  actions: {
    query_spans: action({
      kind: 'read',
      description:
        "This store's spans, newest first: requests, tool calls, jobs, queries, webhook deliveries, provider calls. Filter by time, route (or tool), request id (its whole trace) or minimum duration.",
      input: SpanQuery,
      output: SpanList,
      rest: { method: 'GET', path: '/telemetry/spans' },
      handler: querySpans,
    }),
    query_errors: action({
      kind: 'read',
      description:
        "This store's errors, grouped by fingerprint (kind, code, route or tool, and the message with numbers and ids masked): 5xx answers, failed tool calls, jobs failed for good, failed webhook deliveries, provider errors. 4xx answers are metrics, not errors.",
      input: ErrorQuery,
      output: ErrorList,
      rest: { method: 'GET', path: '/telemetry/errors' },
      handler: queryErrors,
    }),
    get_metrics: action({
      kind: 'read',
      description:
        "This store's last window_minutes (default 60): requests by status class, latency percentiles, errors, tool calls, jobs, webhook deliveries and provider calls.",
      input: MetricsQuery,
      output: Metrics,
      rest: { method: 'GET', path: '/telemetry/metrics' },
      handler: getMetrics,
    }),
    scrape_metrics: action({
      kind: 'read',
      description: "The instance's Prometheus metrics (this process's). Bearer SVC_METRICS_TOKEN (scrape only) or the admin token.",
      input: Input({}),
      output: Type.Object({}, { description: 'Prometheus text exposition format.' }),
      rest: { method: 'GET', path: '/metrics', scope: 'global', auth: ['admin', 'public'], response: 'raw', contentType: 'text/plain' },
      handler: async (ctx) => {
        if (ctx.principal.kind !== 'admin') {
          // The admin token was claimed above; anything else must be the scrape token.
          const header = ctx.http?.request.headers.get('authorization') ?? '';
          const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1];
          const token = (ctx.config as TelemetrySettings).metrics_token;
          if (!bearer) throw errors.auth('No metrics token provided. Pass SVC_METRICS_TOKEN (or the admin token) as Authorization: Bearer <token>.');
          if (!token || !sameText(bearer, token)) throw errors.auth('Invalid metrics token.');
        }
        const metrics = running?.metrics ?? (idle ??= promMetrics(ctx.db));
        return new Response(await metrics.registry.metrics(), { headers: { 'Content-Type': metrics.registry.contentType } }) as any;
      },
    }),
  },
  // Every process traces what it runs (an API process its requests, a worker its jobs).
  start: async ({ db, config, log }) => {
    const settings = config as TelemetrySettings;
    if (settings.disabled) return;
    const started = startTelemetry(db, settings, log);
    return { stop: started.stop };
  },
});
export default telemetry;
