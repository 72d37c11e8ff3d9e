import { expect } from 'bun:test';
import type { Harness } from './setup';

/** What the QR code tests share: user agents of a phone, another phone and a laptop; a code to create; a scan. */

export const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
export const PIXEL = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36';
export const LAPTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

export const uniqueCode = (prefix = 'c') => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
export const custom = (over: Record<string, unknown> = {}) => ({
  code: uniqueCode(),
  type: 'custom',
  destination_url: 'https://shop.example.com/spring',
  ...over,
});

export async function create(h: Harness, over: Record<string, unknown> = {}) {
  const res = await h.call('POST', '/qr-codes', custom(over));
  expect(res.status).toBe(201);
  return res.body;
}

/** A scan as a phone would make it (no API key: the route is public). */
export const scan = (h: Harness, code: string, ua = IPHONE, method = 'GET') =>
  h.raw(method, `/s/${code}`, undefined, { 'x-api-key': '', 'user-agent': ua });
