import { randomBytes } from 'node:crypto';

// Random bytes drawn a few kilobytes at a time: an id per request (and per tool call) made from
// a fresh UUID each time was a measurable part of a tools/call.
const POOL_BYTES = 12 * 1024;
let pool = Buffer.alloc(0);
let at = 0;

/** `req_` and 24 hex digits: the id of one request, in every response and log line it causes. */
export function newRequestId(): string {
  if (at + 12 > pool.length) {
    pool = randomBytes(POOL_BYTES);
    at = 0;
  }
  const id = `req_${pool.toString('hex', at, at + 12)}`;
  at += 12;
  return id;
}
