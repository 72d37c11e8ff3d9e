import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature svc's inbound routes share (mail relays at /v1/inbound/email, carriers at
 * /v1/inbound/shipments): `X-Svc-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`
 * keyed with SVC_INBOUND_SECRET, beside `X-Svc-Timestamp` (unix seconds).
 */
export const inboundSignature = (secret: string, timestamp: string, body: Uint8Array) =>
  'sha256=' + createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');

/** Whether a request's signature matches its body, and its timestamp is within 5 minutes of `now` (a replay later fails). */
export function inboundSignatureValid(secret: string, headers: Headers | undefined, body: Uint8Array, now: Date): boolean {
  const ts = headers?.get('x-svc-timestamp') ?? '';
  const given = headers?.get('x-svc-signature') ?? '';
  const expected = inboundSignature(secret, ts, body);
  const fresh = /^\d{1,12}$/.test(ts) && Math.abs(now.getTime() / 1000 - Number(ts)) <= 300;
  return fresh && given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
