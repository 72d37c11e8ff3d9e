import { Counter, Gauge, Registry } from 'prom-client';
import type { Db } from '../../core/sdk';
import type { SvcSpan } from './span';

export interface PromMetrics {
  registry: Registry;
  /** Counts an ended span into the instance's metrics. */
  observe(span: SvcSpan): void;
}

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
  // traced request. They are still prom-client metrics of the registry (its text format). A
  // route's tally is found by its span's name (`GET /v1/...`, one constant string per route).
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
  // Tool calls too: counted in a plain map (by tool: successes, errors), handed to the counter at the scrape.
  const toolCounts = new Map<string, [number, number]>();
  new Counter({
    name: 'svc_tool_calls_total',
    help: 'Tool calls by agents and MCP clients, by tool (<plugin>.<action>) and status (success, error).',
    labelNames: ['tool', 'status'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [tool, [ok, failed]] of toolCounts) {
        if (ok) this.inc({ tool, status: 'success' }, ok);
        if (failed) this.inc({ tool, status: 'error' }, failed);
      }
    },
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
    observe(span) {
      const kind = span.kind;
      if (kind === 'request') {
        let t = tallies.get(span.name);
        if (!t)
          tallies.set(
            span.name,
            (t = { method: span.method ?? '', route: span.route ?? span.name, byStatus: new Map(), buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }),
          );
        const status = span.status ?? 0;
        t.byStatus.set(status, (t.byStatus.get(status) ?? 0) + 1);
        const seconds = span.durationMs / 1000;
        for (let i = 0; i < BUCKETS.length; i++)
          if (seconds <= BUCKETS[i]) {
            t.buckets[i]++;
            break;
          }
        t.sum += seconds;
        t.count++;
      } else if (kind === 'tool_call') {
        const tool = span.route ?? span.name;
        let n = toolCounts.get(tool);
        if (!n) toolCounts.set(tool, (n = [0, 0]));
        n[span.failed ? 1 : 0]++;
      } else if (kind === 'webhook' && span.failed) webhooksFailed.inc();
      else if (kind === 'provider' && span.failed) providerFailures.labels(span.route ?? span.name).inc();
    },
  };
}
