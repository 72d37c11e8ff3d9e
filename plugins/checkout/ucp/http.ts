/**
 * The UCP REST binding (checkout-rest.md, order-rest.md, catalog/rest.md) and `/.well-known/ucp`,
 * as public global routes: the store is the one whose hostname the request came to (Host), the
 * caller the agent its profile and signature say. Every answer is UCP's own wire: business
 * outcomes as the resource with `messages[]`, protocol errors as `{code, content}` with the spec's
 * status, never svc's SPEC 7 envelope.
 */
import { Type } from '@sinclair/typebox';
import { action, noExample, type Ctx } from '../../../core/sdk';
import { identifyAgent } from './agent';
import { allowInsecure } from './config';
import { ucpFail, UcpError } from './errors';
import { idempotencyKey } from './idempotency';
import { storeKeys } from './keys';
import { runOp, WRITES, type Op, type Outcome } from './ops';
import { businessProfile } from './profile';
import type { AgentProfile } from './profiles';
import { agenticScope, type Scope } from './scope';
import { signMessage } from './signatures';

const JSON_TYPE = 'application/json';

/** A UCP protocol error as REST answers it. */
export function errorResponse(err: UcpError): Response {
  const headers: Record<string, string> = { 'content-type': JSON_TYPE };
  if (err.extra.retry_after) headers['retry-after'] = String(err.extra.retry_after);
  if (err.status === 401) headers['www-authenticate'] = 'Signature realm="ucp"';
  return new Response(JSON.stringify(err.body()), { status: err.status, headers });
}

/** A body as JSON: none is undefined; anything but a JSON object or array is 400. */
export function parseBody(body: Uint8Array): unknown {
  if (!body.byteLength) return undefined;
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw ucpFail('invalid_request', 'The body is not valid JSON.');
  }
}

/**
 * Runs an identified operation in the Host's store (the plugin's internal actions): writes in one transaction
 * with their idempotency record (keyed by the agent's profile), reads outside one.
 */
export async function perform(
  ctx: Ctx,
  scope: Scope,
  agent: AgentProfile,
  op: Op,
  id: string | undefined,
  payload: unknown,
  key?: string,
): Promise<Outcome & { replayed?: boolean }> {
  const input = {
    op,
    ...(id !== undefined ? { id } : {}),
    ...(payload !== undefined ? { payload } : {}),
    ...(key ? { key } : {}),
    agent,
    origin: scope.origin,
  };
  return ctx.call(WRITES.has(op) ? 'checkout.ucp_write' : 'checkout.ucp_read', input);
}

/** One REST call: scope, agent, idempotency, operation, and the complete response signed with the store's key. */
async function serve(ctx: Ctx, input: { body?: Uint8Array; id?: string }, op: Op): Promise<Response> {
  try {
    const scope = await agenticScope(ctx);
    const request = ctx.http!.request;
    const body = input.body ?? new Uint8Array();
    const agent = await identifyAgent({
      request,
      body,
      settings: scope.settings,
      allowInsecure: allowInsecure(ctx.config),
      now: ctx.clock.now().getTime(),
    });
    const payload = parseBody(body);
    const key = WRITES.has(op) ? idempotencyKey(request.headers.get('idempotency-key')) : undefined;
    const out = await perform(ctx, scope, agent, op, input.id, payload, key);
    const text = JSON.stringify(out.body);
    const headers = new Headers({ 'content-type': JSON_TYPE });
    if (key) headers.set('idempotency-key', key);
    if (out.replayed) headers.set('idempotent-replayed', 'true');
    // Signatures are RECOMMENDED on complete responses (checkout-rest.md "Response Signing").
    if (op === 'complete_checkout') {
      const keys = await storeKeys(ctx.db, scope.store.id, ctx.clock);
      await signMessage({ status: out.status, headers }, text, keys.signing, Math.floor(ctx.clock.now().getTime() / 1000));
    }
    return new Response(text, { status: out.status, headers });
  } catch (err) {
    if (err instanceof UcpError) return errorResponse(err);
    throw err;
  }
}

/** GET /.well-known/ucp: the store's business profile, cacheable by anyone (overview.md: public, max-age ≥ 60). */
async function wellKnown(ctx: Ctx): Promise<Response> {
  try {
    const scope = await agenticScope(ctx);
    const keys = await storeKeys(ctx.db, scope.store.id, ctx.clock);
    const doc = businessProfile(scope.origin, scope.settings, keys.published);
    return new Response(JSON.stringify(doc), { status: 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'public, max-age=300' } });
  } catch (err) {
    if (err instanceof UcpError) return errorResponse(err);
    throw err;
  }
}

const RawInput = Type.Object(
  { body: Type.Optional(Type.Any()), content_type: Type.Optional(Type.String()), id: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: true },
);
const RawOutput = (what: string) => Type.Object({}, { additionalProperties: true, description: what });
const ucpRoute = (method: 'GET' | 'POST' | 'PUT', path: string) =>
  ({ method, path, auth: 'public', scope: 'global', host: true, idempotency: 'own', body: 'raw', response: 'raw', contentType: JSON_TYPE }) as const;
const noSweep = noExample('UCP routes answer only on a claimed hostname with UCP enabled, to a signed agent (plugins/checkout/ucp tests).');

const route = (op: Op, kind: 'read' | 'write', method: 'GET' | 'POST' | 'PUT', path: string, description: string) =>
  action({
    kind,
    description,
    input: RawInput,
    output: RawOutput(`UCP ${op} answer (ucp.dev 2026-04-08).`),
    rest: ucpRoute(method, path),
    example: noSweep,
    handler: (ctx, input) => serve(ctx, input as { body?: Uint8Array; id?: string }, op),
  });

/** The UCP routes, spread into the checkout plugin's actions. */
export const ucpActions = {
  ucp_profile: action({
    kind: 'read',
    description: "UCP discovery: the store's business profile (services, capabilities, payment handlers, signing keys).",
    input: Type.Object({}, { additionalProperties: true }),
    output: RawOutput('The UCP business profile.'),
    rest: { method: 'GET', path: '/.well-known/ucp', auth: 'public', scope: 'global', host: true, response: 'raw', contentType: JSON_TYPE },
    example: noSweep,
    handler: (ctx) => wellKnown(ctx),
  }),
  ucp_create_checkout: route('create_checkout', 'write', 'POST', '/ucp/v1/checkout-sessions', 'UCP create_checkout: open a checkout session.'),
  ucp_get_checkout: route('get_checkout', 'read', 'GET', '/ucp/v1/checkout-sessions/:id', 'UCP get_checkout.'),
  ucp_update_checkout: route('update_checkout', 'write', 'PUT', '/ucp/v1/checkout-sessions/:id', 'UCP update_checkout (full replacement).'),
  ucp_complete_checkout: route(
    'complete_checkout',
    'write',
    'POST',
    '/ucp/v1/checkout-sessions/:id/complete',
    'UCP complete_checkout: place the order.',
  ),
  ucp_cancel_checkout: route('cancel_checkout', 'write', 'POST', '/ucp/v1/checkout-sessions/:id/cancel', 'UCP cancel_checkout.'),
  ucp_get_order: route('get_order', 'read', 'GET', '/ucp/v1/orders/:id', 'UCP get_order: the current state of an order the agent placed.'),
  ucp_search_catalog: route('search_catalog', 'read', 'POST', '/ucp/v1/catalog/search', 'UCP catalog search.'),
  ucp_lookup_catalog: route('lookup_catalog', 'read', 'POST', '/ucp/v1/catalog/lookup', 'UCP catalog lookup by product or variant ids.'),
  ucp_get_product: route('get_product', 'read', 'POST', '/ucp/v1/catalog/product', 'UCP get_product: one product in full.'),
};
