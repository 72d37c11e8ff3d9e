import type { TracedKind, TracedOutcome } from '../../core/platform';

/** A query's or a message's text as a span carries it. */
const MESSAGE_MAX = 1000;

/**
 * One span as svc records it: plain fields set as the work runs, no attribute map, no ids until
 * someone needs them. The OpenTelemetry SDK's spans cost a traced request about a fifth of its
 * server CPU (attribute validation, random ids, context objects, an HrTime per timestamp); these
 * become OpenTelemetry spans only in the OTLP exporter's batch (otlp.ts), off the request path.
 */
export class SvcSpan {
  storeId: string | undefined = undefined;
  route: string | undefined = undefined;
  method: string | undefined = undefined;
  requestId: string | undefined = undefined;
  status: number | undefined = undefined;
  failed = false;
  error = false;
  code: string | undefined = undefined;
  message: string | undefined = undefined;
  /** Attributes beyond the fields (a query's text, a webhook's event), under their OpenTelemetry names; null for most spans. */
  extra: Record<string, string | number | boolean> | null = null;
  durationMs = 0;
  ended = false;
  private tid: string | undefined = undefined;
  private sid: string | undefined = undefined;

  constructor(
    readonly kind: TracedKind,
    readonly name: string,
    readonly parent: SvcSpan | undefined,
    /** performance.now() at the start: one clock read, turned into wall-clock time only when kept. */
    readonly t0: number,
  ) {}

  /** The trace's id: the root span's, made the first time a span of the trace is kept or exported. */
  get traceId(): string {
    return this.parent ? this.parent.traceId : (this.tid ??= randomHex(16));
  }
  get spanId(): string {
    return (this.sid ??= randomHex(8));
  }
  /** Epoch milliseconds. */
  get startedMs(): number {
    return performance.timeOrigin + this.t0;
  }

  /** Facts of the span's start: svc's own names become fields, any other is kept under its own (dotted) or `svc.` name. */
  set(attrs: Record<string, string | number | boolean | undefined>) {
    for (const k in attrs) {
      const v = attrs[k];
      if (v === undefined) continue;
      if (k === 'store_id') this.storeId = String(v);
      else if (k === 'route') this.route = String(v);
      else if (k === 'method') this.method = String(v);
      else if (k === 'request_id') this.requestId = String(v);
      else if (k === 'error_code') this.code = String(v);
      else if (k === 'error_message') this.message = String(v).slice(0, MESSAGE_MAX);
      else if (k === 'error') this.error = v === true;
      else (this.extra ??= {})[k.includes('.') ? k : `svc.${k}`] = v;
    }
  }

  /** How the work ended. 4xx answers are the client's: metrics, never errors; a 5xx, a job failed for good, a provider's failure are. */
  settle(o: TracedOutcome | undefined) {
    if (!o) return;
    if (o.status !== undefined) this.status = o.status;
    if (!this.requestId) this.requestId = o.request_id;
    if (o.failed ?? (o.status !== undefined && o.status >= 400)) this.failed = true;
    if (o.error ?? (o.status !== undefined && o.status >= 500)) this.error = true;
    if (o.code) this.code = o.code;
    if (o.message) this.message = o.message.slice(0, MESSAGE_MAX);
  }
}

/** How a throw ended a span: an SvcError's status, code and message; anything else is a 500. */
export function thrown(e: unknown): TracedOutcome {
  const err = e as { status?: number; code?: string; message?: string };
  const status = typeof err?.status === 'number' ? err.status : 500;
  return { failed: true, error: status >= 500, code: err?.code ?? 'api_error', message: err?.message ?? String(e) };
}

// Ids from a pool of random bytes (refilled 4 KiB at a time): only kept or exported spans get one.
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const pool = new Uint8Array(4096);
let at = pool.length;
function randomHex(bytes: number): string {
  if (at + bytes > pool.length) {
    crypto.getRandomValues(pool);
    at = 0;
  }
  let out = '';
  for (let i = 0; i < bytes; i++) out += HEX[pool[at++]];
  // An all-zero id is invalid in OpenTelemetry (probability 2^-64): draw again.
  return /^0+$/.test(out) ? randomHex(bytes) : out;
}
