import type { Services } from './services';

/** Placeholder until the OpenAPI document and docs page land (see core issue). */
export function docsRoutes(_svc: Services): { method: string; path: string; handler: (c: { request: Request }) => Response | Promise<Response> }[] {
  return [];
}
