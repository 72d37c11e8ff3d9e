import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Db, Logger } from '../../core/sdk';
import type { TracedAttrs, TracedKind, TracedOutcome, Tracer } from '../../core/platform';
import { SLOW_SPAN_MS, type TelemetrySettings } from './config';
import { rollupBuffer, tally } from './rollups';
import { occurrenceOf } from './fingerprint';
import { providerOutcome } from './outcomes';
import { promMetrics, type PromMetrics } from './prom';
import { errorBuffer, spanBuffer, type SpanRow } from './store';

const KINDS: Record<TracedKind, SpanKind> = {
  request: SpanKind.SERVER,
  tool_call: SpanKind.INTERNAL,
  job: SpanKind.CONSUMER,
  query: SpanKind.CLIENT,
  webhook: SpanKind.CLIENT,
  provider: SpanKind.CLIENT,
};

/** A query's text as a span carries it: enough to recognise the statement, never its parameters. */
const QUERY_TEXT_MAX = 300;

/** The attributes svc puts on its spans (OpenTelemetry's own names where one exists). */
const A = {
  kind: 'svc.kind',
  store: 'svc.store_id',
  route: 'svc.route',
  requestId: 'svc.request_id',
  status: 'http.response.status_code',
  method: 'http.request.method',
  failed: 'svc.failed',
  error: 'svc.error',
  code: 'svc.error.code',
  message: 'svc.error.message',
} as const;

const hrMs = ([s, ns]: [number, number]) => s * 1000 + ns / 1e6;

/** Our attributes under their OpenTelemetry names; anything else keeps its own. */
function spanAttrs(kind: TracedKind, attrs: TracedAttrs): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = { [A.kind]: kind };
  for (const k in attrs) {
    const v = attrs[k];
    if (v === undefined) continue;
    // A dotted name is already OpenTelemetry's (db.query.text); a bare one is svc's own.
    out[
      k === 'store_id'
        ? A.store
        : k === 'route'
          ? A.route
          : k === 'method'
            ? A.method
            : k === 'request_id'
              ? A.requestId
              : k.includes('.')
                ? k
                : `svc.${k}`
    ] = v;
  }
  return out;
}

function applyOutcome(span: Span, o: TracedOutcome | undefined) {
  if (!o) return;
  if (o.status !== undefined) span.setAttribute(A.status, o.status);
  if (o.request_id) span.setAttribute(A.requestId, o.request_id);
  const failed = o.failed ?? (o.status !== undefined && o.status >= 400);
  if (failed) span.setAttribute(A.failed, true);
  // 4xx answers are the client's: metrics, never errors. A 5xx, a job failed for good, a provider's failure are errors.
  const error = o.error ?? (o.status !== undefined && o.status >= 500);
  if (o.code) span.setAttribute(A.code, o.code);
  if (o.message) span.setAttribute(A.message, o.message.slice(0, 1000));
  if (error) {
    span.setAttribute(A.error, true);
    span.setStatus({ code: SpanStatusCode.ERROR, message: o.message });
  }
}

/** How a throw ended a span: an SvcError's status, code and message; anything else is a 500. */
function thrown(e: unknown): TracedOutcome {
  const err = e as { status?: number; code?: string; message?: string };
  const status = typeof err?.status === 'number' ? err.status : 500;
  return { failed: true, error: status >= 500, code: err?.code ?? 'api_error', message: err?.message ?? String(e), status: undefined };
}

/**
 * Each ended span, once: a row of its store's span store (written behind, in batches), the
 * instance's Prometheus metrics, and an error occurrence when it ended in one.
 */
class StoreProcessor implements SpanProcessor {
  /** Set while the buffer is past its bound: spans are dropped then, never waited for. */
  private backlogged = false;
  dropped = 0;
  constructor(
    private db: Db,
    private log: Logger,
    private metrics: PromMetrics,
    private slowQueryMs: number,
    private spansPerSecond: number,
  ) {}
  /** Per store: the second being counted and the spans kept in it. */
  private budget = new Map<string, { second: number; used: number }>();
  /** Whether a store may keep one more ordinary span this second. */
  private withinRate(storeId: string, atMs: number) {
    const second = Math.floor(atMs / 1000);
    let b = this.budget.get(storeId);
    if (!b || b.second !== second) this.budget.set(storeId, (b = { second, used: 0 }));
    return b.used++ < this.spansPerSecond;
  }
  onStart() {}
  forceFlush() {
    return spanBuffer.flush(this.db).then(() => errorBuffer.flush(this.db));
  }
  shutdown() {
    return this.forceFlush();
  }
  onEnd(span: ReadableSpan) {
    const a = span.attributes;
    const kind = a[A.kind] as TracedKind | undefined;
    if (!kind) return;
    this.metrics.observe(kind, span);
    if (kind === 'provider') providerOutcome(span.name, a[A.failed] !== true, a[A.message] as string | undefined);
    const storeId = a[A.store] as string | undefined;
    if (!storeId) return;
    const durationMs = hrMs(span.duration);
    const startedMs = hrMs(span.startTime);
    const failed = a[A.failed] === true;
    const error = a[A.error] === true;
    // Every span but a query is counted (get_metrics), whether or not it is kept below.
    if (kind !== 'query')
      tally.add(storeId, startedMs, kind, (a[A.route] as string) ?? span.name, (a[A.status] as number) ?? 0, failed, error, durationMs);
    // A request makes several queries: only slow or failed ones are kept (all are exported over OTLP).
    if (kind === 'query' && durationMs < this.slowQueryMs && !failed) return;
    // Past the store's rate, only what someone will look for: failures, errors, slow work.
    if (!failed && !error && durationMs < SLOW_SPAN_MS && !this.withinRate(storeId, startedMs)) return;
    const ctx = span.spanContext();
    const row: SpanRow = {
      store_id: storeId,
      trace_id: ctx.traceId,
      span_id: ctx.spanId,
      parent_id: span.parentSpanContext?.spanId ?? null,
      name: span.name,
      kind,
      route: (a[A.route] as string) ?? null,
      request_id: (a[A.requestId] as string) ?? null,
      status_code: (a[A.status] as number) ?? null,
      failed,
      error,
      started_at: startedMs,
      duration_ms: Math.round(durationMs * 1000) / 1000,
      attributes: extraAttributes(a),
    };
    // The buffers' timers must not run inside this span's context: their writes would be traced as its queries.
    context.with(ROOT_CONTEXT, () => {
      if (a[A.error] === true) errorBuffer.add(this.db, occurrenceOf(row, a[A.code] as string, a[A.message] as string), this.log);
      if (this.backlogged) return void this.dropped++;
      const late = spanBuffer.add(this.db, row, this.log);
      if (late) {
        this.backlogged = true;
        late.then(() => (this.backlogged = false));
      }
    });
  }
}

const KNOWN = new Set<string>(Object.values(A));
/** Attributes beyond the row's columns (a query's text, a webhook's event), or null when there are none (most requests). */
function extraAttributes(a: ReadableSpan['attributes']): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  for (const k in a) if (!KNOWN.has(k)) (out ??= {})[k] = a[k];
  return out;
}

export interface RunningTracer extends Tracer {
  metrics: PromMetrics;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The process's tracer: OpenTelemetry spans through the SDK's provider, kept in the span store
 * and, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, exported over OTLP/HTTP in batches.
 */
export function startTracer(db: Db, settings: TelemetrySettings, log: Logger): RunningTracer {
  const metrics = promMetrics(db);
  const kept = new StoreProcessor(db, log, metrics, settings.slow_query_ms, settings.spans_per_second);
  // The tally's counts go to the rollup buffer each second (outside any span: the write is not traced).
  const handOver = () => context.with(ROOT_CONTEXT, () => void tally.take().forEach((r) => rollupBuffer.add(db, r, log)));
  const rollTimer = setInterval(handOver, 1000);
  rollTimer.unref?.();
  // Every query is a span only for a collector; for the span store a query is timed, and a span made of it once it proves slow.
  const everyQuery = !!settings.otlp_endpoint;
  const processors: SpanProcessor[] = [kept];
  if (settings.otlp_endpoint) {
    const url = `${settings.otlp_endpoint.replace(/\/+$/, '')}/v1/traces`;
    processors.push(
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url, headers: parseHeaders(settings.otlp_headers) }), scheduledDelayMillis: 1000 }),
    );
  }
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.service_name, 'process.pid': process.pid }),
    spanProcessors: processors,
  });
  // Spans nest through async work (a request's queries, a tool call's provider calls) by AsyncLocalStorage.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const tracer = provider.getTracer('svc');

  const start = (kind: TracedKind, name: string, attrs: TracedAttrs, parent: Context, startTime?: number): Span => {
    const attributes = spanAttrs(kind, attrs);
    // Work inside a store's request or job belongs to that store unless it says otherwise.
    if (!attributes[A.store]) {
      const inherited = (trace.getSpan(parent) as unknown as ReadableSpan | undefined)?.attributes?.[A.store];
      if (typeof inherited === 'string') attributes[A.store] = inherited;
    }
    return tracer.startSpan(name, { kind: KINDS[kind], attributes, startTime }, parent);
  };

  return {
    metrics,
    async span(kind, name, attrs, run, outcome) {
      const parent = context.active();
      const span = start(kind, name, attrs, parent);
      let value: Awaited<ReturnType<typeof run>>;
      try {
        value = await context.with(trace.setSpan(parent, span), run);
      } catch (e) {
        applyOutcome(span, thrown(e));
        span.end();
        throw e;
      }
      try {
        applyOutcome(span, outcome?.(value));
      } finally {
        span.end();
      }
      return value;
    },
    record(kind, name, attrs, durationMs, outcome) {
      const parent = context.active();
      const now = performance.timeOrigin + performance.now();
      const span = tracer.startSpan(name, { kind: KINDS[kind], attributes: spanAttrs(kind, attrs), startTime: now - durationMs }, parent);
      applyOutcome(span, outcome);
      span.end(now);
    },
    annotate(attrs) {
      const span = trace.getActiveSpan();
      if (!span) return;
      for (const k in attrs) {
        const v = attrs[k];
        if (v === undefined) continue;
        if (k === 'store_id') span.setAttribute(A.store, v);
        else if (k === 'request_id') span.setAttribute(A.requestId, v);
        else if (k === 'error_code') span.setAttribute(A.code, v);
        else if (k === 'error_message') span.setAttribute(A.message, String(v).slice(0, 1000));
        else if (k === 'error') {
          span.setAttribute(A.error, v === true);
          if (v === true) span.setStatus({ code: SpanStatusCode.ERROR });
        } else span.setAttribute(`svc.${k}`, v);
      }
    },
    query(text, run) {
      const parent = context.active();
      // Only queries of traced work: the span store's own writes, pg-boss's polling and start-up run bare.
      if (parent === ROOT_CONTEXT || !trace.getSpan(parent)) return run();
      const attrs = () => ({ 'db.query.text': text.length > QUERY_TEXT_MAX ? text.slice(0, QUERY_TEXT_MAX) : text });
      if (!everyQuery) {
        const t0 = performance.now();
        const after = (failure?: unknown) => {
          const ms = performance.now() - t0;
          if (ms < settings.slow_query_ms && failure === undefined) return;
          const span = start('query', 'db.query', attrs(), parent, performance.timeOrigin + t0);
          if (failure !== undefined) applyOutcome(span, { failed: true, code: (failure as any)?.code, message: (failure as Error)?.message });
          span.end(performance.timeOrigin + t0 + ms);
        };
        return run().then(
          (rows) => (after(), rows),
          (e) => {
            after(e ?? 'failed');
            throw e;
          },
        );
      }
      const span = start('query', 'db.query', attrs(), parent);
      return run().then(
        (rows) => (span.end(), rows),
        (e) => {
          applyOutcome(span, { failed: true, code: (e as any)?.code, message: (e as Error)?.message });
          span.end();
          throw e;
        },
      );
    },
    flush: async () => {
      await provider.forceFlush();
      await kept.forceFlush();
      handOver();
      await rollupBuffer.flush(db);
    },
    stop: async () => {
      clearInterval(rollTimer);
      handOver();
      await rollupBuffer.flush(db).catch(() => {});
      await provider.shutdown().catch((e) => log.warn('telemetry: spans not exported at shutdown', { error: String(e) }));
      contextManager.disable();
      context.disable();
    },
  };
}

/** `key=value,key2=value2` (OTEL_EXPORTER_OTLP_HEADERS), values URL-decoded. */
function parseHeaders(text: string | undefined): Record<string, string> | undefined {
  if (!text) return undefined;
  const out: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) out[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}
