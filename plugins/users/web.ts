import { timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';

/** Small pieces of HTTP the sign-in pages and the OAuth endpoints share. */

export const sha256 = (s: string) => new Bun.CryptoHasher('sha256').update(s).digest('hex');
export const randomToken = (bytes = 32) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url');

export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The request's cookies. Other apps on the same host may set cookies we never wrote (`zoom=100%`);
 * a value that does not percent-decode is dropped rather than failing the page.
 */
export function cookies(request: Request | undefined): Record<string, string> {
  const parsed = parseCookie(request?.headers.get('cookie') ?? '', { decode: decodeOrDrop });
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => e[1] !== undefined));
}

function decodeOrDrop(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** Whether the browser reached us over https (directly, or through a proxy that says so). */
export function overHttps(request: Request | undefined): boolean {
  if (!request) return false;
  return new URL(request.url).protocol === 'https:' || request.headers.get('x-forwarded-proto')?.split(',')[0].trim() === 'https';
}

/** A cookie as the sign-in pages set them: HttpOnly, SameSite=Lax, Secure behind https. */
export function setCookie(request: Request | undefined, name: string, value: string, maxAgeSeconds: number): string {
  return stringifySetCookie({ name, value, path: '/', httpOnly: true, sameSite: 'lax', maxAge: maxAgeSeconds, secure: overHttps(request) });
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

export function html(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      ...NO_STORE,
      ...headers,
    },
  });
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...NO_STORE, ...headers } });
}

export function redirect(location: string, headers: Record<string, string> | [string, string][] = {}): Response {
  const h = new Headers(headers as any);
  h.set('Location', location);
  h.set('Cache-Control', 'no-store');
  return new Response(null, { status: 303, headers: h });
}

/** A page with the house style: no JavaScript, one form or message. */
export function page(title: string, content: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · svc</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.8rem 0 .2rem}input,select{width:100%;padding:.5rem;box-sizing:border-box}
button{margin:1rem .5rem 0 0;padding:.5rem 1rem}.error{color:#a00}ul{padding-left:1.2rem}</style></head>
<body><h1>${escapeHtml(title)}</h1>${content}</body></html>`;
}
