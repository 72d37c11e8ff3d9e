import type { Db } from '../db/types';
import type { ActionDef, PluginDef, RestMapping, Store } from '../plugins/contract';
import type { Registry } from '../plugins/registry';
import { callerCtx, invoke, runAfterCommit, runsBare } from '../plugins/invoke';
import { acceptedScopes } from '../plugins/contract';
import type { CallerCtx } from '../plugins/contract';
import { errors, SvcError } from '../errors';
import { getStore } from '../keys';
import { hostOf, storeForHost } from '../hosts';
import { authenticate, type AuthKind } from './auth';
import { readBody } from './body';
import { claimInFlight, idempotencyKeyOf, keyOwner, withIdempotency, type StoredResponse } from './idempotency';
import { streamIdempotently } from './idempotent-stream';
import { newRequestId } from '../ids';
import { baseHeaders, errorResponse, textResponse } from './respond';
import type { Services } from './services';
import { LATEST, VERSIONS, downgradeBody, notYetInVersion, resolveVersion, type ResolvedVersion } from './versioning';
import { requestFacts } from '../net/site';
import { tracing } from '../plugins/telemetry';

export const STORE_PREFIX = '/v1/stores/:storeId';

export interface RestRoute {
  plugin: PluginDef;
  actionName: string;
  action: ActionDef;
  method: string;
  /** Full path in Elysia syntax, e.g. /v1/stores/:storeId/products/:id */
  path: string;
  status: number;
  /** The route's declared kinds, defaults filled in. */
  auth: AuthKind[];
  scope: 'store' | 'global';
  body: NonNullable<RestMapping['body']>;
  response: NonNullable<RestMapping['response']>;
  /** Path parameters with the pattern their value must match (ids), compiled once. */
  pathChecks: [string, RegExp][];
  /**
   * The GET of the resource the path names (`GET /products/:id` for `POST /products/:id/variants`,
   * the route's own path for a PATCH or DELETE): asked when a request's input is refused, so that
   * another store's id is 404 whatever the body (ownership first, as SPEC 7 has it).
   */
  owner?: RestRoute;
}

/** `api_key` routes take a user's token too: both are a store's credential with scopes. A list is taken as written. */
const authKinds = (auth: RestMapping['auth']): AuthKind[] =>
  Array.isArray(auth) ? [...auth] : auth === undefined || auth === 'api_key' ? ['api_key', 'user'] : [auth];

/** Every REST route, derived from the plugin declarations. */
export function restRoutes(registry: Registry): RestRoute[] {
  const routes = declaredRoutes(registry);
  const gets = new Map(routes.filter((r) => r.method === 'GET' && r.auth.every((k) => k !== 'public')).map((r) => [r.path, r]));
  for (const route of routes) {
    // The longest prefix of the path that ends in a parameter other than the store's and is read by a GET.
    const segments = route.path.split('/');
    for (let end = segments.length; end > 0 && !route.owner; end--) {
      const last = segments[end - 1];
      if (!last.startsWith(':') || last === ':storeId') continue;
      const owner = gets.get(segments.slice(0, end).join('/'));
      if (owner && owner !== route) route.owner = owner;
    }
  }
  return routes;
}

function declaredRoutes(registry: Registry): RestRoute[] {
  return registry.plugins.flatMap((plugin) =>
    Object.entries(plugin.actions)
      .filter(([, a]) => a.rest)
      .map(([actionName, action]): RestRoute => {
        const rest = action.rest!;
        const scope = rest.scope ?? 'store';
        if (rest.since && !VERSIONS.some((v) => v.id === rest.since))
          throw new Error(`${plugin.name}.${actionName}: rest.since '${rest.since}' is not an API version (${VERSIONS.map((v) => v.id).join(', ')})`);
        return {
          plugin,
          actionName,
          action,
          method: rest.method,
          path: (scope === 'store' ? STORE_PREFIX : '') + rest.path,
          status: rest.status ?? 200,
          auth: authKinds(rest.auth),
          scope,
          body: rest.body ?? 'json',
          response: rest.response ?? 'json',
          pathChecks: [...rest.path.matchAll(/:([a-z_]+)/g)]
            .map(([, name]) => [name, (action.input as any).properties?.[name]?.pattern] as const)
            .filter(([, pattern]) => pattern)
            .map(([name, pattern]) => [name, new RegExp(pattern)] as [string, RegExp]),
        };
      }),
  );
}

/**
 * Query strings are text: turn "5" into 5 and "true" into true where the schema wants a number or
 * boolean, strictly ("2.5" stays a number the integer check refuses; "1e1", "0x10" stay text).
 */
function coerceQueryValue(schema: any, v: string): unknown {
  const type = schema?.type;
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (type === 'boolean' && (v === 'true' || v === 'false')) return v === 'true';
  return v;
}

/** `name[key]`: one level of brackets, as Stripe writes `metadata[key]` and `created[gte]`. */
const BRACKETED = /^([A-Za-z_][A-Za-z0-9_]*)\[([^[\]]+)\]$/;

/**
 * The query string as the action's input. `name[key]=value` becomes `{ name: { key: value } }`
 * when the schema's `name` is an object (`metadata[order_ref]=A-17`, `created[gte]=2026-04-01`);
 * the inner value is coerced by the object's property (or record value) schema. Anything else,
 * deeper nesting included, stays a literal key, which the schema refuses as unknown (400).
 */
function queryInput(route: RestRoute, url: string): Record<string, unknown> {
  const q = url.indexOf('?');
  if (q < 0) return {};
  const props = (route.action.input as any).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of new URLSearchParams(url.slice(q + 1))) {
    const bracketed = BRACKETED.exec(k);
    const outer = bracketed ? props[bracketed[1]] : undefined;
    if (bracketed && outer?.type === 'object') {
      const [, name, key] = bracketed;
      const inner = outer.properties?.[key] ?? Object.values(outer.patternProperties ?? {})[0];
      if (typeof out[name] !== 'object' || out[name] === null) out[name] = {};
      // defineProperty: a key such as `__proto__` is data here, never the object's prototype.
      Object.defineProperty(out[name], key, { value: coerceQueryValue(inner, v), enumerable: true, writable: true, configurable: true });
      continue;
    }
    out[k] = coerceQueryValue(props[k], v);
  }
  return out;
}

/** A malformed id in the path names no resource: 404, as for an unknown id (SPEC 7). */
function checkPathParams(registry: Registry, route: RestRoute, pathParams: Record<string, string>) {
  for (const [name, pattern] of route.pathChecks)
    if (!pattern.test(pathParams[name]))
      throw errors.notFound(
        `${name === 'id' ? registry.noun(route.plugin) : name.replace(/_id$/, '').replaceAll('_', ' ')}: '${pathParams[name]}'`,
        name,
      );
}

/** A raw answer (an SSE stream, an image, a page, a redirect) leaves with the convention headers added. */
function rawResponse(body: unknown, headers: Record<string, string>): Response {
  if (!(body instanceof Response)) throw new Error('an action with response: raw must return a Response');
  const merged = new Headers(headers);
  merged.delete('Content-Type');
  body.headers.forEach((v, k) => merged.set(k, v));
  return new Response(body.body, { status: body.status, headers: merged });
}

/**
 * The store a request acts on: a store credential's own store (another store's URL is 403
 * store_mismatch), or for the operator the store the URL names (404 if there is none).
 */
async function storeOf(
  svc: Services,
  route: RestRoute,
  storeId: string | undefined,
  authStore: Store | undefined,
  principalKind: string,
  request: Request,
): Promise<Store> {
  if (route.scope === 'global' && route.action.rest!.host) {
    // A claimed host names its store; another store's credential there reads as an unknown host
    // (stores are walls). An unclaimed host: the credential's own store, else the only store.
    const store = await storeForHost(svc.db, hostOf(request), authStore);
    if (!store || (authStore && authStore.id !== store.id)) throw errors.notFound(`store for host: '${hostOf(request)}'`, 'host');
    return store;
  }
  if (route.scope === 'global') return authStore ?? NO_STORE;
  if (principalKind === 'admin' || principalKind === 'public') {
    const store = /^[0-9a-f-]{36}$/i.test(storeId ?? '') ? await getStore(svc.db, storeId!) : undefined;
    if (!store) throw errors.notFound(`store: '${storeId}'`, 'store_id');
    return store;
  }
  if (storeId !== authStore?.id) throw errors.storeMismatch();
  return authStore!;
}

/** The path's parameters other than the store's id, which names the store, not the input. */
function pathParamsOf(params: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k in params) if (k !== 'storeId') out[k] = params[k];
  return out;
}

/**
 * Throws the owner GET's 404 when the resource the path names is not this store's. Anything else
 * it says (a scope the credential lacks for reading, say) leaves the original error to be answered.
 */
async function ownerExists(owner: RestRoute, ctx: CallerCtx, pathParams: Record<string, string>) {
  const input: Record<string, string> = {};
  for (const name of Object.keys(pathParams)) if ((owner.action.input as any).properties?.[name]) input[name] = pathParams[name];
  try {
    await invoke(owner.plugin, owner.action, { ...ctx, principal: { ...ctx.principal, scopes: acceptedScopes(owner.plugin, 'read') } }, input);
  } catch (e) {
    if (e instanceof SvcError && e.status === 404) throw e;
  }
}

/** What an absent X-API-Version means: the latest version, with no deprecation headers. */
const LATEST_VERSION: ResolvedVersion = Object.freeze({ version: LATEST, headers: Object.freeze({}) });

/** Global routes act on no store: handlers of such routes never read ctx.store. */
const NO_STORE: Store = Object.freeze({ id: '', name: '', plan: 'free' as const });

/**
 * The REST pipeline, one place for every convention, in order: request id, version, credential,
 * store, rate limit, scope, input, idempotency, handler (through invoke), version downgrade.
 */
export async function handleRest(
  svc: Services,
  route: RestRoute,
  request: Request,
  params: Record<string, string>,
  ip?: () => string | undefined,
): Promise<Response> {
  const requestId = newRequestId();
  let headers = baseHeaders(requestId);
  let ownerCheck: (() => Promise<void>) | undefined;
  try {
    // Most requests name no version: then there is no calendar to check, and no clock to read.
    const versionHeader = request.headers.get('x-api-version');
    const version = versionHeader ? resolveVersion(versionHeader, svc.clock.now()) : LATEST_VERSION;
    if (version !== LATEST_VERSION) headers = { ...baseHeaders(requestId, version.version.id), ...version.headers };
    const missing = notYetInVersion(route.action.rest!.since, version.version, `${route.method} ${route.path}`);
    if (missing) throw missing;
    if (route.auth.length === 1 && route.auth[0] === 'admin' && !svc.adminToken)
      throw errors.auth('The admin API is disabled: set SVC_ADMIN_TOKEN on the server.');
    const { principal, store: authStore } = await authenticate(svc.authenticators, request, route.auth);
    const pathParams = pathParamsOf(params);
    const store = await storeOf(svc, route, params?.storeId, authStore, principal.kind, request);
    // The request's span belongs to this store from here (a refused credential's never does).
    if (store !== NO_STORE) tracing.tracer?.annotate({ store_id: store.id, request_id: requestId });
    if (store !== NO_STORE && (principal.kind === 'api_key' || principal.kind === 'user')) {
      const leasing = svc.rateLimiter.check(store.id, store.plan, headers);
      if (leasing) await leasing;
    }
    // The scope is invoke's to check (core/plugins/invoke.ts checkScope), as for every caller.
    checkPathParams(svc.registry, route, pathParams);
    // The origin and the client's address are worked out only for the few handlers that read them.
    const http = requestFacts(svc.registry.site, request, ip);
    const ctx = callerCtx(svc, principal, store, { requestId, http, apiVersion: version.version.id });
    // Ownership before the body: a refused input on another store's resource is that resource's 404.
    if (route.owner) ownerCheck = () => ownerExists(route.owner!, ctx, pathParams);

    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    const body = hasBody ? await readBody(request, route.body) : { raw: '', value: queryInput(route, request.url) };
    const input = hasBody && route.body !== 'json' && route.body !== 'form' ? { ...queryInput(route, request.url), ...body.value } : body.value;
    Object.assign(input, pathParams);
    const run = async (db: Db, afterCommitQueue?: (() => void | Promise<void>)[]) => ({
      status: route.status,
      body: await invoke(route.plugin, route.action, db === svc.db && !afterCommitQueue ? ctx : { ...ctx, db, afterCommitQueue }, input),
    });

    // The one key rule (length) wherever the header is read: every POST and PATCH.
    // Keys are namespaced per credential; the public has none, so the header is ignored there (as on a GET).
    const owner = keyOwner(principal);
    const idemKey =
      owner && (route.method === 'POST' || route.method === 'PATCH') && route.action.rest!.idempotency !== 'own' ? idempotencyKeyOf(request) : null;
    const scope =
      idemKey && owner ? { apiKeyId: owner, key: idemKey, method: route.method, path: new URL(request.url).pathname, rawBody: body.raw } : undefined;

    // A raw answer (a stream, an image, a page) leaves now with the convention headers; it manages
    // its own writes. Under a key it is recorded when it ends, and a repeat replays it
    // (core/http/idempotent-stream.ts).
    if (route.response === 'raw') {
      const start = async () => (await run(svc.db)).body as Response;
      if (!scope || route.action.external) return rawResponse(await start(), headers);
      const out = await streamIdempotently(svc.db, svc.clock, scope, start);
      if (out.replayed) headers['Idempotent-Replayed'] = 'true';
      return rawResponse(out.response, headers);
    }

    // The exact text sent is what an idempotent replay sends again.
    const render = (r: StoredResponse) => (r.status === 204 ? '' : JSON.stringify(downgradeBody(r.body, version.version)));
    // A write is one transaction, with its idempotency record: it happens whole or not at all.
    let result: { status: number; text: string };
    if (scope && route.action.external) {
      // An outside call (a model, a remote API) holds no transaction open while it waits, so its key
      // is claimed with a lease and its answer recorded when it ends, as a stream's is: a repeat
      // replays it instead of calling out (and paying) again.
      const out = await streamIdempotently(svc.db, svc.clock, scope, async () => {
        const r = await run(svc.db);
        return new Response(render(r), { status: r.status });
      });
      if (out.replayed) headers['Idempotent-Replayed'] = 'true';
      result = { status: out.response.status, text: await out.response.text() };
    } else if (runsBare(route.action, !!scope)) {
      const r = await run(svc.db);
      result = { status: r.status, text: render(r) };
    } else {
      const release = scope ? claimInFlight(scope.apiKeyId, scope.key) : () => {};
      // The transaction is REST's (it holds the idempotency record too), so the action's
      // after-commit work waits for this commit, not the handler's return.
      const afterCommit: (() => void | Promise<void>)[] = [];
      try {
        result = await svc.db.transaction(async (tx) => {
          if (!scope) {
            const r = await run(tx, afterCommit);
            return { status: r.status, text: render(r) };
          }
          const r = await withIdempotency(tx, svc.clock, scope, (db) => run(db, afterCommit), render);
          if (r.replayed) headers['Idempotent-Replayed'] = 'true';
          return r;
        });
      } finally {
        release();
      }
      await runAfterCommit(afterCommit, svc.log);
    }
    return textResponse(result.status, result.text, headers);
  } catch (err) {
    // Asked once any transaction of the request has ended (PGlite has one connection).
    const owned =
      ownerCheck && err instanceof SvcError && err.status === 400
        ? await ownerCheck().then(
            () => err,
            (e) => e,
          )
        : err;
    return errorResponse(owned, requestId, headers, svc.log);
  }
}
