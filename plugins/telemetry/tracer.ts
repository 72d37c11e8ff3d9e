import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db, Logger } from '../../core/sdk';
import type { Tracer } from '../../core/platform';
import { SLOW_SPAN_MS, type TelemetrySettings } from './config';
import { rollupBuffer, tally } from './rollups';
import { occurrenceOf } from './fingerprint';
import { providerOutcome } from './outcomes';
import { promMetrics, type PromMetrics } from './prom';
import { errorBuffer, spanBuffer, type SpanRow } from './store';
import { SvcSpan, thrown } from './span';
import { OtlpBatch } from './otlp';

/** A query's text as a span carries it: enough to recognise the statement, never its parameters. */
const QUERY_TEXT_MAX = 300;

export interface RunningTracer extends Tracer {
  metrics: PromMetrics;
  /** Spans not kept in the span store because its buffer was full (a stalled database). */
  readonly dropped: number;
  flush(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The process's tracer. Spans are svc's own small objects (span.ts), nested through async work
 * by one AsyncLocalStorage (a request's queries, a tool call's provider calls); as each ends it is
 * counted (rollups, Prometheus), kept in its store's span store when the rules below say so, and,
 * when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, handed to the OTLP exporter's batch.
 */
export function startTracer(db: Db, settings: TelemetrySettings, log: Logger): RunningTracer {
  const metrics = promMetrics(db);
  const current = new AsyncLocalStorage<SvcSpan>();
  const otlp = settings.otlp_endpoint
    ? new OtlpBatch(settings.otlp_endpoint, parseHeaders(settings.otlp_headers), settings.service_name, log)
    : undefined;
  // Every query is a span only for a collector; for the span store a query is timed, and a span made of it once it proves slow.
  const everyQuery = !!otlp;
  const slowQueryMs = settings.slow_query_ms;
  const perSecond = settings.spans_per_second;

  // The tally's counts go to the rollup buffer each second (outside any span: the write is not traced).
  const handOver = () => current.exit(() => void tally.take().forEach((r) => rollupBuffer.add(db, r, log)));
  const rollTimer = setInterval(handOver, 1000);
  rollTimer.unref?.();

  /** Per store: the second being counted and the spans kept in it. */
  const budget = new Map<string, { second: number; used: number }>();
  const withinRate = (storeId: string, atMs: number) => {
    const second = Math.floor(atMs / 1000);
    let b = budget.get(storeId);
    if (!b) budget.set(storeId, (b = { second, used: 0 }));
    else if (b.second !== second) ((b.second = second), (b.used = 0));
    return b.used++ < perSecond;
  };
  /** Set while the span buffer is past its bound: spans are dropped then, never waited for. */
  let backlogged = false;
  let dropped = 0;

  /** Each ended span, once: metrics, the store's counts, its span store (when kept), an error occurrence, OTLP. */
  const ended = (s: SvcSpan) => {
    s.ended = true;
    metrics.observe(s);
    if (s.kind === 'provider') providerOutcome(s.name, !s.failed, s.message);
    otlp?.add(s);
    const storeId = s.storeId;
    if (!storeId) return;
    const durationMs = s.durationMs;
    const startedMs = s.startedMs;
    // Every span but a query is counted (get_metrics), whether or not it is kept below.
    if (s.kind !== 'query') tally.add(storeId, startedMs, s.kind, s.route ?? s.name, s.status ?? 0, s.failed, s.error, durationMs);
    // A request makes several queries: only slow or failed ones are kept (all are exported over OTLP).
    else if (durationMs < slowQueryMs && !s.failed) return;
    // Past the store's rate, only what someone will look for: failures, errors, slow work.
    if (!s.failed && !s.error && durationMs < SLOW_SPAN_MS && !withinRate(storeId, startedMs)) return;
    const row: SpanRow = {
      store_id: storeId,
      trace_id: s.traceId,
      span_id: s.spanId,
      parent_id: s.parent ? s.parent.spanId : null,
      name: s.name,
      kind: s.kind,
      route: s.route ?? null,
      request_id: s.requestId ?? null,
      status_code: s.status ?? null,
      failed: s.failed,
      error: s.error,
      started_at: startedMs,
      duration_ms: Math.round(durationMs * 1000) / 1000,
      attributes: s.extra,
    };
    // The buffers' timers must not run inside this span's context: their writes would be traced as its queries.
    current.exit(() => {
      if (s.error) errorBuffer.add(db, occurrenceOf(row, s.code, s.message), log);
      if (backlogged) return void dropped++;
      const late = spanBuffer.add(db, row, log);
      if (late) {
        backlogged = true;
        const before = dropped;
        void late.then(() => {
          backlogged = false;
          if (dropped > before) log.warn('telemetry: spans not kept while the span store was behind', { dropped: dropped - before });
        });
      }
    });
  };

  const open = (
    kind: SvcSpan['kind'],
    name: string,
    attrs: Record<string, string | number | boolean | undefined>,
    parent: SvcSpan | undefined,
    t0: number,
  ) => {
    const s = new SvcSpan(kind, name, parent, t0);
    s.set(attrs);
    // Work inside a store's request or job belongs to that store unless it says otherwise.
    if (!s.storeId && parent) s.storeId = parent.storeId;
    return s;
  };

  const querySpan = (parent: SvcSpan, text: string, t0: number, ms: number, failure: unknown) => {
    const s = new SvcSpan('query', 'db.query', parent, t0);
    s.storeId = parent.storeId;
    s.extra = { 'db.query.text': text.length > QUERY_TEXT_MAX ? text.slice(0, QUERY_TEXT_MAX) : text };
    if (failure !== undefined) s.settle({ failed: true, code: (failure as any)?.code, message: (failure as Error)?.message });
    s.durationMs = ms;
    ended(s);
  };

  /** A query of traced work ended: a span when it failed, proved slow, or a collector wants every one. */
  const queryEnd = (parent: object, text: string, t0: number, failure?: unknown) => {
    const ms = performance.now() - t0;
    if (failure !== undefined || everyQuery || ms >= slowQueryMs) querySpan(parent as SvcSpan, text, t0, ms, failure);
  };

  return {
    metrics,
    get dropped() {
      return dropped + (otlp?.dropped ?? 0);
    },
    async span(kind, name, attrs, run, outcome) {
      const s = open(kind, name, attrs, current.getStore(), performance.now());
      let value: Awaited<ReturnType<typeof run>>;
      try {
        value = await current.run(s, run);
      } catch (e) {
        s.settle(thrown(e));
        s.durationMs = performance.now() - s.t0;
        ended(s);
        throw e;
      }
      try {
        s.settle(outcome?.(value));
      } finally {
        s.durationMs = performance.now() - s.t0;
        ended(s);
      }
      return value;
    },
    record(kind, name, attrs, durationMs, outcome) {
      const now = performance.now();
      const s = open(kind, name, attrs, current.getStore(), now - durationMs);
      s.settle(outcome);
      s.durationMs = durationMs;
      ended(s);
    },
    annotate(attrs) {
      current.getStore()?.set(attrs);
    },
    queryStart() {
      const parent = current.getStore();
      // Only queries of traced work: the span store's own writes, pg-boss's polling and start-up run bare,
      // and so does work a span left behind it (a write-behind's timer) once that span has ended.
      return parent && !parent.ended ? parent : undefined;
    },
    queryEnd,
    flush: async () => {
      await otlp?.flush();
      await spanBuffer.flush(db);
      await errorBuffer.flush(db);
      handOver();
      await rollupBuffer.flush(db);
    },
    stop: async () => {
      clearInterval(rollTimer);
      handOver();
      await rollupBuffer.flush(db).catch(() => {});
      await otlp?.shutdown().catch((e) => log.warn('telemetry: spans not exported at shutdown', { error: String(e) }));
      await spanBuffer.flush(db).catch(() => {});
      await errorBuffer.flush(db).catch(() => {});
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
