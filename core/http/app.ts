import { Elysia } from 'elysia';
import { errors } from '../errors';
import { docsRoutes } from './docs';
import { baseHeaders, errorResponse, newRequestId } from './respond';
import { handleRest, restRoutes } from './rest';
import type { Services } from './services';
import { MCP_PATH, handleMcp } from '../mcp/http';

/** The whole HTTP surface: derived plugin routes, the admin API, OpenAPI and docs. */
export function createApp(svc: Services) {
  const app = new Elysia();
  for (const route of restRoutes(svc.registry)) {
    app.route(route.method, route.path, ({ request, params, server }: any) => handleRest(svc, route, request, params, server?.requestIP?.(request)?.address), { parse: 'none' } as any);
  }
  for (const r of docsRoutes(svc)) app.route(r.method, r.path, r.handler as any, { parse: 'none' } as any);
  for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'])
    app.route(method, MCP_PATH, ({ request }: any) => handleMcp(svc, request), { parse: 'none' } as any);
  app.get('/health', () => new Response('{"status":"ok"}', { headers: { 'Content-Type': 'application/json' } }));
  app.onError(({ code, error }) => {
    const requestId = newRequestId();
    const err = code === 'NOT_FOUND' ? errors.notFound('resource: the path does not exist') : error;
    return errorResponse(err, requestId, baseHeaders(requestId));
  });
  return app;
}
