import { SpanKind, SpanStatusCode, type HrTime } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { TracedKind } from '../../core/platform';
import type { Logger } from '../../core/sdk';
import type { SvcSpan } from './span';

const KINDS: Record<TracedKind, SpanKind> = {
  request: SpanKind.SERVER,
  tool_call: SpanKind.INTERNAL,
  job: SpanKind.CONSUMER,
  query: SpanKind.CLIENT,
  webhook: SpanKind.CLIENT,
  provider: SpanKind.CLIENT,
};

/** As the SDK's BatchSpanProcessor: at most this many spans wait; a batch goes at this size or each second. */
const MAX_QUEUE = 2048;
const MAX_BATCH = 512;
const DELAY_MS = 1000;

const hr = (ms: number): HrTime => {
  const s = Math.floor(ms / 1000);
  return [s, Math.min(999_999_999, Math.round((ms - s * 1000) * 1e6))];
};

/** A finished span as OpenTelemetry's exporters read it (its ids are made here if nothing made them yet). */
export function toReadable(s: SvcSpan, resource: ReadableSpan['resource']): ReadableSpan {
  const traceId = s.traceId;
  const spanId = s.spanId;
  const start = s.startedMs;
  const attributes: ReadableSpan['attributes'] = { 'svc.kind': s.kind };
  if (s.storeId) attributes['svc.store_id'] = s.storeId;
  if (s.route) attributes['svc.route'] = s.route;
  if (s.method) attributes['http.request.method'] = s.method;
  if (s.requestId) attributes['svc.request_id'] = s.requestId;
  if (s.status !== undefined) attributes['http.response.status_code'] = s.status;
  if (s.failed) attributes['svc.failed'] = true;
  if (s.error) attributes['svc.error'] = true;
  if (s.code) attributes['svc.error.code'] = s.code;
  if (s.message) attributes['svc.error.message'] = s.message;
  if (s.extra) Object.assign(attributes, s.extra);
  return {
    name: s.name,
    kind: KINDS[s.kind],
    spanContext: () => ({ traceId, spanId, traceFlags: 1 }),
    parentSpanContext: s.parent ? { traceId, spanId: s.parent.spanId, traceFlags: 1 } : undefined,
    startTime: hr(start),
    endTime: hr(start + s.durationMs),
    duration: hr(s.durationMs),
    status: s.error ? { code: SpanStatusCode.ERROR, message: s.message } : { code: SpanStatusCode.UNSET },
    attributes,
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: { name: 'svc' },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * Every span (store-less ones too) to an OTLP/HTTP collector (`<endpoint>/v1/traces`, JSON),
 * through OpenTelemetry's own exporter, batched as the SDK's batch processor does. A span waits
 * as svc's own object and is converted only here, in the batch.
 */
export class OtlpBatch {
  private queue: SvcSpan[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private sending: Promise<void> | undefined;
  private readonly exporter: OTLPTraceExporter;
  private readonly resource: ReadableSpan['resource'];
  /** Spans not exported because the queue was full (the collector slower than the spans). */
  dropped = 0;

  constructor(
    endpoint: string,
    headers: Record<string, string> | undefined,
    serviceName: string,
    private log: Logger,
  ) {
    this.exporter = new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces`, headers });
    this.resource = resourceFromAttributes({ 'service.name': serviceName, 'process.pid': process.pid });
  }

  add(s: SvcSpan) {
    if (this.queue.length >= MAX_QUEUE) {
      if (this.dropped++ === 0) this.log.warn('telemetry: OTLP queue full, spans dropped until the collector catches up');
      return;
    }
    this.queue.push(s);
    if (this.queue.length >= MAX_BATCH && !this.sending) this.send();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.send(), DELAY_MS);
      this.timer.unref?.();
    }
  }

  /** Sends what waits, a batch at a time (one export in flight). */
  private send(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sending) return this.sending;
    if (!this.queue.length) return Promise.resolve();
    const batch = this.queue.splice(0, MAX_BATCH).map((s) => toReadable(s, this.resource));
    this.sending = new Promise<void>((resolve) =>
      this.exporter.export(batch, (r) => {
        if (r.code !== 0) this.log.warn('telemetry: OTLP export failed', { error: String(r.error ?? 'unknown'), spans: batch.length });
        resolve();
      }),
    ).then(() => {
      this.sending = undefined;
      if (this.queue.length >= MAX_BATCH) return this.send();
      if (this.queue.length && !this.timer) {
        this.timer = setTimeout(() => this.send(), DELAY_MS);
        this.timer.unref?.();
      }
    });
    return this.sending;
  }

  /** Everything queued, exported now. */
  async flush() {
    while (this.queue.length || this.sending) await this.send();
  }

  async shutdown() {
    await this.flush();
    await this.exporter.shutdown();
  }
}
