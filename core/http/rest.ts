import type { Db } from '../db/types';
import type { ActionDef, CallerCtx, PluginDef } from '../plugins/contract';
import { acceptedScopes } from '../plugins/contract';
import { hasScope, invoke } from '../plugins/invoke';
import { errors } from '../errors';
import { readJsonBody } from './body';
import { claimInFlight, withIdempotency } from './idempotency';
import { baseHeaders, errorResponse, json, newRequestId } from './respond';
import type { Services } from './services';
import { downgradeBody, resolveVersion } from './versioning';

export const STORE_PREFIX = '/v1/stores/:storeId';

export interface RestRoute {
  plugin: PluginDef;
  actionName: string;
  action: ActionDef;
  method: string;
  /** Full path in Elysia syntax, e.g. /v1/stores/:storeId/products/:id */
  path: string;
  status: number;
  /** Path parameters with the pattern their value must match (ids), compiled once. */
  pathChecks: [string, RegExp][];
}

/** Every REST route, derived from the plugin declarations. */
export function restRoutes(plugins: PluginDef[]): RestRoute[] {
  return plugins.flatMap((plugin) =>
    Object.entries(plugin.actions)
      .filter(([, a]) => a.rest)
      .map(([actionName, action]) => ({
        plugin,
        actionName,
        action,
        method: action.rest!.method,
        path: STORE_PREFIX + action.rest!.path,
        status: action.rest!.status ?? 200,
        pathChecks: [...action.rest!.path.matchAll(/:([a-z_]+)/g)]
          .map(([, name]) => [name, (action.input as any).properties?.[name]?.pattern] as const)
          .filter(([, pattern]) => pattern)
          .map(([name, pattern]) => [name, new RegExp(pattern)] as [string, RegExp]),
      })),
  );
}

/**
 * Query strings are text: turn "5" into 5 and "true" into true where the schema wants a number or
 * boolean, strictly ("2.5" stays a number the integer check refuses; "1e1", "0x10" stay text).
 */
function queryInput(route: RestRoute, url: string): Record<string, unknown> {
  const q = url.indexOf('?');
  if (q < 0) return {};
  const props = (route.action.input as any).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(url.slice(q + 1))) {
    const type = props[k]?.type;
    if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(v)) out[k] = Number(v);
    else if (type === 'boolean' && (v === 'true' || v === 'false')) out[k] = v === 'true';
    else out[k] = v;
  }
  return out;
}

/**
 * The API key: `x-api-key` (SPEC 4), or `Authorization: Bearer <key>`, which the custom-tool
 * gateway form and HTTP clients of the MCP kind send (SPEC 5.2).
 */
export const apiKeyOf = (request: Request) =>
  request.headers.get('x-api-key') || (/^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? null);

/** A malformed id in the path names no resource: 404, as for an unknown id (SPEC 7). */
function checkPathParams(route: RestRoute, pathParams: Record<string, string>) {
  for (const [name, pattern] of route.pathChecks)
    if (!pattern.test(pathParams[name])) throw errors.notFound(`${route.plugin.name.replace(/s$/, '')}: '${pathParams[name]}'`, name);
}

function streamed(body: unknown, headers: Record<string, string>): Response {
  if (!(body instanceof Response)) throw new Error('a stream action must return a Response');
  const merged = new Headers(headers);
  body.headers.forEach((v, k) => merged.set(k, v));
  return new Response(body.body, { status: body.status, headers: merged });
}

/**
 * The REST pipeline, one place for every convention, in order: request id, version, API key,
 * store, rate limit, scope, input, idempotency, handler (through invoke), version downgrade.
 */
export async function handleRest(svc: Services, route: RestRoute, request: Request, params: Record<string, string>): Promise<Response> {
  const requestId = newRequestId();
  let headers = baseHeaders(requestId);
  try {
    const version = resolveVersion(request.headers.get('x-api-version'), svc.clock.now());
    headers = { ...baseHeaders(requestId, version.version.id), ...version.headers };
    const { principal, store } = await svc.keys.resolve(apiKeyOf(request));
    if (params.storeId !== principal.storeId) throw errors.storeMismatch();
    const rate = await svc.rateLimiter.check(store.id, store.plan);
    Object.assign(headers, rate.headers);
    const accepted = acceptedScopes(route.plugin, route.action.kind);
    if (!hasScope(principal.scopes, accepted)) throw errors.scope(accepted);

    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    const body = hasBody ? await readJsonBody(request) : { raw: '', value: queryInput(route, request.url) };
    const { storeId, ...pathParams } = params;
    const input = { ...(body.value as object), ...pathParams };
    checkPathParams(route, pathParams);
    const ctx: CallerCtx = { db: svc.db, store, principal, clock: svc.clock, requestId, storePath: `/v1/stores/${storeId}`, shutdown: svc.shutdown };
    const run = async (db: Db) => ({ status: route.status, body: await invoke(route.plugin, route.action, { ...ctx, db }, input) });

    // A streamed answer (SSE) leaves now with the convention headers; it manages its own writes.
    if (route.action.stream) return streamed((await run(svc.db)).body, headers);

    // A write is one transaction, with its idempotency record: it happens whole or not at all.
    const idemKey = route.method === 'POST' || route.method === 'PATCH' ? request.headers.get('idempotency-key') : null;
    let result: { status: number; body: unknown };
    if (route.action.kind === 'read' || route.action.external || (route.action.atomic && !idemKey)) result = await run(svc.db);
    else {
      const release = idemKey ? claimInFlight(principal.keyId, idemKey) : () => {};
      try {
        result = await svc.db.transaction(async (tx) => {
          if (!idemKey) return run(tx);
          const r = await withIdempotency(
          tx,
          svc.clock,
          { apiKeyId: principal.keyId, key: idemKey, method: route.method, path: new URL(request.url).pathname, rawBody: body.raw },
          run,
        );
          if (r.replayed) headers['Idempotent-Replayed'] = 'true';
          return r;
        });
      } finally {
        release();
      }
    }
    return json(result.status, downgradeBody(result.body, version.version), headers);
  } catch (err) {
    return errorResponse(err, requestId, headers);
  }
}
