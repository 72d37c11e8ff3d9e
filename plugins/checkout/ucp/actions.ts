/**
 * The UCP adapter's declarations, spread into the checkout plugin's: its routes (REST, the MCP
 * binding, `/.well-known/ucp`), the internal operations they run in the Host's store, the order
 * webhook's jobs and reactions. Their handlers (http.ts, mcp.ts, ops.ts, webhooks.ts and all they
 * import) are loaded at the first call, not at start (plugins/README.md).
 */
import { Type } from '@sinclair/typebox';
import { action, job, noExample, onFirstCall, type Ctx, type ReactionEvent } from '../../../core/sdk';
import { OPERATIONS, WEBHOOK_JOB, type Op } from './operations';

const { serve, wellKnown } = onFirstCall(() => import('./http'));
const { handle } = onFirstCall(() => import('./mcp'));
const { readOp, writeOp } = onFirstCall(() => import('./ops'));
const { deliverOrderWebhook, orderChanged } = onFirstCall(() => import('./webhooks'));
const { pruneIdempotency } = onFirstCall(() => import('./idempotency'));

const JSON_TYPE = 'application/json';

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

/** The UCP REST routes (http.ts), spread into the checkout plugin's actions. */
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

/** UCP's MCP binding (mcp.ts). */
export const ucpMcpActions = {
  ucp_mcp: action({
    kind: 'write',
    description: "UCP's MCP binding (Streamable HTTP, stateless JSON): the spec's shopping tools for this store.",
    input: Type.Object({ body: Type.Optional(Type.Any()), content_type: Type.Optional(Type.String()) }, { additionalProperties: true }),
    output: Type.Object({}, { additionalProperties: true, description: 'A JSON-RPC 2.0 response.' }),
    rest: {
      method: 'POST',
      path: '/ucp/mcp',
      auth: 'public',
      scope: 'global',
      host: true,
      idempotency: 'own',
      body: 'raw',
      response: 'raw',
      contentType: 'application/json',
    },
    example: noExample('UCP routes answer only on a claimed hostname with UCP enabled, to a signed agent (plugins/checkout/ucp tests).'),
    handler: async (ctx, input) => {
      const out = await handle(ctx, (input as { body?: Uint8Array }).body ?? new Uint8Array());
      return new Response(out.text || null, { status: out.status, headers: out.headers });
    },
  }),
};

/** What the route hands the store-scoped operation (ctx.call): the agent is already identified. */
export const OpInput = Type.Object({
  op: Type.Union(OPERATIONS.map((o) => Type.Literal(o))),
  id: Type.Optional(Type.String({ maxLength: 200 })),
  payload: Type.Optional(Type.Any()),
  key: Type.Optional(Type.String({ maxLength: 255 })),
  agent: Type.Any({ description: 'The AgentProfile identified by the route.' }),
  origin: Type.String(),
});
const OpOutput = Type.Object({ status: Type.Integer(), body: Type.Any(), replayed: Type.Optional(Type.Boolean()) });

/** The internal actions the UCP routes run in the store their Host names (REST and MCP alike; ops.ts). */
export const ucpOpActions = {
  ucp_write: action({
    kind: 'write',
    internal: true,
    description: 'A UCP write (create, update, complete, cancel) of an identified agent, with its idempotency record.',
    input: OpInput,
    output: OpOutput,
    emits: ['checkout.completed'],
    handler: (ctx, input) => writeOp(ctx, input),
  }),
  ucp_read: action({
    kind: 'read',
    internal: true,
    description: 'A UCP read (get checkout, get order, catalog) of an identified agent.',
    input: OpInput,
    output: OpOutput,
    handler: (ctx, input) => readOp(ctx, input),
  }),
};

export const WebhookInput = Type.Object({
  order_id: Type.String(),
  profile_url: Type.String(),
  event_id: Type.String(),
  origin: Type.String(),
});

/** The order webhook's jobs (webhooks.ts) and the idempotency records' prune. */
export const ucpJobs = {
  ucp_prune_idempotency: job({
    description: 'Drops UCP idempotency records older than 48 hours (every store).',
    input: Type.Object({}),
    cron: '47 * * * *',
    handler: async (ctx) => ({ deleted: await pruneIdempotency(ctx.db, ctx.clock.now()) }),
  }),
  [WEBHOOK_JOB]: job({
    description: 'Sends a UCP agent the current state of an order it placed (signed, RFC 9421), retried until it answers 2xx.',
    input: WebhookInput,
    retries: 10,
    handler: deliverOrderWebhook,
  }),
};

/** Reactions spread into the checkout plugin's `on`: every later state of a UCP order reaches its agent. */
export const ucpReactions = {
  'order.updated': (ctx: Ctx, e: ReactionEvent) => orderChanged(ctx, e as never),
  'order.paid': (ctx: Ctx, e: ReactionEvent) => orderChanged(ctx, e as never),
  'order.fulfilled': (ctx: Ctx, e: ReactionEvent) => orderChanged(ctx, e as never),
  'order.cancelled': (ctx: Ctx, e: ReactionEvent) => orderChanged(ctx, e as never),
};
