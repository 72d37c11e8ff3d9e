/**
 * The UCP operations, transport-neutral: REST (http.ts) and the MCP binding (mcp.ts) parse their
 * wire into an operation, an optional resource id and a payload, and render the Outcome. The
 * agent is already identified (profile fetched, signature checked) when an operation runs.
 */
import { SvcError, type Ctx } from '../../../core/sdk';
import { agenticSettings, cancelSession, completeSession, createSession, getSession, updateSession } from '../engine';
import type { AgenticSettings, AgentRef } from '../engine';
import { idempotent, requestHash } from './idempotency';
import { OPERATIONS, WRITES, type Op } from './operations';
import { getCatalogProduct, lookupCatalog, searchCatalog } from './catalog';
import { ucpFail, UcpError } from './errors';
import { toUcpOrder } from './orders';
import { envelopeFor, type Root } from './profile';
import type { AgentProfile } from './profiles';
import { UCP_VERSION } from './profiles';
import { changesOf, checkoutOf, paymentOf, refuseCardData, toCheckout } from './wire';

type Json = Record<string, any>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Declared in operations.ts (the routes' declarations take them at start); kept here for this module's users.
export { OPERATIONS, WRITES, type Op };

const ROOT: Record<Op, Root> = {
  create_checkout: 'dev.ucp.shopping.checkout',
  get_checkout: 'dev.ucp.shopping.checkout',
  update_checkout: 'dev.ucp.shopping.checkout',
  complete_checkout: 'dev.ucp.shopping.checkout',
  cancel_checkout: 'dev.ucp.shopping.checkout',
  get_order: 'dev.ucp.shopping.order',
  search_catalog: 'dev.ucp.shopping.catalog.search',
  lookup_catalog: 'dev.ucp.shopping.catalog.lookup',
  get_product: 'dev.ucp.shopping.catalog.lookup',
};

/** One identified agent's call in one store. `ctx` runs in the operation's transaction for writes. */
export interface UcpCall {
  ctx: Ctx;
  settings: AgenticSettings;
  /** This server's origin as the agent reached it (the store's hostname). */
  origin: string;
  agent: AgentProfile;
}

export interface Outcome {
  status: number;
  body: Json;
}

export const agentRef = (agent: AgentProfile): AgentRef => ({ protocol: 'ucp', profile_url: agent.url, name: new URL(agent.url).hostname });

export const orderUrl = (origin: string, id: string) => `${origin}/ucp/v1/orders/${id}`;

/** A UCP error response (error_response.json): no resource, `ucp.status: error`, messages. */
export function errorOutcome(status: number, code: string, content: string, _root?: Root): Outcome {
  return {
    status,
    body: {
      ucp: { version: UCP_VERSION, status: 'error' },
      messages: [{ type: 'error', code, content, severity: 'unrecoverable' }],
    },
  };
}

/** The engine's refusals in UCP's terms: an unknown resource 404, a closed session 409, bad input 400. */
export function engineOutcome(err: unknown, op: Op): Outcome {
  if (!(err instanceof SvcError)) throw err;
  if (err.status === 404) return errorOutcome(404, 'not_found', err.message.replace(/^No such /, 'No '), ROOT[op]);
  if (err.status === 409) return errorOutcome(409, err.code.replace(/^checkout_session_/, 'checkout_'), err.message, ROOT[op]);
  if (err.status === 400) throw ucpFail('invalid_request', err.message);
  if (err.status === 403) throw ucpFail('forbidden', err.message);
  throw err;
}

function requireId(id: string | undefined): string {
  if (!id) throw ucpFail('invalid_request', 'The checkout id is required.');
  return id;
}

/** Runs one operation; business outcomes come back as an Outcome, protocol errors as a thrown UcpError. */
export async function runOp(call: UcpCall, op: Op, id: string | undefined, payload: unknown): Promise<Outcome> {
  const { ctx, agent, settings, origin } = call;
  const env = envelopeFor(ROOT[op], agent, settings, `${origin}/docs`);
  const me = agentRef(agent);
  const checkout = (s: Parameters<typeof toCheckout>[0], status = 200) => ({ status, body: toCheckout(s, env, (o) => orderUrl(origin, o)) });
  const catalogBody = (b: Json) => ({
    status: 200,
    body: { ucp: { version: UCP_VERSION, status: 'success', capabilities: env.capabilities }, ...b },
  });
  if (payload !== undefined && payload !== null) refuseCardData(payload);
  // No mutual version of the capability this operation needs: a business outcome, no resource
  // (overview.md "Error Handling": capabilities_incompatible is 200 with ucp.status error).
  if (!(ROOT[op] in env.capabilities)) {
    return {
      status: 200,
      body: {
        ucp: { version: UCP_VERSION, status: 'error', capabilities: {} },
        messages: [
          {
            type: 'error',
            code: 'capabilities_incompatible',
            content: `This operation needs ${ROOT[op]} ${UCP_VERSION}, which the agent profile does not declare.`,
            severity: 'unrecoverable',
          },
        ],
        ...(settings.payments.continue_url ? { continue_url: settings.payments.continue_url } : {}),
      },
    };
  }
  try {
    switch (op) {
      case 'create_checkout':
        return checkout(await createSession(ctx, me, changesOf(payload)), 201);
      case 'get_checkout':
        return checkout(await getSession(ctx, me, requireId(id)));
      case 'update_checkout': {
        const current = await getSession(ctx, me, requireId(id));
        return checkout(await updateSession(ctx, me, current.id, changesOf(payload, current)));
      }
      case 'complete_checkout': {
        const done = await completeSession(ctx, me, requireId(id), paymentOf(payload ?? {}));
        // The order's first webhook, queued with the order (the delivery job re-reads it at each attempt).
        if (done.status === 'completed' && done.order_id && agent.webhook_url) {
          await ctx.enqueue('ucp_order_webhook', {
            order_id: done.order_id,
            profile_url: agent.url,
            event_id: `order_created_${done.order_id}`,
            origin,
          });
        }
        return checkout(done);
      }
      case 'cancel_checkout':
        return checkout(await cancelSession(ctx, me, requireId(id)));
      case 'get_order': {
        const oid = requireId(id);
        const order = UUID.test(oid)
          ? await ctx.call('orders.get_order', { id: oid }).catch((e: unknown) => {
              if (e instanceof SvcError && e.status === 404) return undefined;
              throw e;
            })
          : undefined;
        // An order is the agent's only when its checkout was: another agent's (or a plain order) reads as unknown.
        if (!order || order.channel !== 'ucp' || order.agent?.profile_url !== agent.url) {
          return errorOutcome(404, 'not_found', 'Order not found.', 'dev.ucp.shopping.order');
        }
        const body = toUcpOrder(order, orderUrl(origin, order.id));
        return { status: 200, body: { ucp: { version: UCP_VERSION, status: 'success', capabilities: env.capabilities }, ...body } };
      }
      case 'search_catalog':
        return catalogBody(await searchCatalog(ctx, checkoutOf(payload ?? {})));
      case 'lookup_catalog':
        return catalogBody(await lookupCatalog(ctx, checkoutOf(payload ?? {})));
      case 'get_product': {
        const found = await getCatalogProduct(ctx, checkoutOf(payload ?? {}));
        return found ? catalogBody(found) : errorOutcome(404, 'not_found', 'Product not found.', 'dev.ucp.shopping.catalog.lookup');
      }
    }
  } catch (err) {
    if (err instanceof UcpError) throw err;
    return engineOutcome(err, op);
  }
}

type OpArgs = { op: Op; id?: string; payload?: unknown; key?: string; agent: AgentProfile; origin: string };

async function callOf(ctx: Ctx, i: OpArgs): Promise<UcpCall> {
  return { ctx, settings: await agenticSettings(ctx.db, ctx.store.id), origin: i.origin, agent: i.agent };
}

/** checkout.ucp_write (actions.ts): a write of an identified agent, with its idempotency record. */
export async function writeOp(ctx: Ctx, input: unknown) {
  const i = input as OpArgs;
  const call = await callOf(ctx, i);
  const scope = i.key
    ? { storeId: ctx.store.id, agent: i.agent.url, key: i.key, hash: requestHash([i.op, i.id ?? null, i.payload ?? null]) }
    : undefined;
  return idempotent(ctx.db, ctx.clock, scope, () => runOp(call, i.op, i.id, i.payload));
}

/** checkout.ucp_read (actions.ts): a read of an identified agent. */
export async function readOp(ctx: Ctx, input: unknown) {
  const i = input as OpArgs;
  return runOp(await callOf(ctx, i), i.op, i.id, i.payload);
}
