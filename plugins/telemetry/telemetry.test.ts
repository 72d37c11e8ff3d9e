import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, job } from '../../core/sdk';
import { createLogger } from '../../core/log';
import { fakeServer } from '../../test/kit/fake-models';
import { ADMIN_TOKEN, product, setup, type Harness } from '../../test/kit/setup';
import { mcpClient } from '../../test/kit/mcp';
import { runJob } from '../../test/kit/jobs';
import { startTelemetry } from '.';
import type { TelemetrySettings } from './config';
import { fingerprint, maskMessage } from './fingerprint';
import { prune } from './store';
import { percentile } from './rollups';
import type { RunningTracer } from './tracer';
import { OtlpBatch } from './otlp';
import { SvcSpan } from './span';

/** A plugin only this file registers: a route that fails on an internal error, and a job that fails. */
const probe = definePlugin({
  name: 'telemetry_probe',
  category: 'platform',
  description: 'Failures on purpose, for the telemetry tests.',
  scopes: { read: ['platform', 'platform:read'], write: ['platform', 'platform:read'] },
  jobs: {
    doomed: job({
      input: Type.Object({ order: Type.String() }),
      handler: async (_ctx, { order }) => Promise.reject(new Error(`order ${order} lost`)),
    }),
  },
  actions: {
    explode: action({
      kind: 'read',
      description: 'Fails with an internal error naming a row.',
      input: Input({ row: Type.String() }),
      output: Type.Object({}),
      rest: { method: 'GET', path: '/telemetry-probe/explode' },
      handler: async (_ctx, { row }) => Promise.reject(new Error(`row ${row} vanished after 3 tries`)),
    }),
  },
});

/** A local OTLP/HTTP receiver: what the exporter posts to /v1/traces, as JSON. */
const received: any[] = [];
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: async (req) => {
    if (req.method === 'POST' && new URL(req.url).pathname === '/v1/traces') {
      received.push({ type: req.headers.get('content-type'), auth: req.headers.get('x-collector-key'), body: await req.json() });
      return Response.json({});
    }
    return new Response('not found', { status: 404 });
  },
});

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
let h: Harness;
let tracer: RunningTracer;
let stop: () => Promise<void>;

beforeAll(async () => {
  h = await setup({ extra: [probe], env: { SVC_METRICS_TOKEN: METRICS_TOKEN } });
  const settings: TelemetrySettings = {
    ...(h.registry.configOf('telemetry') as TelemetrySettings),
    otlp_endpoint: `http://127.0.0.1:${receiver.port}/`,
    otlp_headers: 'x-collector-key=secret%20one',
    slow_query_ms: 0, // every query kept, so a trace shows them all
  };
  ({ tracer, stop } = startTelemetry(h.db, settings, createLogger()));
}, 60_000);

afterAll(async () => {
  await stop();
  receiver.stop(true);
});

const spans = (query = '', as = h) => as.call('GET', `/telemetry/spans${query}`).then((r) => r.body);

test('a request is a span of its store, with its route, status, request id and its queries as children', async () => {
  const p = (await h.call('POST', '/products', product())).body;
  const got = await h.call('GET', `/products/${p.id}`);
  const requestId = got.headers.get('x-request-id')!;
  const trace = await spans(`?request_id=${requestId}`);
  const root = trace.data.find((s: any) => s.kind === 'request');
  expect(root).toMatchObject({ route: '/v1/stores/:storeId/products/:id', status_code: 200, request_id: requestId, parent_span_id: null });
  expect(root.name).toBe('GET /v1/stores/:storeId/products/:id');
  const queries = trace.data.filter((s: any) => s.kind === 'query');
  expect(queries.length).toBeGreaterThan(0);
  expect(queries.every((q: any) => q.trace_id === root.trace_id && q.attributes['db.query.text'])).toBe(true);
  expect(queries.some((q: any) => q.parent_span_id === root.span_id)).toBe(true);
  // Filters: the route, a duration no request reaches.
  const byRoute = await spans(`?route=${encodeURIComponent('/v1/stores/:storeId/products/:id')}`);
  expect(byRoute.data.map((s: any) => s.request_id)).toContain(requestId);
  expect((await spans('?min_duration_ms=600000')).data).toEqual([]);
  // Another store sees none of it.
  const other = await setup();
  expect((await spans(`?request_id=${requestId}`, other)).data).toEqual([]);
});

test('5xx answers group by fingerprint (ids and numbers masked); 4xx answers are no errors', async () => {
  for (const row of ['9f1c2e7a-0000-4000-8000-000000000001', '9f1c2e7a-0000-4000-8000-000000000002'])
    expect((await h.call('GET', `/telemetry-probe/explode?row=${row}`)).status).toBe(500);
  expect((await h.call('GET', '/products/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  const errors = (await h.call('GET', '/telemetry/errors')).body.data;
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatchObject({ kind: 'request', code: 'internal_error', route: '/v1/stores/:storeId/telemetry-probe/explode', count: 2 });
  expect(errors[0].fingerprint).toMatch(/^[0-9a-f]{16}$/);
  expect(errors[0].sample.message).toContain('000000000002 vanished');
  expect(errors[0].sample.request_id).toBeTruthy();
});

test('tool calls over MCP are spans; a job failed for good is an error; get_metrics counts the store', async () => {
  const fresh = await setup({ extra: [probe] });
  const p = (await fresh.call('POST', '/products', product())).body;
  const { client } = await mcpClient(fresh);
  await client.callTool({ name: 'products', arguments: { action: 'get_product', id: p.id } });
  await client.callTool({ name: 'products', arguments: { action: 'get_product', id: '00000000-0000-4000-8000-000000000000' } });
  await client.close();
  // A first failure will be retried: not an error yet. The last one is.
  await runJob(fresh, 'telemetry_probe.doomed', [{ data: { input: { order: '1001' }, store_id: fresh.store.id }, retryCount: 0, retryLimit: 2 }]);
  await runJob(fresh, 'telemetry_probe.doomed', [{ data: { input: { order: '1002' }, store_id: fresh.store.id }, retryCount: 2, retryLimit: 2 }]);
  expect((await fresh.call('GET', '/telemetry-probe/explode?row=a')).status).toBe(500);

  const m = (await fresh.call('GET', '/telemetry/metrics?window_minutes=5')).body;
  expect(m.tool_calls).toEqual({ total: 2, failed: 1 });
  expect(m.requests.by_status['5xx']).toBe(1);
  expect(m.requests.by_status['2xx']).toBeGreaterThanOrEqual(2); // the product's creation, the MCP requests
  expect(m.requests.total).toBe(m.requests.by_status['2xx'] + m.requests.by_status['4xx'] + m.requests.by_status['5xx']);
  expect(m.latency_ms.p99).toBeGreaterThanOrEqual(m.latency_ms.p50);
  expect(m.errors).toBe(2); // the 5xx and the job failed for good; the tool's 404 is the caller's
  const errors = (await fresh.call('GET', '/telemetry/errors')).body.data;
  expect(errors.map((e: any) => e.kind).sort()).toEqual(['job', 'request']);
  expect(errors.find((e: any) => e.kind === 'job')).toMatchObject({ route: 'telemetry_probe.doomed', count: 1 });
  const tools = (await fresh.call('GET', `/telemetry/spans?route=products.get_product`)).body.data;
  expect(tools.map((s: any) => s.failed).sort()).toEqual([false, true]);
  // Each tool call is the child of its MCP request, and its queries are its own children.
  const all = (await spans('', fresh)).data;
  for (const tool of tools) {
    expect(all.find((s: any) => s.span_id === tool.parent_span_id)).toMatchObject({ kind: 'request', route: '/agent/mcp', trace_id: tool.trace_id });
    expect(all.some((s: any) => s.kind === 'query' && s.parent_span_id === tool.span_id)).toBe(true);
  }
});

test('a failing provider call is a provider error of the store whose work made it, the child of its request or tool call', async () => {
  const models = fakeServer([
    { status: 401, body: '{"error":{"message":"bad key"}}' },
    { status: 401, body: '{"error":{"message":"bad key"}}' },
  ]);
  const env = { OPENAI_BASE_URL: `${models.url}/v1`, OPENAI_API_KEY: 'sk-test', SVC_LLM_MODEL: 'openai/gpt-4o-mini' };
  const fresh = await setup({ env });
  try {
    // Over REST: the request carries its span; the action calls out, and the provider's span finds it.
    const rest = await fresh.call('POST', '/llm/generate', { prompt: 'A tagline.' });
    expect(rest.status).toBeGreaterThanOrEqual(400);
    // Over MCP: the request's span, its tool call's span, the provider's span, one trace.
    const { client } = await mcpClient(fresh);
    const out: any = await client.callTool({ name: 'llm', arguments: { action: 'generate', prompt: 'A tagline.' } });
    expect(out.isError).toBe(true);
    await client.close();
    const restRequest = (await spans(`?request_id=${rest.headers.get('x-request-id')}`, fresh)).data.find((s: any) => s.kind === 'request');
    const all = (await spans('', fresh)).data;
    const calls = all.filter((s: any) => s.kind === 'provider' && s.route === 'openai');
    expect(calls).toHaveLength(2);
    const byId = new Map(all.map((s: any) => [s.span_id, s]));
    const viaRest = calls.find((c: any) => c.trace_id === restRequest.trace_id);
    expect(viaRest.parent_span_id).toBe(restRequest.span_id);
    const viaMcp = calls.find((c: any) => c !== viaRest);
    const tool: any = byId.get(viaMcp.parent_span_id);
    expect(tool).toMatchObject({ kind: 'tool_call', route: 'llm.generate', trace_id: viaMcp.trace_id });
    expect(byId.get(tool.parent_span_id)).toMatchObject({ kind: 'request', route: '/agent/mcp' });
  } finally {
    models.stop();
  }
  const m = (await fresh.call('GET', '/telemetry/metrics')).body;
  expect(m.providers).toEqual({ calls: 2, failed: 2 });
  const [group] = (await fresh.call('GET', '/telemetry/errors?kind=provider')).body.data;
  expect(group).toMatchObject({ kind: 'provider', code: 'provider_error', route: 'openai', count: 2 });
  // Another store sees none of it.
  expect((await h.call('GET', '/telemetry/errors?kind=provider')).body.data).toEqual([]);
});

test('spans are exported over OTLP/HTTP to the configured collector, with its headers', async () => {
  await h.call('GET', '/products?limit=1');
  await tracer.flush();
  const names = received.flatMap((r) =>
    r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans.map((s: any) => s.name))),
  );
  expect(names).toContain('GET /v1/stores/:storeId/products');
  expect(names).toContain('db.query');
  // One trace: the request is the root (a server span with its status) and its queries are its children.
  const all = received.flatMap((r) => r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)));
  const request = all.findLast((s: any) => s.name === 'GET /v1/stores/:storeId/products');
  expect(request.traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(request.spanId).toMatch(/^[0-9a-f]{16}$/);
  expect(request.parentSpanId).toBeUndefined();
  expect(request.kind).toBe(2); // SPAN_KIND_SERVER
  expect(request.attributes).toContainEqual({ key: 'http.response.status_code', value: { intValue: 200 } });
  expect(BigInt(request.endTimeUnixNano)).toBeGreaterThan(BigInt(request.startTimeUnixNano));
  const children = all.filter((s: any) => s.parentSpanId === request.spanId);
  expect(children.length).toBeGreaterThan(0);
  expect(children.every((s: any) => s.name === 'db.query' && s.traceId === request.traceId)).toBe(true);
  expect(received[0].auth).toBe('secret one');
  const service = received[0].body.resourceSpans[0].resource.attributes.find((a: any) => a.key === 'service.name');
  expect(service.value.stringValue).toBe('svc');
});

test('GET /metrics takes the scrape token or the admin token, and nothing else', async () => {
  expect((await h.raw('GET', '/metrics', undefined, { 'x-api-key': '' })).status).toBe(401);
  expect((await h.raw('GET', '/metrics', undefined, { 'x-api-key': '', authorization: 'Bearer wrong-token-0123456789abcd' })).status).toBe(401);
  // A store's key, even with every scope, is no scrape credential.
  expect((await h.raw('GET', '/metrics', undefined, { authorization: `Bearer ${h.key}`, 'x-api-key': '' })).status).toBe(401);
  for (const token of [METRICS_TOKEN, ADMIN_TOKEN]) {
    const r = await h.raw('GET', '/metrics', undefined, { 'x-api-key': '', authorization: `Bearer ${token}` });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(r.body).toMatch(/http_requests_total\{method="GET",route="\/v1\/stores\/:storeId\/products\/:id",status="200"\} \d+/);
    expect(r.body).toContain('http_request_duration_seconds_bucket');
    expect(r.body).toMatch(/svc_tool_calls_total\{tool="products.get_product",status="error"\} \d+/);
    expect(r.body).toContain('svc_job_queue_depth');
    expect(r.body).toMatch(/svc_provider_failures_total\{provider="openai"\} \d+/);
  }
});

test('the span store is bounded: the retention, then a cap per store', async () => {
  const fresh = await setup();
  const row = (i: number, hoursAgo: number) => [fresh.store.id, `t${i}`, `s${i}`, new Date(Date.now() - hoursAgo * 3600_000)];
  for (const [i, age] of [
    [1, 30],
    [2, 3],
    [3, 2],
    [4, 1],
  ])
    await fresh.db.query(
      `INSERT INTO telemetry_spans (store_id, trace_id, span_id, name, kind, started_at, duration_ms) VALUES ($1, $2, $3, 'x', 'request', $4, 1)`,
      row(i, age),
    );
  await prune(fresh.db, new Date(), 24, 2);
  const left = await fresh.db.query('SELECT span_id FROM telemetry_spans WHERE store_id = $1 ORDER BY started_at', [fresh.store.id]);
  expect(left.map((r) => r.span_id)).toEqual(['s3', 's4']);
});

test('without a collector, queries are timed and kept only when slow (SVC_TELEMETRY_SLOW_QUERY_MS)', async () => {
  const base = h.registry.configOf('telemetry') as TelemetrySettings;
  await stop(); // this file's tracer (with a collector) gives way to one without
  const queriesOf = async (slow_query_ms: number) => {
    const t = startTelemetry(h.db, { ...base, slow_query_ms }, createLogger());
    try {
      const got = await h.call('GET', '/products?limit=1');
      const trace = (await spans(`?request_id=${got.headers.get('x-request-id')}`)).data;
      expect(trace.filter((s: any) => s.kind === 'request')).toHaveLength(1);
      return trace.filter((s: any) => s.kind === 'query');
    } finally {
      await t.stop();
    }
  };
  expect(await queriesOf(60_000)).toEqual([]);
  const kept = await queriesOf(0);
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.every((q: any) => q.attributes['db.query.text'])).toBe(true);
  ({ tracer, stop } = startTelemetry(h.db, base, createLogger())); // afterAll stops one
});

test('past SVC_TELEMETRY_SPANS_PER_SECOND ordinary spans are not kept, yet get_metrics counts every request', async () => {
  const base = h.registry.configOf('telemetry') as TelemetrySettings;
  await stop();
  const fresh = await setup();
  // Queries are kept when slow, and a kept span counts against the rate: on a busy machine a
  // request's queries (which end before it) could spend the budget, so here none counts as slow.
  const t = startTelemetry(fresh.db, { ...base, spans_per_second: 2, slow_query_ms: 60_000 }, createLogger());
  try {
    for (let i = 0; i < 10; i++) expect((await fresh.call('GET', '/products?limit=1')).status).toBe(200);
    // Kept spans are written behind the requests: read them once this tracer has written its buffers.
    await t.tracer.flush();
    const kept = (await fresh.call('GET', `/telemetry/spans?route=${encodeURIComponent('/v1/stores/:storeId/products')}`)).body.data;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(10);
    const m = (await fresh.call('GET', '/telemetry/metrics?window_minutes=5')).body;
    expect(m.requests.by_status['2xx']).toBeGreaterThanOrEqual(10);
  } finally {
    await t.stop();
  }
  ({ tracer, stop } = startTelemetry(h.db, base, createLogger()));
});

test('latency percentiles are read from the histogram buckets', () => {
  expect(percentile([4, 0, 0], 0.5)).toBe(0.5); // four requests under 1 ms: the median halfway
  expect(percentile([0, 0, 10, ...new Array(12).fill(0)], 0.99)).toBeCloseTo(4.97); // within (2, 5] ms
  expect(percentile([], 0.5)).toBe(0);
});

test('fingerprints mask what varies and keep what tells failures apart', () => {
  expect(maskMessage("order 5f0c7a8e-1b2c-4d3e-8f9a-0b1c2d3e4f5a: key svc_live_ab12CD34ef56 failed after 3 tries for 'ada@example.com'")).toBe(
    "order <id>: key <id> failed after <n> tries for '<value>'",
  );
  const a = fingerprint('request', 'api_error', '/v1/x', 'row 17 vanished');
  expect(fingerprint('request', 'api_error', '/v1/x', 'row 912 vanished')).toBe(a);
  expect(fingerprint('job', 'api_error', '/v1/x', 'row 17 vanished')).not.toBe(a);
  expect(fingerprint('request', 'api_error', '/v1/y', 'row 17 vanished')).not.toBe(a);
  expect(fingerprint('request', 'api_error', '/v1/x', 'column 17 vanished')).not.toBe(a);
});

test('spans waiting for a slow collector are bounded: past 2,048 waiting, new ones are dropped and counted', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const slow = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: async () => (await held, Response.json({})) });
  const batch = new OtlpBatch(`http://127.0.0.1:${slow.port}`, undefined, 'svc', createLogger());
  try {
    // The first 512 go as a batch (held by the collector); 2,048 more wait; the rest are dropped.
    for (let i = 0; i < 3000; i++) {
      const s = new SvcSpan('request', 'GET /x', undefined, performance.now());
      s.durationMs = 1;
      batch.add(s);
    }
    expect(batch.dropped).toBe(3000 - 512 - 2048);
  } finally {
    release();
    await batch.shutdown();
    slow.stop(true);
  }
});
