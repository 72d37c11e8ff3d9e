/**
 * The UCP REST binding (checkout-rest.md, order-rest.md, catalog/rest.md) and `/.well-known/ucp`,
 * as public global routes: the store is the one whose hostname the request came to (Host), the
 * caller the agent its profile and signature say. Every answer is UCP's own wire: business
 * outcomes as the resource with `messages[]`, protocol errors as `{code, content}` with the spec's
 * status, never svc's SPEC 7 envelope.
 */
import type { Ctx } from '../../../core/sdk';
import { identifyAgent } from './agent';
import { allowInsecure } from './config';
import { ucpFail, UcpError } from './errors';
import { idempotencyKey } from './idempotency';
import { storeKeys } from './keys';
import { WRITES, type Op } from './operations';
import type { Outcome } from './ops';
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
export async function serve(ctx: Ctx, input: { body?: Uint8Array; id?: string }, op: Op): Promise<Response> {
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
export async function wellKnown(ctx: Ctx): Promise<Response> {
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
