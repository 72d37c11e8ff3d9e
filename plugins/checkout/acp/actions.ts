/**
 * The ACP adapter's declarations, spread into the checkout plugin's: the REST binding's routes, the
 * product feed's export job and the order-created webhook's job. Their handlers (routes.ts, feed.ts,
 * webhooks.ts and all they import) are loaded at the first call, not at start (plugins/README.md).
 */
import { Type } from '@sinclair/typebox';
import { Input, job, noExample, onFirstCall } from '../../../core/sdk';
import type { CheckoutCtx } from '../sessions';
import type { OrderLike } from './webhooks';

const { discovery, handle } = onFirstCall(() => import('./routes'));
const { exportFeeds } = onFirstCall(() => import('./feed'));
const { sendAcpOrderEvent } = onFirstCall(() => import('./webhooks'));

const raw = { scope: 'global' as const, host: true, auth: ['api_key' as const], response: 'raw' as const, contentType: 'application/json' };
const post = { ...raw, method: 'POST' as const, body: 'raw' as const, idempotency: 'own' as const };
const RawBody = Input({
  id: Type.Optional(Type.String({ maxLength: 100 })),
  body: Type.Optional(Type.Any()),
  content_type: Type.Optional(Type.String()),
});
const AcpSession = Type.Object({}, { additionalProperties: true, description: "ACP's CheckoutSession (schema.agentic_checkout.json)." });
const why = noExample("an ACP route: the store is the Host's, with ACP turned on; plugins/checkout/acp tests cover it");

/** The ACP REST binding (2026-04-17) at /acp: api_base_url of /.well-known/acp.json. */
export const acpActions = (act: (a: any) => any) => ({
  acp_create_session: act({
    kind: 'write',
    description: 'ACP: create a checkout session (201).',
    input: RawBody,
    output: AcpSession,
    rest: { ...post, path: '/acp/checkout_sessions' },
    example: why,
    handler: (ctx: CheckoutCtx, input: any) => handle(ctx, 'create', input),
  }),
  acp_get_session: act({
    kind: 'read',
    description: 'ACP: read a checkout session.',
    input: Input({ id: Type.String({ maxLength: 100 }) }),
    output: AcpSession,
    rest: { ...raw, method: 'GET', path: '/acp/checkout_sessions/:id' },
    example: why,
    handler: (ctx: CheckoutCtx, input: any) => handle(ctx, 'get', input),
  }),
  acp_update_session: act({
    kind: 'write',
    description: 'ACP: update a checkout session.',
    input: RawBody,
    output: AcpSession,
    rest: { ...post, path: '/acp/checkout_sessions/:id' },
    example: why,
    handler: (ctx: CheckoutCtx, input: any) => handle(ctx, 'update', input),
  }),
  acp_complete_session: act({
    kind: 'write',
    description: 'ACP: complete a checkout session into an order.',
    input: RawBody,
    output: AcpSession,
    rest: { ...post, path: '/acp/checkout_sessions/:id/complete' },
    example: why,
    handler: (ctx: CheckoutCtx, input: any) => handle(ctx, 'complete', input),
  }),
  acp_cancel_session: act({
    kind: 'write',
    description: 'ACP: cancel a checkout session (405 once completed or canceled).',
    input: RawBody,
    output: AcpSession,
    rest: { ...post, path: '/acp/checkout_sessions/:id/cancel' },
    example: why,
    handler: (ctx: CheckoutCtx, input: any) => handle(ctx, 'cancel', input),
  }),
  acp_discovery: act({
    kind: 'read',
    description: "ACP discovery (/.well-known/acp.json) for the Host's store; 404 when it does not take ACP checkouts.",
    input: Input({}),
    output: AcpSession,
    rest: {
      scope: 'global',
      host: true,
      auth: 'public',
      response: 'raw',
      contentType: 'application/json',
      method: 'GET',
      path: '/.well-known/acp.json',
    },
    example: why,
    handler: (ctx: CheckoutCtx) => discovery(ctx),
  }),
});

/**
 * The scheduled export (daily, once per cluster): a full snapshot for every store that takes ACP
 * checkouts, kept in checkout_feeds (feed.ts).
 */
export const exportFeedsJob = job({
  input: Type.Object({}),
  cron: '17 3 * * *',
  handler: (ctx) => exportFeeds(ctx),
});

export const acpOrderCreated = job({
  input: Type.Object({ order_id: Type.String() }),
  // ctx.call untyped here: this job is part of the declaration CallableActions is derived from.
  handler: async (ctx, { order_id }) =>
    sendAcpOrderEvent(ctx, 'order_create', await (ctx.call as (a: string, i: object) => Promise<OrderLike>)('orders.get_order', { id: order_id })),
});
