import { errors, type Ctx } from '../../core/sdk';
import { buildOpenApi, type Registry } from '../../core/platform';

/**
 * The live OpenAPI document (the one `/openapi.json` serves, built from the registry), cut down to
 * what the caller can use: operations its credential kind is accepted on and whose scopes it
 * holds, public ones, and the webhook payloads of plugins it may read. Built once per registry;
 * the cut is a walk over its paths per call.
 */
type Json = Record<string, any>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const built = new WeakMap<Registry, Json>();
const documentOf = (registry: Registry) => {
  let doc = built.get(registry);
  if (!doc) built.set(registry, (doc = buildOpenApi(registry)));
  return doc;
};

/** The security schemes that stand for this caller's kind of credential. */
const schemesOf = (ctx: Ctx) => (ctx.principal.kind === 'user' ? ['UserToken', 'UserOAuth'] : ['ApiKeyAuth', 'ApiKeyBearer']);

/** Whether the caller may call this operation: public, or its credential accepted with one of its scopes. */
function usable(ctx: Ctx, op: Json): boolean {
  if (Array.isArray(op.security) && op.security.length === 0) return true;
  const kinds = schemesOf(ctx);
  const accepts = (op.security ?? []).some((s: Json) => Object.keys(s).some((k) => kinds.includes(k)));
  const scopes: string[] | undefined = op['x-required-scopes'];
  return accepts && !!scopes && scopes.some((s) => ctx.principal.scopes.includes(s));
}

export interface Endpoint {
  operation_id: string;
  method: string;
  path: string;
  tag: string;
  operation: Json;
}

/** Every operation the caller may use, in document order. */
export function endpoints(ctx: Ctx): Endpoint[] {
  const doc = documentOf(ctx.registry);
  const out: Endpoint[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths))
    for (const method of METHODS) {
      const op = item[method];
      if (op && usable(ctx, op))
        out.push({ operation_id: op.operationId, method: method.toUpperCase(), path, tag: op.tags?.[0] ?? '', operation: op });
    }
  return out;
}

/** The document with only the caller's operations (and tags, and webhooks of plugins it may read). */
export function specFor(ctx: Ctx, tag?: string): Json {
  const doc = documentOf(ctx.registry);
  const mine = endpoints(ctx).filter((e) => !tag || e.tag === tag);
  if (tag && !mine.length) throw errors.notFound(`tag: '${tag}' (no operation of yours has it)`, 'tag');
  const paths: Json = {};
  for (const e of mine) (paths[e.path] ??= {})[e.method.toLowerCase()] = e.operation;
  const tags = new Set(mine.map((e) => e.tag));
  const readable = new Set(
    ctx.registry.plugins.filter((p) => p.scopes.read.some((s) => ctx.principal.scopes.includes(s))).flatMap((p) => Object.keys(p.events ?? {})),
  );
  const webhooks = Object.fromEntries(Object.entries<Json>(doc.webhooks ?? {}).filter(([type]) => readable.has(type)));
  return { ...doc, tags: (doc.tags ?? []).filter((t: Json) => tags.has(t.name)), paths, webhooks };
}

/** One operation by its id; one the caller cannot use is as unknown as a missing one (404). */
export function operation(ctx: Ctx, id: string): Endpoint {
  const found = endpoints(ctx).find((e) => e.operation_id === id);
  if (!found) throw errors.notFound(`operation: '${id}'`, 'operation_id');
  return found;
}
