/**
 * Order webhooks to UCP agents (order.md "Events"): the full current-state order, POSTed to the
 * `webhook_url` of the agent profile's `dev.ucp.shopping.order` capability, signed with RFC 9421
 * under the store's key (the one `/.well-known/ucp` publishes), with Standard Webhooks' `Webhook-Id`
 * (the same on every retry) and `Webhook-Timestamp`, and `UCP-Agent` naming svc's profile.
 *
 * Each delivery is a job of the plugin's queue (`checkout.ucp_order_webhook`): queued in the
 * transaction that completed the checkout or changed the order, retried with backoff on a failure
 * or a non-2xx answer (the spec's "MUST retry"), the order read again at each attempt so a retry
 * never sends a stale state. The URL comes from an agent's profile, so it goes through the egress
 * guard, https only (unless SVC_UCP_ALLOW_INSECURE_PROFILES), no redirects.
 */
import { egressFetch, storeHostnames, type Ctx, type JobCtx } from '../../../core/sdk';
import { allowInsecure } from './config';
import { storeKeys } from './keys';
import { orderUrl } from './ops';
import { toUcpOrder } from './orders';
import { agentProfile, UCP_VERSION } from './profiles';
import { signMessage } from './signatures';
import { WEBHOOK_JOB } from './operations';

// Declared in operations.ts; kept here for this module's users.
export { WEBHOOK_JOB };

type Json = Record<string, any>;

/** One delivery attempt; throws (and the job retries) unless the agent answered 2xx. */
export async function deliverOrderWebhook(ctx: JobCtx, input: { order_id: string; profile_url: string; event_id: string; origin: string }) {
  const insecure = allowInsecure(ctx.config);
  const profile = await agentProfile(input.profile_url, { allowInsecure: insecure, now: ctx.clock.now().getTime() });
  if (!profile.webhook_url) return { delivered: false, reason: 'The agent profile names no dev.ucp.shopping.order webhook_url.' };
  const order: Json = await ctx.call('orders.get_order', { id: input.order_id });
  const at = ctx.clock.now();
  const body = JSON.stringify({
    ucp: { version: UCP_VERSION, status: 'success', capabilities: { 'dev.ucp.shopping.order': [{ version: UCP_VERSION }] } },
    ...toUcpOrder(order, orderUrl(input.origin, order.id)),
    event_id: input.event_id,
    created_time: at.toISOString(),
  });
  const headers = new Headers({
    'content-type': 'application/json',
    'ucp-agent': `profile="${input.origin}/.well-known/ucp"`,
    'webhook-id': input.event_id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  });
  const keys = await storeKeys(ctx.db, ctx.store.id, ctx.clock);
  await signMessage({ method: 'POST', url: profile.webhook_url, headers }, body, keys.signing, Math.floor(at.getTime() / 1000));
  const res = await egressFetch(profile.webhook_url, {
    method: 'POST',
    body,
    headers: Object.fromEntries(headers),
    httpsOnly: !insecure,
    followRedirects: false,
    timeoutMs: 10_000,
    maxBytes: 4096,
    purpose: 'UCP order webhook',
  });
  if (res.status < 200 || res.status >= 300) throw new Error(`The agent's order webhook answered ${res.status}.`);
  return { delivered: true, status: res.status };
}

/** Queues the webhook of an order a UCP agent placed, in the caller's transaction. */
export async function queueOrderWebhook(ctx: Ctx, order: Json, eventId: string, origin: string) {
  const profile = order.agent?.profile_url;
  if (order.channel !== 'ucp' || typeof profile !== 'string') return;
  await ctx.enqueue(WEBHOOK_JOB, { order_id: order.id, profile_url: profile, event_id: eventId, origin });
}

/**
 * Where a store's webhooks say they come from when no request is at hand (a reaction): the
 * store's first claimed hostname, else this server's configured origin; undefined when neither.
 */
async function storeOrigin(ctx: Ctx): Promise<string | undefined> {
  const [host] = await storeHostnames(ctx.db, ctx.store.id);
  if (host) return `https://${host}`;
  try {
    return ctx.origin;
  } catch {
    return undefined;
  }
}

/** An order a UCP agent placed changed (paid, shipped, refunded, cancelled): its webhook is queued. */
export async function orderChanged(ctx: Ctx, event: { id: string; data: Json }) {
  const order = event.data;
  if (order.channel !== 'ucp' || typeof order.agent?.profile_url !== 'string') return;
  const origin = await storeOrigin(ctx);
  if (!origin) return ctx.log.warn('UCP order webhook not sent: no hostname claimed and no SVC_PUBLIC_URL', { order_id: order.id });
  await queueOrderWebhook(ctx, order, event.id, origin);
}
