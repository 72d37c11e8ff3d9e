import { Counter, Gauge, Registry } from 'prom-client';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { Db } from '../../core/sdk';

export interface PromMetrics {
  registry: Registry;
  /** Counts an ended span into the instance's metrics. */
  observe(kind: string, span: ReadableSpan): void;
}

const hrSeconds = ([s, ns]: [number, number]) => s + ns / 1e9;

/**
 * The instance's Prometheus metrics (this process's; scrape each process), fed by the tracer's
 * spans. Labels are bounded: routes are templates (`/v1/stores/:storeId/products/:id`), tools are
 * `<plugin>.<action>`, providers are names. The queue depth is read from pg-boss at each scrape.
 */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One route's requests: counts by status, and the duration histogram's buckets. */
interface RouteTally {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  buckets: number[];
  sum: number;
  count: number;
}

export function promMetrics(db: Db): PromMetrics {
  const registry = new Registry();
  // The two per-request metrics are tallied in plain maps and arrays and rendered at the scrape:
  // prom-client's labelled counters hash their labels on every increment, a measurable share of a
  // traced request. They are still prom-client metrics of the registry (its text format).
  const tallies = new Map<string, RouteTally>();
  registry.registerMetric({
    name: 'http_requests_total',
    get: async () => ({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      type: 'counter',
      aggregator: 'sum',
      values: [...tallies.values()].flatMap((t) =>
        [...t.byStatus].map(([status, value]) => ({ labels: { method: t.method, route: t.route, status }, value })),
      ),
    }),
  } as any);
  registry.registerMetric({
    name: 'http_request_duration_seconds',
    get: async () => ({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request (until the response starts), by method and route template.',
      type: 'histogram',
      aggregator: 'sum',
      values: [...tallies.values()].flatMap((t) => {
        const labels = { method: t.method, route: t.route };
        let cumulative = 0;
        return [
          ...BUCKETS.map((le, i) => ({
            labels: { ...labels, le },
            value: (cumulative += t.buckets[i]),
            metricName: 'http_request_duration_seconds_bucket',
          })),
          { labels: { ...labels, le: '+Inf' }, value: t.count, metricName: 'http_request_duration_seconds_bucket' },
          { labels, value: t.sum, metricName: 'http_request_duration_seconds_sum' },
          { labels, value: t.count, metricName: 'http_request_duration_seconds_count' },
        ];
      }),
    }),
  } as any);
  const tools = new Counter({
    name: 'svc_tool_calls_total',
    help: 'Tool calls by agents and MCP clients, by tool (<plugin>.<action>) and status (success, error).',
    labelNames: ['tool', 'status'] as const,
    registers: [registry],
  });
  const webhooksFailed = new Counter({
    name: 'svc_webhook_deliveries_failed_total',
    help: 'Webhook delivery attempts that failed (no 2xx from the endpoint).',
    registers: [registry],
  });
  const providerFailures = new Counter({
    name: 'svc_provider_failures_total',
    help: 'Calls to outside providers that failed (an error answer, a timeout, no connection), by provider.',
    labelNames: ['provider'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'svc_job_queue_depth',
    help: 'Jobs waiting to run (due or not), by queue.',
    labelNames: ['queue'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await db.query<{ name: string; n: string }>(
        `SELECT name, count(*) AS n FROM pgboss.job WHERE state IN ('created', 'retry') GROUP BY name`,
      );
      for (const r of rows) this.set({ queue: r.name }, Number(r.n));
    },
  });

  return {
    registry,
    observe(kind, span) {
      const a = span.attributes;
      if (kind === 'request') {
        const method = a['http.request.method'] as string;
        const route = a['svc.route'] as string;
        const key = `${method} ${route}`;
        let t = tallies.get(key);
        if (!t) tallies.set(key, (t = { method, route, byStatus: new Map(), buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }));
        const status = (a['http.response.status_code'] as number) ?? 0;
        t.byStatus.set(status, (t.byStatus.get(status) ?? 0) + 1);
        const seconds = hrSeconds(span.duration);
        const i = BUCKETS.findIndex((le) => seconds <= le);
        if (i >= 0) t.buckets[i]++;
        t.sum += seconds;
        t.count++;
      } else if (kind === 'tool_call') tools.labels(String(a['svc.route'] ?? span.name), a['svc.failed'] ? 'error' : 'success').inc();
      else if (kind === 'webhook' && a['svc.failed']) webhooksFailed.inc();
      else if (kind === 'provider' && a['svc.failed']) providerFailures.labels(String(a['svc.route'] ?? span.name)).inc();
    },
  };
}
