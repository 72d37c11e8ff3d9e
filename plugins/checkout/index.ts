import { Type } from '@sinclair/typebox';
import { actionFor, conflict, definePlugin, Input, invalid, onFirstCall, type ActionsOf } from '../../core/sdk';
import migration001 from './migrations/001_checkout.sql' with { type: 'text' };
import migration002 from './migrations/002_acp.sql' with { type: 'text' };
import { acpActions, acpOrderCreated, exportFeedsJob } from './acp/actions';
import { appActions, checkoutApps } from './apps';
import { CheckoutConfig } from './config';
import { ucpAllActions, UcpConfigFields, ucpJobs, ucpMigrations, ucpReactions, ucpTables } from './ucp';
import { refuseUnknownItems, restAgent, toRest } from './rest';
import { EngineCall, EngineResult, Session, SessionComplete, SessionCreate, SessionId, SessionUpdate } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md); the ACP and UCP
// adapters' declarations (acp/actions.ts, ucp/actions.ts) take theirs the same way.
const { completeSession } = onFirstCall(() => import('./complete'));
const { cancelSession, createSession, getSession, updateSession } = onFirstCall(() => import('./sessions'));
const { runEngine } = onFirstCall(() => import('./engine-action'));
const { downloadFeed } = onFirstCall(() => import('./acp/feed'));
const { sendAcpOrderEvent } = onFirstCall(() => import('./acp/webhooks'));

const act = actionFor(CheckoutConfig);

/**
 * Agentic checkout (issue 50): one protocol-neutral engine (engine.ts) of checkout sessions per
 * store, and its adapters. REST and the protocols' own routes only, never a tool (`tool: false`),
 * so svc's tool count stays 54. The scope `checkout` opens these routes and nothing else.
 */
const checkout = definePlugin({
  name: 'checkout',
  category: 'commerce',
  description: 'Checkout sessions for shopping agents: lines, buyer, address, shipping, discount codes, tax, totals; completed into orders.',
  resource: 'checkout session',
  tool: false,
  keyScopes: true,
  scopes: { read: ['checkout'], write: ['checkout'] },
  tables: ['checkout_sessions', 'checkout_settings', 'checkout_acp_idempotency', 'checkout_feeds', ...ucpTables],
  config: Type.Object({ ...CheckoutConfig.properties, ...UcpConfigFields }),
  requires: ['orders', 'products', 'inventory', 'customers', 'store', 'coupons', 'tax', 'fulfillment'],
  errors: {
    checkout_session_completed: conflict('The checkout session is already completed: it takes no change.'),
    checkout_session_canceled: conflict('The checkout session was canceled: it takes no change.'),
    checkout_session_expired: conflict('The checkout session expired (SVC_CHECKOUT_SESSION_TTL_SECONDS after creation): it takes no change.'),
    payment_handler_unsupported: invalid('The payment names a handler the store does not take.'),
    continue_url_missing: conflict('The store escalates checkouts to its own page but set no payments.continue_url.'),
  },
  jobs: { export_feeds: exportFeedsJob, acp_order_created: acpOrderCreated, ...ucpJobs },
  // ACP order webhooks: jobs once the order's change committed, retried when a delivery fails. A new
  // order's is queued by completion itself (complete.ts); later changes come from order.updated,
  // which only stores with an ACP webhook subscribe to (settings-store.ts), so other stores'
  // order updates store no event for it.
  // UCP's: every later change of an order a UCP agent placed (ucp/webhooks.ts), heard by stores with UCP on.
  onSubscribed: async (ctx, event) => {
    if (event.type === 'order.updated') await sendAcpOrderEvent(ctx, 'order_update', event.data as never);
    const ucp = ucpReactions[event.type as keyof typeof ucpReactions];
    if (ucp) await ucp(ctx, event);
  },
  migrations: [{ id: 'checkout/001_checkout', sql: migration001 }, { id: 'checkout/002_acp', sql: migration002 }, ...ucpMigrations],
  mcpApps: checkoutApps,
  actions: {
    ...acpActions(act),
    ...ucpAllActions,
    ...appActions,
    run_engine: act({
      kind: 'write',
      internal: true,
      description: 'The checkout engine for raw protocol routes (ctx.call only): create, get, update, complete, cancel, quote.',
      input: EngineCall,
      output: EngineResult,
      emits: ['checkout.completed', 'order.created', 'order.paid'],
      errors: [
        'checkout_session_completed',
        'checkout_session_canceled',
        'checkout_session_expired',
        'payment_handler_unsupported',
        'continue_url_missing',
      ],
      handler: runEngine,
    }),
    export_product_feed: act({
      kind: 'read',
      description: "The store's product feed in ACP's feed format (JSON Lines, one Product with its variants per line, prices in minor units).",
      input: Input({}),
      output: Type.Object({}, { description: 'JSON Lines (application/jsonl).' }),
      rest: { method: 'GET', path: '/checkout/feed', response: 'raw', contentType: 'application/jsonl' },
      handler: downloadFeed,
    }),
    create_checkout_session: act({
      kind: 'write',
      description: 'Open a checkout session (the REST channel): lines, buyer, addresses, shipping option, discount codes; priced at once.',
      input: SessionCreate,
      output: Session,
      rest: { method: 'POST', path: '/checkout/sessions', status: 201 },
      example: async ({ make }) => ({ line_items: [{ item_id: (await make('products.create_product')).id, quantity: 1 }] }),
      handler: async (ctx, input) => toRest(refuseUnknownItems(await createSession(ctx, restAgent(ctx), input))),
    }),
    get_checkout_session: act({
      kind: 'read',
      description: 'Fetch a checkout session this caller opened.',
      input: SessionId,
      output: Session,
      rest: { method: 'GET', path: '/checkout/sessions/:id' },
      handler: async (ctx, { id }) => toRest(await getSession(ctx, restAgent(ctx), id)),
    }),
    update_checkout_session: act({
      kind: 'write',
      description: 'Change a session: a field left out keeps its value, null clears it; line_items replaces the cart.',
      input: SessionUpdate,
      output: Session,
      rest: { method: 'PATCH', path: '/checkout/sessions/:id' },
      errors: ['checkout_session_completed', 'checkout_session_canceled', 'checkout_session_expired'],
      handler: async (ctx, { id, ...changes }) => toRest(refuseUnknownItems(await updateSession(ctx, restAgent(ctx), id, changes))),
    }),
    complete_checkout_session: act({
      kind: 'write',
      description: "Complete a ready session into an order (channel 'api'); one that is not ready answers its messages.",
      input: SessionComplete,
      output: Session,
      rest: { method: 'POST', path: '/checkout/sessions/:id/complete' },
      emits: ['checkout.completed', 'order.created', 'order.paid'],
      errors: [
        'checkout_session_completed',
        'checkout_session_canceled',
        'checkout_session_expired',
        'payment_handler_unsupported',
        'continue_url_missing',
      ],
      handler: async (ctx, { id, payment }) => toRest(await completeSession(ctx, restAgent(ctx), id, payment)),
    }),
    cancel_checkout_session: act({
      kind: 'write',
      description: 'Cancel an open session.',
      input: SessionId,
      output: Session,
      rest: { method: 'POST', path: '/checkout/sessions/:id/cancel' },
      errors: ['checkout_session_completed', 'checkout_session_canceled', 'checkout_session_expired'],
      handler: async (ctx, { id }) => toRest(await cancelSession(ctx, restAgent(ctx), id)),
    }),
  },
});
export default checkout;

declare module '../../core/sdk' {
  interface CallableActions extends ActionsOf<'checkout', typeof checkout> {}
}
