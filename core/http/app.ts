import { Elysia } from 'elysia';
import { errors } from '../errors';
import { docsRoutes } from './docs';
import { newRequestId } from '../ids';
import { baseHeaders, errorResponse } from './respond';
import { handleRest, restRoutes } from './rest';
import type { Services } from './services';
import { SIGNED_ROUTE, serveSigned } from './signed';
import { MCP_PATH } from '../mcp/path';
import { lazy } from '../lazy';
import { RouteTable, methodNotAllowed, withConventionHeaders } from './routes-table';
import { tracing, type TracedOutcome } from '../plugins/telemetry';

/**
 * A request's answer as its span's outcome. The request id is read from the answer's headers only
 * when the route did not say it (REST routes and the MCP fast path do): a getter of a class, so a
 * traced request allocates one small object here, not an object literal with a getter closure.
 */
class Answered implements TracedOutcome {
  readonly status: number;
  constructor(private readonly res: Response) {
    this.status = res.status;
  }
  get request_id() {
    return this.res.headers.get('x-request-id') ?? undefined;
  }
}
const answered = (res: Response): TracedOutcome => new Answered(res);

/** A route outside the REST pipeline (the console's pages): the composition root hands them in. */
export type PageRoute = { method: string; path: string; handler: (c: { request: Request }) => Response | Promise<Response> };

/** The whole HTTP surface: derived plugin routes, the admin API, OpenAPI and docs, and pages. */
export function createApp(svc: Services, pages: PageRoute[] = []) {
  const app = new Elysia();
  const table = new RouteTable();
  // Routes outside the REST pipeline get the convention headers it sets (SPEC 4) added here.
  // Handlers name what they read ({ request, params, server }): Elysia inspects a handler's
  // parameters and, for one that takes the whole context, parses cookies, query and headers of
  // every request first (measured: a sixth of an MCP tools/call).
  type Handler = (c: { request: Request; params: Record<string, string>; server: any }) => Response | Promise<Response>;
  const route = (method: string, path: string, handler: Handler, conventions = false) => {
    table.add(method, path);
    const plain: Handler = conventions
      ? async ({ request, params, server }) => withConventionHeaders(await handler({ request, params, server }))
      : handler;
    // A span per request when a tracer is installed (core/plugins/telemetry.ts): one property read otherwise.
    const name = `${method} ${path}`;
    const attrs = { method, route: path };
    const run: Handler = ({ request, params, server }) => {
      const tracer = tracing.tracer;
      if (!tracer) return plain({ request, params, server });
      return tracer.span('request', name, attrs, () => plain({ request, params, server }), answered);
    };
    app.route(method, path, run as any, { parse: 'none' } as any);
  };
  for (const r of restRoutes(svc.registry))
    route(r.method, r.path, ({ request, params, server }) => handleRest(svc, r, request, params, () => server?.requestIP?.(request)?.address));
  route(
    'GET',
    SIGNED_ROUTE,
    ({ request, params, server }) => serveSigned(svc, request, params.token, () => server?.requestIP?.(request)?.address),
    true,
  );
  for (const r of [...docsRoutes(svc), ...pages]) route(r.method, r.path, r.handler as any, true);
  // The MCP server (and the SDK under it) loads at the first MCP request, not at start (docs/footprint.md).
  const mcp = lazy(() => import('../mcp/http'));
  for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'])
    route(method, MCP_PATH, async ({ request }) => (await mcp()).handleMcp(svc, request), true);
  route('GET', '/health', () => new Response('{"status":"ok"}', { headers: { 'Content-Type': 'application/json' } }), true);
  app.onError(({ code, error, request }) => {
    const requestId = newRequestId();
    let err: unknown = error;
    if (code === 'NOT_FOUND') {
      // A real path asked with a method it does not take is 405 with Allow, not "no such path".
      const allowed = table.allowed(new URL(request.url).pathname);
      err = allowed.length ? methodNotAllowed(request.method, allowed) : errors.notFound('resource: the path does not exist');
    }
    return errorResponse(err, requestId, baseHeaders(requestId), svc.log);
  });
  return app;
}
