import { Type, type Static } from '@sinclair/typebox';

export const TelemetryConfig = Type.Object({
  retention_hours: Type.Integer({
    minimum: 1,
    default: 24,
    env: 'SVC_TELEMETRY_RETENTION_HOURS',
    description: 'How long spans are kept for query_spans and get_metrics (hours; also at most 100,000 spans per store).',
  }),
  otlp_endpoint: Type.Optional(
    Type.String({
      env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      description: 'An OTLP/HTTP collector (http://collector:4318): spans are also exported there, to /v1/traces.',
    }),
  ),
  otlp_headers: Type.Optional(
    Type.String({
      env: 'OTEL_EXPORTER_OTLP_HEADERS',
      description: 'Headers sent to the collector, as OpenTelemetry writes them: key=value,key2=value2.',
    }),
  ),
  slow_query_ms: Type.Number({
    minimum: 0,
    default: 5,
    env: 'SVC_TELEMETRY_SLOW_QUERY_MS',
    description:
      'Queries that take at least this long (or fail) are kept as spans of their store; all are exported over OTLP when an endpoint is set.',
  }),
  spans_per_second: Type.Integer({
    minimum: 0,
    default: 50,
    env: 'SVC_TELEMETRY_SPANS_PER_SECOND',
    description:
      'Spans kept per store and second; beyond it only failed, erroring and slow (>= 500 ms) ones are (get_metrics counts every one). Exported spans are not limited.',
  }),
  service_name: Type.String({ default: 'svc', env: 'OTEL_SERVICE_NAME', description: 'service.name of the exported spans.' }),
  disabled: Type.Boolean({
    default: false,
    env: 'OTEL_SDK_DISABLED',
    description: 'true: nothing is traced (no spans, no error groups, no request metrics); the tools answer what was kept before.',
  }),
  metrics_token: Type.Optional(
    Type.String({ minLength: 16, env: 'SVC_METRICS_TOKEN', description: 'Bearer token of GET /metrics (scrape only); the admin token works too.' }),
  ),
});
export type TelemetrySettings = Static<typeof TelemetryConfig>;

/** Spans kept per store (the oldest go first). */
export const SPANS_PER_STORE = 100_000;
/** A span this slow is kept past the store's rate. */
export const SLOW_SPAN_MS = 500;
