import { Counter, Gauge, Histogram, Registry } from 'prom-client';
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
export function promMetrics(db: Db): PromMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request (until the response starts), by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
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

  // Label children cached by key: prom-client hashes labels on every inc otherwise.
  const requestChildren = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>();
  return {
    registry,
    observe(kind, span) {
      const a = span.attributes;
      if (kind === 'request') {
        const method = String(a['http.request.method'] ?? '');
        const route = String(a['svc.route'] ?? '');
        const status = String(a['http.response.status_code'] ?? 0);
        const key = `${method} ${route} ${status}`;
        let c = requestChildren.get(key);
        if (!c) requestChildren.set(key, (c = { count: requests.labels(method, route, status), time: duration.labels(method, route) }));
        c.count.inc();
        c.time.observe(hrSeconds(span.duration));
      } else if (kind === 'tool_call') tools.labels(String(a['svc.route'] ?? span.name), a['svc.failed'] ? 'error' : 'success').inc();
      else if (kind === 'webhook' && a['svc.failed']) webhooksFailed.inc();
      else if (kind === 'provider' && a['svc.failed']) providerFailures.labels(String(a['svc.route'] ?? span.name)).inc();
    },
  };
}
