/**
 * Helpers for webhook delivery tests: a harness with a real HTTPS receiver and an endpoint, one
 * attempt on the manual clock, and receiver-side verification as a receiver would write it.
 */
import { expect, setSystemTime } from 'bun:test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { deliver } from '../../workers/webhooks';
import { sharedDb } from './db';
import { allPlugins, product, setup, type Harness, type SetupOptions } from './setup';
import { deliveryOptions, startReceiver, testCerts, type Received, type Responder } from './webhook-receiver';

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * For a file's beforeAll (with a long timeout): the receiver's CA (openssl) and the database
 * (boot and migrations), which on a loaded machine outlast the first test's timeout.
 */
export async function prepareWebhookTests() {
  testCerts();
  await sharedDb(allPlugins);
}

/** A harness with a receiver and an endpoint (created with `body` merged in) pointing at it. */
export async function hooked(
  receivers: Receiver[],
  opts: { body?: Record<string, unknown>; headers?: Record<string, string>; respond?: Responder; setup?: SetupOptions } = {},
) {
  const h = await setup(opts.setup);
  const rx = await startReceiver(opts.respond);
  receivers.push(rx);
  const res = await h.call('POST', '/webhooks', { url: rx.url(), events: ['order.created'], ...opts.body }, opts.headers);
  expect(res.status).toBe(201);
  return { h, rx, ep: res.body };
}

/** One attempt of a delivery now, on the harness's clock. */
export const run = (h: Harness, id: string) => deliver(h.db, h.clock, id, deliveryOptions());

/** The store's deliveries, oldest first, optionally only those of one status. */
export async function deliveryIds(h: Harness, status?: string) {
  const rows = await h.db.query<{ id: string }>(
    `SELECT id FROM webhook_deliveries WHERE store_id = $1 ${status ? 'AND status = $2' : ''} ORDER BY seq`,
    status ? [h.store.id, status] : [h.store.id],
  );
  return rows.map((r) => r.id);
}

/** Delivers every pending delivery once, in order. */
export async function deliverPending(h: Harness) {
  for (const id of await deliveryIds(h, 'pending')) await run(h, id);
}

export async function placeOrder(h: Harness) {
  const p = (await h.call('POST', '/products', product({ stock_quantity: 100 }))).body;
  return (await h.call('POST', '/orders', { payment_method: 'card', line_items: [{ product_id: p.id, quantity: 1 }] })).body;
}

function sameDigest(expected: string, given: string) {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** SPEC 6.1 `X-Webhook-Signature: sha256=<hex>` over the raw body. */
export const verifySpec = (r: Received, secret: string) =>
  sameDigest(`sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`, r.headers['x-webhook-signature'] ?? '');
/** The `x-svc-signature` variant: the plain hex digest. */
export const verifyPlain = (r: Received, secret: string) =>
  sameDigest(createHmac('sha256', secret).update(r.raw).digest('hex'), r.headers['x-svc-signature'] ?? '');

/**
 * Standard Webhooks verification with the `standardwebhooks` package. The library checks the
 * timestamp against the system time, so that is set to the attempt's (manual-clock) time while it
 * verifies. Returns whether this secret verifies the delivery.
 */
export function verifyStandard(r: Received, secret: string): boolean {
  setSystemTime(new Date(Number(r.headers['webhook-timestamp']) * 1000));
  try {
    const wh = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
    expect(wh.verify(r.raw, r.headers)).toEqual(r.body);
    return true;
  } catch (err) {
    if ((err as Error).name === 'WebhookVerificationError' && (err as Error).message === 'No matching signature found') return false;
    throw err;
  } finally {
    setSystemTime();
  }
}

/** The `v1,<base64>` entries of webhook-signature, as the package would compute them for `secret`. */
export function standardSignature(r: Received, secret: string): string {
  const wh = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
  return wh.sign(r.headers['webhook-id'], new Date(Number(r.headers['webhook-timestamp']) * 1000), r.raw);
}
