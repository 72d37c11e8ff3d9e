import { toSvcError } from '../errors';
import { createLogger, errorFields, type Logger } from '../log';
import { LATEST } from './versioning';
import { tracing } from '../plugins/telemetry';

/** The headers every response carries (SPEC 4, 9). */
export function baseHeaders(requestId: string, version = LATEST.id): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Request-Id': requestId,
    'X-API-Version': version,
    'X-API-Latest-Version': LATEST.id,
  };
}

export function json(status: number, body: unknown, headers: Record<string, string>) {
  if (status !== 204) return new Response(JSON.stringify(body), { status, headers });
  // 204 is "empty" (a DELETE that answers nothing): no body, so no content type either.
  const { 'Content-Type': _, ...rest } = headers;
  return new Response(null, { status, headers: rest });
}

/** A JSON answer whose text is already made (an idempotent replay sends the first answer's bytes). */
export function textResponse(status: number, text: string, headers: Record<string, string>) {
  if (status !== 204) return new Response(text, { status, headers });
  const { 'Content-Type': _, ...rest } = headers;
  return new Response(null, { status, headers: rest });
}

const fallbackLog = createLogger();

/** Any thrown value as the SPEC 7 envelope; unexpected errors are logged here (one line, with the request id) and answered as a bare 500. */
export function errorResponse(err: unknown, requestId: string, headers: Record<string, string>, log: Logger = fallbackLog): Response {
  const e = toSvcError(err);
  if (e !== err && e.code === 'database_unavailable') log.warn('database unavailable', { request_id: requestId, ...errorFields(err) });
  else if (e !== err)
    log.error('unexpected error', {
      request_id: requestId,
      ...errorFields(err),
      ...(err instanceof Error && err.stack ? { at: err.stack.split('\n')[1]?.trim() } : {}),
    });
  // A 5xx is an error of the request's span (query_errors groups it); the cause's own message says more than the envelope's.
  if (e.status >= 500) tracing.tracer?.annotate({ error_code: e.code, error_message: err instanceof Error ? err.message : e.message });
  return json(
    e.status,
    { error: { type: e.type, message: e.message, code: e.code, param: e.param, request_id: requestId } },
    { ...headers, ...e.headers },
  );
}
