import { createHash } from 'node:crypto';
import type { ErrorOccurrence, SpanRow } from './store';

/**
 * A message with what varies between occurrences of one failure masked: UUIDs, prefixed ids
 * (`req_…`, `svc_live_…`), long hex, e-mail addresses, URLs' hosts, quoted values and numbers. Two
 * failures that differ only there group together.
 */
export function maskMessage(message: string): string {
  return message
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\b[a-z]+_(?:[a-z]+_)?[A-Za-z0-9]{8,}\b/g, '<id>')
    .replace(/\b[0-9a-f]{12,}\b/gi, '<hex>')
    .replace(/[^\s@'"]+@[^\s@'"]+\.[a-z]{2,}/gi, '<email>')
    .replace(/'[^']*'/g, "'<value>'")
    .replace(/\d+(\.\d+)?/g, '<n>');
}

/** The group of a failure: its kind, code, route or tool, and its message with the varying parts masked. */
export function fingerprint(kind: string, code: string, route: string, message: string): string {
  return createHash('sha256')
    .update(`${kind}\n${code}\n${route}\n${maskMessage(message)}`)
    .digest('hex')
    .slice(0, 16);
}

/** The error occurrence a failed span is: its fingerprint and a sample a reader can follow (trace and request ids). */
export function occurrenceOf(span: SpanRow, code: string | undefined, message: string | undefined): ErrorOccurrence {
  const c = code ?? (span.status_code ? `http_${span.status_code}` : 'error');
  const m = message ?? span.name;
  const route = span.route ?? span.name;
  const at = new Date(span.started_at).toISOString();
  return {
    store_id: span.store_id,
    fingerprint: fingerprint(span.kind, c, route, m),
    kind: span.kind,
    code: c,
    route,
    at,
    sample: {
      message: m,
      code: c,
      route,
      status_code: span.status_code,
      trace_id: span.trace_id,
      span_id: span.span_id,
      request_id: span.request_id,
      at,
    },
  };
}
