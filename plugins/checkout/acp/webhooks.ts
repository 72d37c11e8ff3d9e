import { createHmac } from 'node:crypto';
import { egressFetch, fail, storeHostnames, toMinor, type Ctx } from '../../../core/sdk';
import { agenticSettings } from '../settings-store';

/** What an order webhook carries of an order (ACP's Order, `type: "order"`). */
export interface OrderLike {
  id: string;
  order_number: string;
  status: string;
  channel?: string;
  metadata: Record<string, string>;
  amount_refunded: number;
  currency: string;
  fulfillment_status?: string;
}

const ORDER_STATUS: Record<string, string> = {
  pending: 'created',
  paid: 'confirmed',
  fulfilled: 'shipped',
  completed: 'delivered',
  cancelled: 'canceled',
};

/** The store's public origin in a job: SVC_PUBLIC_URL, else its first claimed hostname. */
async function originOf(ctx: Ctx) {
  try {
    return ctx.origin;
  } catch {
    const [host] = await storeHostnames(ctx.db, ctx.store.id);
    return host ? `https://${host}` : 'https://localhost';
  }
}

/** `Merchant-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">` (ACP webhooks). */
export const merchantSignature = (secret: string, t: number, body: string) =>
  `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;

/**
 * Sends an ACP order event to the store's `acp.webhook_url`, signed with `acp.webhook_secret`.
 * It runs as a reaction (a job, after the order's change committed): a refused or failed delivery
 * throws, and the job is tried again with backoff. Orders not placed through ACP are not sent.
 */
export async function sendAcpOrderEvent(ctx: Ctx, type: 'order_create' | 'order_update', order: OrderLike) {
  if (order.channel !== 'acp') return;
  const { acp } = await agenticSettings(ctx.db, ctx.store.id);
  if (!acp.enabled || !acp.webhook_url || !acp.webhook_secret) return;
  const sessionId = order.metadata.checkout_session_id ?? '';
  const body = JSON.stringify({
    type,
    data: {
      type: 'order',
      id: order.id,
      checkout_session_id: sessionId,
      order_number: order.order_number,
      permalink_url: `${await originOf(ctx)}/acp/orders/${order.id}`,
      status: ORDER_STATUS[order.status] ?? 'processing',
      // Refunds as ACP's adjustments (the older `refunds` list is not in the 2026-04-17 Order).
      ...(order.amount_refunded > 0
        ? { adjustments: [{ type: 'refund', status: 'completed', amount: toMinor(order.amount_refunded, order.currency, 'amount_refunded') }] }
        : {}),
    },
  });
  const t = Math.floor(ctx.clock.now().getTime() / 1000);
  const res = await egressFetch(acp.webhook_url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'merchant-signature': merchantSignature(acp.webhook_secret, t, body),
      'request-id': crypto.randomUUID(),
    },
    body,
    followRedirects: false,
    purpose: 'webhook',
    timeoutMs: 10_000,
  });
  if (res.status < 200 || res.status >= 300) throw fail('provider_error', `The ACP webhook answered ${res.status}; it will be tried again.`);
}

/** The order_create event of an ACP order (queued by completion when the store has a webhook URL). */
