import { Type, type Static } from '@sinclair/typebox';
import { Input, iso, parseInstant, Timestamp, type Ctx } from '../../core/sdk';
import { flushStore } from './store';
import { BOUNDS_MS, percentile, readRollups } from './rollups';

export const SpanQuery = Input({
  from: Type.Optional(Type.String({ maxLength: 40, description: 'Spans started at or after this instant (ISO 8601: 2026-04-01T12:00:00Z).' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'Spans started at or before this instant (ISO 8601).' })),
  route: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'A route template (/v1/stores/:storeId/products/:id) or a tool (products.get_product).',
    }),
  ),
  request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The X-Request-Id of a request: its whole trace.' })),
  min_duration_ms: Type.Optional(Type.Number({ minimum: 0, description: 'Only spans that took at least this long.' })),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'At most this many, newest first (1 to 1000, default 100).' }),
  ),
});

export const Span = Type.Object({
  object: Type.Literal('span'),
  trace_id: Type.String(),
  span_id: Type.String(),
  parent_span_id: Type.Union([Type.String(), Type.Null()]),
  name: Type.String(),
  kind: Type.String({ description: 'request, tool_call, job, query, webhook or provider.' }),
  route: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.String(), Type.Null()]),
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  failed: Type.Boolean(),
  error: Type.Boolean({ description: 'It counts as an error (query_errors): a 5xx, a failed job or delivery, a provider failure.' }),
  started_at: Timestamp(),
  duration_ms: Type.Number(),
  attributes: Type.Record(Type.String(), Type.Unknown()),
});

export const SpanList = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(Span),
  has_more: Type.Boolean(),
  url: Type.String(),
});

export const ErrorQuery = Input({
  from: Type.Optional(Type.String({ maxLength: 40, description: 'Groups last seen at or after this instant (ISO 8601).' })),
  kind: Type.Optional(Type.String({ maxLength: 40, description: 'request, tool_call, job, webhook or provider.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'At most this many groups, most recent first.' })),
});

export const ErrorGroup = Type.Object({
  object: Type.Literal('error_group'),
  fingerprint: Type.String({ description: 'Hash of kind, code, route or tool, and the message with numbers and ids masked.' }),
  kind: Type.String(),
  code: Type.String(),
  route: Type.String(),
  count: Type.Integer(),
  first_seen: Timestamp(),
  last_seen: Timestamp(),
  sample: Type.Record(Type.String(), Type.Unknown(), { description: 'The latest occurrence: message, code, trace_id, request_id.' }),
});

export const ErrorList = Type.Object({ object: Type.Literal('list'), data: Type.Array(ErrorGroup), has_more: Type.Boolean(), url: Type.String() });

export const MetricsQuery = Input({
  window_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_080, default: 60, description: 'The last this many minutes (default 60).' })),
});

const Count = Type.Integer({ minimum: 0 });
export const Metrics = Type.Object({
  object: Type.Literal('metrics'),
  window_minutes: Type.Integer(),
  requests: Type.Object({ total: Count, by_status: Type.Object({ '2xx': Count, '4xx': Count, '5xx': Count }) }),
  latency_ms: Type.Object({ p50: Type.Number(), p95: Type.Number(), p99: Type.Number() }),
  errors: Count,
  tool_calls: Type.Object({ total: Count, failed: Count }),
  jobs: Type.Object({ queued: Count, active: Count, failed: Count }, { description: 'Queued and running now; failed within the window.' }),
  webhooks: Type.Object({ delivered: Count, failed: Count }),
  providers: Type.Object({ calls: Count, failed: Count }),
});

const toSpan = (r: any): Static<typeof Span> => ({
  object: 'span',
  trace_id: r.trace_id,
  span_id: r.span_id,
  parent_span_id: r.parent_id,
  name: r.name,
  kind: r.kind,
  route: r.route,
  request_id: r.request_id,
  status_code: r.status_code,
  failed: r.failed,
  error: r.error,
  started_at: iso(r.started_at),
  duration_ms: Number(r.duration_ms),
  attributes: typeof r.attributes === 'string' ? JSON.parse(r.attributes) : r.attributes,
});

/** query_spans: the store's spans, newest first; `request_id` answers the request's whole trace. */
export async function querySpans(ctx: Ctx, input: Static<typeof SpanQuery>) {
  await flushStore(ctx.db, ctx.log, ctx.store.id);
  const where = ['store_id = $1'];
  const params: unknown[] = [ctx.store.id];
  const add = (sql: string, v: unknown) => {
    params.push(v);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (input.from) add('started_at >= ?', parseInstant(input.from, 'from'));
  if (input.to) add('started_at <= ?', parseInstant(input.to, 'to'));
  if (input.route) add('route = ?', input.route);
  if (input.min_duration_ms !== undefined) add('duration_ms >= ?', input.min_duration_ms);
  if (input.request_id) add('trace_id IN (SELECT trace_id FROM telemetry_spans WHERE store_id = $1 AND request_id = ?)', input.request_id);
  const limit = input.limit ?? 100;
  const rows = await ctx.db.query(
    `SELECT * FROM telemetry_spans WHERE ${where.join(' AND ')} ORDER BY started_at DESC, span_id LIMIT ${limit + 1}`,
    params,
  );
  return { object: 'list' as const, data: rows.slice(0, limit).map(toSpan), has_more: rows.length > limit, url: `${ctx.storePath}/telemetry/spans` };
}

/** query_errors: the store's error groups, most recently seen first. */
export async function queryErrors(ctx: Ctx, input: Static<typeof ErrorQuery>) {
  await flushStore(ctx.db, ctx.log, ctx.store.id);
  const params: unknown[] = [ctx.store.id];
  const where = ['store_id = $1'];
  if (input.from) where.push(`last_seen >= $${params.push(parseInstant(input.from, 'from'))}`);
  if (input.kind) where.push(`kind = $${params.push(input.kind)}`);
  const limit = input.limit ?? 50;
  const rows = await ctx.db.query(`SELECT * FROM telemetry_errors WHERE ${where.join(' AND ')} ORDER BY last_seen DESC LIMIT ${limit + 1}`, params);
  return {
    object: 'list' as const,
    data: rows.slice(0, limit).map((r: any) => ({
      object: 'error_group' as const,
      fingerprint: r.fingerprint,
      kind: r.kind,
      code: r.code,
      route: r.route,
      count: Number(r.count),
      first_seen: iso(r.first_seen),
      last_seen: iso(r.last_seen),
      sample: typeof r.sample === 'string' ? JSON.parse(r.sample) : r.sample,
    })),
    has_more: rows.length > limit,
    url: `${ctx.storePath}/telemetry/errors`,
  };
}

/** get_metrics: the store's last `window_minutes` (whole minutes), from its rollups and its jobs. */
export async function getMetrics(ctx: Ctx, input: Static<typeof MetricsQuery>) {
  await flushStore(ctx.db, ctx.log, ctx.store.id);
  const window = input.window_minutes ?? 60;
  // Rollups carry the wall-clock minute their spans ran in (OpenTelemetry's time), jobs the clock's.
  const now = Date.now();
  const since = new Date(now - (now % 60_000) - (window - 1) * 60_000);
  const rows = await readRollups(ctx.db, ctx.store.id, since);
  const sum = (kind: string, field: 'count' | 'failed' | 'errors', status?: (s: number) => boolean) =>
    rows.filter((r) => r.kind === kind && (!status || status(r.status))).reduce((n, r) => n + Number(r[field]), 0);
  const latency = new Array(BOUNDS_MS.length + 1).fill(0);
  for (const r of rows) if (r.kind === 'request') r.buckets.forEach((n, i) => (latency[i] += Number(n)));
  const jobsSince = new Date(ctx.clock.now().getTime() - window * 60_000);
  const [j] = await ctx.db.query(
    `SELECT count(*) FILTER (WHERE status = 'queued') AS queued,
            count(*) FILTER (WHERE status = 'running') AS active,
            count(*) FILTER (WHERE status = 'failed' AND finished_at >= $2) AS failed
       FROM jobs WHERE store_id = $1 AND (status IN ('queued', 'running') OR finished_at >= $2)`,
    [ctx.store.id, jobsSince],
  );
  const n = (v: unknown) => Number(v ?? 0);
  const webhooks = sum('webhook', 'count');
  const webhooksFailed = sum('webhook', 'failed');
  return {
    object: 'metrics' as const,
    window_minutes: window,
    requests: {
      total: sum('request', 'count'),
      by_status: {
        '2xx': sum('request', 'count', (s) => s >= 200 && s < 300),
        '4xx': sum('request', 'count', (s) => s >= 400 && s < 500),
        '5xx': sum('request', 'count', (s) => s >= 500),
      },
    },
    latency_ms: { p50: percentile(latency, 0.5), p95: percentile(latency, 0.95), p99: percentile(latency, 0.99) },
    errors: rows.reduce((t, r) => t + Number(r.errors), 0),
    tool_calls: { total: sum('tool_call', 'count'), failed: sum('tool_call', 'failed') },
    jobs: { queued: n(j.queued), active: n(j.active), failed: n(j.failed) },
    webhooks: { delivered: webhooks - webhooksFailed, failed: webhooksFailed },
    providers: { calls: sum('provider', 'count'), failed: sum('provider', 'failed') },
  };
}
