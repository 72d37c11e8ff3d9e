import { SvcError } from '../errors';
import { LATEST } from './versioning';
import { newRequestId } from '../ids';
import { tracing } from '../plugins/telemetry';

/**
 * The paths the app serves and their methods, so a request that names a real path with a method it
 * does not take is answered 405 with `Allow` (RFC 9110 15.5.6), not 404 "no such path".
 */
export class RouteTable {
  private routes: { method: string; pattern: RegExp }[] = [];

  add(method: string, path: string) {
    const pattern = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\?:[A-Za-z_][A-Za-z0-9_]*/g, '[^/]+')}/?$`);
    this.routes.push({ method, pattern });
  }

  /** The methods served on this path (HEAD with GET, as Bun answers it), in a stable order. */
  allowed(pathname: string): string[] {
    const methods = new Set(this.routes.filter((r) => r.pattern.test(pathname)).map((r) => r.method));
    if (methods.has('GET')) methods.add('HEAD');
    return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => methods.has(m));
  }
}

export const methodNotAllowed = (method: string, allowed: string[]) =>
  new SvcError('method_not_allowed', `${method} is not supported on this path; it takes ${allowed.join(', ')}.`, null, { Allow: allowed.join(', ') });

/** Request bodies larger than the limit: 413 (RFC 9110 15.5.14) with the usual envelope. */
export const requestTooLarge = (limitText: string) => new SvcError('request_too_large', `The request body exceeds ${limitText}.`);

/**
 * SPEC 4: every response carries X-Request-Id, X-API-Version and X-API-Latest-Version, including
 * the routes outside the REST pipeline (health, docs, OpenAPI, MCP). Adds those a response lacks.
 */
export const conventionHeaders = () => ({ 'X-Request-Id': newRequestId(), 'X-API-Version': LATEST.id, 'X-API-Latest-Version': LATEST.id });

/** Responses made with conventionHeaders() in their init: nothing to add (reading `headers` alone costs). */
const complete = new WeakSet<Response>();

/** A response carrying SPEC 4's headers from the start (the MCP fast path: setting them after costs more). `init.headers` gets them. */
export function conventionResponse(body: string, init: { status: number; headers: Record<string, string> }): Response {
  const requestId = (init.headers['X-Request-Id'] = newRequestId());
  // The request's span (core/plugins/telemetry.ts) takes its id here rather than reading it back from the headers.
  tracing.tracer?.annotate({ request_id: requestId });
  init.headers['X-API-Version'] = init.headers['X-API-Latest-Version'] = LATEST.id;
  const response = new Response(body, init);
  complete.add(response);
  return response;
}

export function withConventionHeaders(response: Response): Response {
  if (complete.has(response)) return response;
  const h = response.headers;
  try {
    if (!h.has('x-request-id')) h.set('X-Request-Id', newRequestId());
    if (!h.has('x-api-version')) h.set('X-API-Version', LATEST.id);
    if (!h.has('x-api-latest-version')) h.set('X-API-Latest-Version', LATEST.id);
    return response;
  } catch {
    // Immutable headers (a response passed through from fetch): copy it into one we may change.
    return withConventionHeaders(new Response(response.body, response));
  }
}
