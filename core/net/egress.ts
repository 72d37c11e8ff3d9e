/**
 * The egress guard: every server-side request to a user-supplied URL (outbound
 * webhooks, HTTP custom tools, logo fetches) goes through egressFetch.
 *
 * Why it is built this way (each point is proven by egress.test.ts on Bun 1.4.5):
 * - Bun's fetch ignores Node agents/undici dispatchers, so the guard cannot hook the
 *   connect step. Instead it resolves the name itself, checks EVERY address, and then
 *   fetches a URL whose host is the checked IP literal, with the original Host header.
 *   fetch has no name left to resolve, so a DNS answer cannot change between check and
 *   connect (rebinding).
 * - For https, Bun's fetch `tls.serverName` sends SNI and makes Bun verify the
 *   certificate against that name although the URL holds an IP (with neither option Bun
 *   checks the IP; with a wrong serverName it fails: egress.tls.test.ts). serverName is
 *   always the URL's host, so the name verified never depends on what Bun derives from the
 *   connection's address; without it no SNI is sent (multi-certificate servers break). No
 *   `checkServerIdentity` callback on top: with one, Bun's fetch reuses no connection.
 * - Redirects are followed by hand (redirect: 'manual') and every hop is checked again.
 * - Trust: by default the system store plus NODE_EXTRA_CA_CERTS (read by Bun at start).
 *   The `ca` option REPLACES that store for the request (observed: Node semantics).
 * - If HTTP_PROXY/HTTPS_PROXY is set, Bun's fetch sends through that proxy (even for IP
 *   URLs, and `proxy: ''` does not turn it off). The proxy is then asked for the checked
 *   IP literal, so it cannot re-resolve the name; the proxy itself is operator-trusted.
 */
import { lookup } from 'node:dns/promises';
import { parseIp } from './ip';
import { EgressError, checkAddress, checkUrl, describe, normalizeHost, resolveAllow, type AllowList } from './policy';

export { EgressError, checkUrl, parseAllowList, type AllowList, type CheckUrlOptions, type EgressCode } from './policy';

/** Answers every address of a host name (the guard checks them all). */
export type Resolver = (hostname: string) => Promise<string[]>;

/** node:dns lookup (getaddrinfo, honours /etc/hosts) with all addresses, in resolver order. */
export const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface EgressInit {
  method?: string;
  headers?: HeadersInit;
  /** Only replayable bodies: a 307/308 redirect sends it again. */
  body?: string | Uint8Array;
  /** Whole-request budget: resolution, connect, every redirect hop and the body read. Default 10 s. */
  timeoutMs?: number;
  /** Response bytes kept (after content decoding); the rest is dropped and `truncated` set. Default 1 MiB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  /**
   * false: a 3xx is returned as the response instead of followed (webhooks: a redirected POST
   * would turn into a body-less GET and look delivered). Default true.
   */
  followRedirects?: boolean;
  resolver?: Resolver;
  /** Replaces SVC_EGRESS_ALLOW for this request (host names, IPs, CIDRs). */
  allow?: readonly string[] | AllowList;
  /** PEM trust anchors replacing the default store, for private CAs and tests. */
  ca?: string;
  /** Refuse http: on the first URL and on every redirect (webhooks, SPEC 6.1 rule 4). */
  httpsOnly?: boolean;
  /** Names the URL in error messages ('webhook' -> "webhook URL host ..."). */
  purpose?: string;
  signal?: AbortSignal;
}

export interface EgressResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** True when the body was cut at maxBytes. */
  truncated: boolean;
  /** Final URL after redirects (with the host name, not the IP). */
  url: string;
  /** The checked IP the final response came from. */
  remoteAddress: string;
  redirects: number;
  text(): string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Errors raised before any byte of the request was sent: trying the next checked address is safe.
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ConnectionRefused', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
// Fetch spec: dropped when a redirect turns the request into a body-less GET.
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
// Fetch spec drops Authorization on a cross-origin redirect; cookies and proxy auth likewise.
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** Rejects with the signal's reason as soon as it aborts (resolvers and body reads may not watch it). */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown };
  return typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'unknown';
}

interface Ctx {
  signal: AbortSignal;
  timeoutMs: number;
  resolver: Resolver;
  allow: AllowList;
  purpose?: string;
  ca?: string;
}

/** Maps an abort to egress_timeout (our deadline) or egress_failed (the caller's signal). */
function abortError(ctx: Ctx, host: string, cause: unknown): EgressError {
  const reason = ctx.signal.reason as { name?: string } | undefined;
  if (reason?.name === 'TimeoutError') {
    return new EgressError('egress_timeout', `${describe(ctx.purpose)} ${host} did not answer within ${ctx.timeoutMs} ms.`, host, null, { cause });
  }
  return new EgressError('egress_failed', `Request to ${host} was aborted.`, host, null, { cause });
}

/** Every address the host stands for, each checked; an IP-literal host is its own answer. */
async function resolveChecked(u: URL, ctx: Ctx, what: string): Promise<string[]> {
  const host = normalizeHost(u.hostname);
  let answers: string[];
  if (parseIp(host)) {
    answers = [host];
  } else {
    try {
      answers = await untilAborted(ctx.resolver(host), ctx.signal);
    } catch (err) {
      if (ctx.signal.aborted) throw abortError(ctx, host, err);
      throw new EgressError('egress_failed', `Could not resolve ${host} (${errorCode(err)}).`, host, null, { cause: err });
    }
  }
  // Check all before using any: one private answer among public ones refuses the host,
  // since we cannot know which one a retry or another component would pick.
  const checked = [...new Set(answers.map((a) => checkAddress(host, a, ctx.allow, what)))];
  if (checked.length === 0) throw new EgressError('egress_failed', `${host} did not resolve to any address.`, host);
  return checked;
}

interface Attempt {
  method: string;
  headers: Headers;
  body: string | Uint8Array | undefined;
}

/** One hop: connect to a checked address (trying the next only if the connect itself failed). */
async function sendHop(u: URL, addresses: string[], a: Attempt, ctx: Ctx): Promise<{ res: Response; address: string }> {
  const host = normalizeHost(u.hostname);
  const headers = new Headers(a.headers);
  // u.host keeps a non-default port, as a Host header must.
  headers.set('host', u.host);
  for (let i = 0; i < addresses.length; i++) {
    const address = addresses[i];
    const target = new URL(u.href);
    target.hostname = address.includes(':') ? `[${address}]` : address;
    target.hash = '';
    const init: RequestInit & { tls?: Record<string, unknown> } = {
      method: a.method,
      headers,
      body: a.body as BodyInit | undefined, // Uint8Array<ArrayBufferLike> is a valid body; the lib type wants ArrayBuffer-backed
      redirect: 'manual',
      signal: ctx.signal,
    };
    if (u.protocol === 'https:') {
      // The certificate is verified against serverName, the URL's host, though the connection goes
      // to the checked address. SNI must be a name (RFC 6066); for an IP-literal URL Bun verifies
      // the IP itself. No checkServerIdentity callback: with one, Bun's fetch reuses no connection
      // and every request pays a TLS handshake (measured: 1.2k against 58k requests/s locally).
      init.tls = {
        ...(parseIp(host) ? {} : { serverName: host }),
        ...(ctx.ca !== undefined ? { ca: ctx.ca } : {}),
      };
    }
    try {
      return { res: await fetch(target, init), address };
    } catch (err) {
      if (ctx.signal.aborted) throw abortError(ctx, host, err);
      const code = errorCode(err);
      if (CONNECT_ERRORS.has(code) && i < addresses.length - 1) continue;
      const tlsHint = /CERT|SELF_SIGNED|TLS|SSL|ALTNAME|VERIFY|ISSUER/i.test(code) ? ' (TLS certificate not trusted for this host)' : '';
      throw new EgressError('egress_failed', `Request to ${host} (${address}) failed: ${code}${tlsHint}.`, host, address, { cause: err });
    }
  }
  throw new EgressError('egress_failed', `${host} has no address to connect to.`, host);
}

/** Reads at most maxBytes, then cancels the stream (the sender may never stop). */
async function readCapped(res: Response, maxBytes: number, ctx: Ctx, host: string): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!res.body) return { body: new Uint8Array(0), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await untilAborted(reader.read(), ctx.signal);
      if (done) break;
      if (total + value.byteLength > maxBytes) {
        chunks.push(value.subarray(0, maxBytes - total));
        total = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } catch (err) {
    if (ctx.signal.aborted) throw abortError(ctx, host, err);
    throw new EgressError('egress_failed', `Reading the response from ${host} failed: ${errorCode(err)}.`, host, null, { cause: err });
  } finally {
    if (truncated || ctx.signal.aborted) reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
  const body = new Uint8Array(total);
  let off = 0;
  for (const c of chunks) {
    body.set(c, off);
    off += c.byteLength;
  }
  return { body, truncated };
}

/**
 * fetch for user-supplied URLs. Throws EgressError: egress_invalid_url / egress_blocked
 * before any packet is sent, egress_timeout when timeoutMs elapses, egress_failed for
 * DNS, connect, TLS and redirect-limit failures. Non-2xx responses are returned, not thrown.
 * An over-long body is cut at maxBytes and flagged `truncated` rather than failing, so a
 * webhook's status or a tool's partial answer is still usable; callers that need the
 * whole body check the flag.
 */
export async function egressFetch(url: string, init: EgressInit = {}): Promise<EgressResponse> {
  const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = init.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = init.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const ctx: Ctx = {
    signal: init.signal ? AbortSignal.any([timeout, init.signal]) : timeout,
    timeoutMs,
    resolver: init.resolver ?? systemResolver,
    allow: resolveAllow(init.allow),
    purpose: init.purpose,
    ca: init.ca,
  };
  const what = describe(init.purpose);
  let current = checkUrl(url, { httpsOnly: init.httpsOnly, allow: ctx.allow, purpose: init.purpose });
  const attempt: Attempt = {
    method: (init.method ?? 'GET').toUpperCase(),
    headers: new Headers(init.headers),
    body: init.body,
  };
  for (let hop = 0; ; hop++) {
    const addresses = await resolveChecked(current, ctx, hop === 0 ? `${what} host` : `${what} redirect target`);
    const { res, address } = await sendHop(current, addresses, attempt, ctx);
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || location === null || init.followRedirects === false) {
      const host = normalizeHost(current.hostname);
      const { body, truncated } = await readCapped(res, maxBytes, ctx, host);
      return {
        status: res.status,
        headers: res.headers,
        body,
        truncated,
        url: current.href,
        remoteAddress: address,
        redirects: hop,
        text: () => new TextDecoder().decode(body),
      };
    }
    res.body?.cancel().catch(() => {});
    if (hop >= maxRedirects) {
      throw new EgressError('egress_failed', `${what} redirected more than ${maxRedirects} times.`, current.hostname);
    }
    let next: URL;
    try {
      next = new URL(location, current);
    } catch {
      throw new EgressError('egress_failed', `${what} redirected to an invalid Location '${location}'.`, current.hostname);
    }
    next = checkUrl(next, { httpsOnly: init.httpsOnly, allow: ctx.allow, purpose: `${init.purpose ? init.purpose + ' ' : ''}redirect` });
    // Fetch rules: 303 becomes GET (except HEAD); 301/302 turn only POST into GET; 307/308 keep both.
    const toGet = (res.status === 303 && attempt.method !== 'HEAD') || ((res.status === 301 || res.status === 302) && attempt.method === 'POST');
    if (toGet) {
      attempt.method = 'GET';
      attempt.body = undefined;
      for (const h of BODY_HEADERS) attempt.headers.delete(h);
    }
    if (next.origin !== current.origin) for (const h of CREDENTIAL_HEADERS) attempt.headers.delete(h);
    current = next;
  }
}
