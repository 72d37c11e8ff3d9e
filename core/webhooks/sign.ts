import { createHmac } from 'node:crypto';

/**
 * Signing of outbound webhook deliveries. Every delivery carries two signature schemes:
 *
 * - SPEC 6.1: `X-Webhook-Signature: sha256=<hex>` and `x-svc-signature: <hex>`, the HMAC-SHA256
 *   of the raw body keyed with the signing secret exactly as returned at creation (its UTF-8
 *   bytes, `whsec_` prefix included): what `createHmac('sha256', secret)` on the receiver does.
 * - Standard Webhooks (standardwebhooks.com, and its `standardwebhooks` libraries):
 *   `webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64>` over
 *   `<id>.<timestamp>.<body>`, keyed with the base64-decoded part after `whsec_`. Generated secrets
 *   are `whsec_` + base64 of 32 random bytes, so `new Webhook(secret).verify(...)` works as is. A
 *   caller-supplied secret in another form is used as its own UTF-8 bytes for this scheme too
 *   (`new Webhook(secret, { format: 'raw' })` on the receiver).
 *
 * While a rolled secret's overlap window lasts, `webhook-signature` carries a second,
 * space-separated `v1,<base64>` made with the previous secret (Standard Webhooks verifies a
 * message if any entry matches); the SPEC 6.1 headers carry the new secret's signature only.
 */

export const USER_AGENT = 'svc-Webhook/1.0';
const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export function generateSecret(): string {
  return PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
}

/** The Standard Webhooks HMAC key of a secret. */
export function standardKey(secret: string): Buffer {
  const rest = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : '';
  if (rest.length % 4 === 0 && BASE64.test(rest)) {
    const key = Buffer.from(rest, 'base64');
    if (key.length >= 16) return key;
  }
  return Buffer.from(secret, 'utf8');
}

export interface SignInput {
  secret: string;
  /** The secret a roll replaced, while its overlap window lasts. */
  previousSecret?: string;
  body: string;
  eventId: string;
  eventType: string;
  deliveryId: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/** Every header of one delivery attempt (SPEC 6.1 table, x-svc-signature, Standard Webhooks). */
export function deliveryHeaders(s: SignInput): Record<string, string> {
  const hex = createHmac('sha256', s.secret).update(s.body, 'utf8').digest('hex');
  // webhook-id is the event id: the same on every retry, and what receivers deduplicate on.
  const standard = (secret: string) =>
    `v1,${createHmac('sha256', standardKey(secret)).update(`${s.eventId}.${s.timestamp}.${s.body}`, 'utf8').digest('base64')}`;
  const signatures = [s.secret, ...(s.previousSecret ? [s.previousSecret] : [])].map(standard).join(' ');
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    'X-Webhook-Signature': `sha256=${hex}`,
    'X-Webhook-Timestamp': String(s.timestamp),
    'X-Webhook-Event': s.eventType,
    'X-Webhook-Delivery-Id': s.deliveryId,
    'x-svc-signature': hex,
    'webhook-id': s.eventId,
    'webhook-timestamp': String(s.timestamp),
    'webhook-signature': signatures,
  };
}
