import { action, definePlugin, onFirstCall } from '../../core/sdk';
import {
  Delivery,
  DeliveryList,
  DeliveryQuery,
  DeliveryRef,
  Replayed,
  WebhookCreate,
  WebhookDeleted,
  WebhookEndpoint,
  WebhookId,
  WebhookList,
  WebhookQuery,
  WebhookRoll,
  WebhookUpdate,
} from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { createEndpoint, deleteEndpoint, endpointRow, listEndpoints, toEndpoint, updateEndpoint } = onFirstCall(() => import('./store'));
const { listDeliveries, replayFailed, resendDelivery, sendTest } = onFirstCall(() => import('./deliveries'));
const { rollSecret } = onFirstCall(() => import('./roll'));

/**
 * Outbound webhook endpoints (SPEC 2.7, 4.6, 6.1) and their delivery log. Events are written by
 * invoke (core/events), delivered by the worker (workers/webhooks.ts); the tables are core's.
 */
export default definePlugin({
  name: 'webhooks_mgmt',
  category: 'platform',
  description: 'Outbound webhooks: endpoints that receive signed event POSTs, test pings and the delivery log.',
  resource: 'webhook endpoint',
  catalog: true,
  // SPEC 5.1 names webhooks:read / webhooks:write; SPEC 5.4 also lets platform and platform:write use this tool.
  scopes: {
    read: ['webhooks', 'webhooks:read', 'platform', 'platform:write'],
    write: ['webhooks', 'webhooks:write', 'platform', 'platform:write'],
  },
  actions: {
    list_webhooks: action({
      kind: 'read',
      description: "List the store's webhook endpoints, newest first, with delivery counters. Paginate with starting_after.",
      input: WebhookQuery,
      output: WebhookList,
      rest: { method: 'GET', path: '/webhooks' },
      handler: listEndpoints,
    }),
    get_webhook: action({
      kind: 'read',
      description: 'Fetch one webhook endpoint: URL, subscribed events, whether it is active (and why not) and its counters.',
      input: WebhookId,
      output: WebhookEndpoint,
      rest: { method: 'GET', path: '/webhooks/:id' },
      handler: async (ctx, { id }) => toEndpoint(await endpointRow(ctx, id), ctx.clock.now()),
    }),
    create_webhook: action({
      kind: 'write',
      description:
        'Register an HTTPS endpoint to receive events (e.g. order.created; "*" for every type). The answer holds signing_secret, shown this once: ' +
        'deliveries carry X-Webhook-Signature (sha256=HMAC of the body) and Standard Webhooks headers made with it. ' +
        "Payloads keep the shape of api_version (default: the request's X-API-Version, else the latest).",
      input: WebhookCreate,
      output: WebhookEndpoint,
      rest: { method: 'POST', path: '/webhooks', status: 201 },
      example: { url: 'https://hooks.example.com/svc', events: ['order.created', 'order.paid'], description: 'Fulfilment' },
      handler: createEndpoint,
    }),
    update_webhook: action({
      kind: 'write',
      description:
        "Change an endpoint's URL, events, description or api_version (the payload shape), or set is_active (true re-enables one disabled after failures).",
      input: WebhookUpdate,
      output: WebhookEndpoint,
      rest: { method: 'PATCH', path: '/webhooks/:id' },
      handler: updateEndpoint,
    }),
    delete: action({
      kind: 'destructive',
      description: 'Delete a webhook endpoint and its delivery log; nothing more is sent to it.',
      input: WebhookId,
      output: WebhookDeleted,
      rest: { method: 'DELETE', path: '/webhooks/:id' },
      handler: (ctx, { id }) => deleteEndpoint(ctx, id),
    }),
    roll_secret: action({
      kind: 'write',
      description:
        "Replace the endpoint's signing secret; the answer holds the new signing_secret, shown this once. For expires_in_hours " +
        '(default 24, up to 168; 0 ends it now) deliveries are signed with both, so the receiver can switch without missing any.',
      input: WebhookRoll,
      output: WebhookEndpoint,
      rest: { method: 'POST', path: '/webhooks/:id/roll-secret' },
      handler: rollSecret,
    }),
    test: action({
      kind: 'write',
      description: 'Send a signed test ping (event type webhook.test) to the endpoint; its result appears in the delivery log.',
      input: WebhookId,
      output: Delivery,
      rest: { method: 'POST', path: '/webhooks/:id/test', status: 202 },
      handler: (ctx, { id }) => sendTest(ctx, id),
    }),
    list_deliveries: action({
      kind: 'read',
      description:
        "The endpoint's delivery log, newest first: event, status (pending, succeeded, failed), attempts with status code, " +
        'duration and response excerpt, and when the next retry is due. Filter by status.',
      input: DeliveryQuery,
      output: DeliveryList,
      rest: { method: 'GET', path: '/webhooks/:id/deliveries', since: 'v2026-01-15' },
      handler: listDeliveries,
    }),
    resend_delivery: action({
      kind: 'write',
      description: 'Send one delivery again now, with a fresh retry schedule.',
      input: DeliveryRef,
      output: Delivery,
      rest: { method: 'POST', path: '/webhooks/:id/deliveries/:delivery_id/resend', status: 202, since: 'v2026-01-15' },
      example: async ({ make }) => {
        const hook = await make('webhooks_mgmt.create_webhook');
        return { id: hook.id, delivery_id: (await make('webhooks_mgmt.test', { id: hook.id })).id };
      },
      handler: (ctx, input) => resendDelivery(ctx, input.id, input.delivery_id),
    }),
    replay_failed: action({
      kind: 'write',
      description: 'Send every failed delivery of the endpoint again (after fixing the receiver and re-enabling the endpoint).',
      input: WebhookId,
      output: Replayed,
      rest: { method: 'POST', path: '/webhooks/:id/replay-failed', status: 202 },
      handler: (ctx, { id }) => replayFailed(ctx, id),
    }),
  },
});
