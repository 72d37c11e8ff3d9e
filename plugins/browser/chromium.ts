import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EgressError, egressFetch, fail } from '../../core/sdk';
import { launch, type Cdp, type Launched } from './cdp';

/**
 * One headless Chromium per svc process, started at the first use and stopped after it has had no
 * page open for the idle time. Every request a page makes is paused by the DevTools Fetch domain
 * and made by svc itself through the egress guard (`egressFetch`: every address checked, the
 * checked address pinned against DNS rebinding, each redirect hop checked again); Chromium gets
 * the answer with Fetch.fulfillRequest and never opens a connection of its own. What the Fetch
 * domain does not pause (a WebSocket, a worker's fetch) goes to the proxy, a local listener that
 * closes every connection, so it fails instead of reaching the network unguarded.
 */

export interface Guarded {
  /** The page's main frame: its document's status and failure are kept for the answer. */
  mainFrameId: string;
  signal: AbortSignal;
  timeoutMs: number;
  maxBytes: number;
  document?: { url: string; status: number };
  documentError?: unknown;
  /** Requests the guard refused or failed, for the answer's `blocked` list. */
  refused: string[];
  /** A document svc itself hands the page at this URL (HTML to print), never fetched. */
  serve?: { url: string; html: string };
}

export interface Browser extends Launched {
  /** Page sessions (flatten mode) whose requests the guard answers. */
  guarded: Map<string, Guarded>;
}

// Paused requests' headers a forwarded request must not carry: hop-by-hop ones, and cache
// validators (a 304 would answer a cache svc does not keep).
const DROP_REQUEST = new Set(['host', 'connection', 'content-length', 'if-none-match', 'if-modified-since', 'upgrade-insecure-requests']);
// egressFetch answers decoded bytes: the original encoding and length no longer describe them.
const DROP_RESPONSE = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'set-cookie']);

// A served document runs no script of its own: its images and styles load (through the guard), nothing else.
const SERVED = [
  { name: 'content-type', value: 'text/html; charset=utf-8' },
  { name: 'content-security-policy', value: "script-src 'none'; object-src 'none'; base-uri 'none'; frame-src 'none'" },
];

function flags(proxyPort: number, profile: string): string[] {
  const f = [
    '--headless',
    '--disable-gpu',
    '--hide-scrollbars',
    '--mute-audio',
    '--no-first-run',
    '--no-default-browser-check',
    // Nothing of Chromium's own (updates, sync, safe browsing, metrics) goes out.
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--disable-default-apps',
    '--disable-quic',
    '--metrics-recording-only',
    '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,InterestFeedContentSuggestions',
    // The backstop: whatever the guard does not answer goes to a proxy that refuses it, loopback included.
    `--proxy-server=http://127.0.0.1:${proxyPort}`,
    '--proxy-bypass-list=<-loopback>',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    `--user-data-dir=${profile}`,
    'about:blank',
  ];
  // Chromium's sandbox refuses to run as root (containers often are): it must be told.
  if (process.getuid?.() === 0) f.unshift('--no-sandbox');
  return f;
}

let running: Promise<Browser> | null = null;
let users = 0;
let idleTimer: ReturnType<typeof setTimeout> | null = null;

/** The process's browser, started if none runs; `release` when done (the last release starts the idle timer). */
export async function acquire(path: string, idleMs: number): Promise<{ browser: Browser; release: () => void }> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  users++;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    if (--users === 0) idleTimer = setTimeout(() => void stopBrowser(), idleMs);
  };
  try {
    running ??= start(path);
    const browser = await running;
    if (browser.cdp.closed) {
      running = start(path);
      return { browser: await running, release };
    }
    return { browser, release };
  } catch (err) {
    running = null;
    release();
    throw err;
  }
}

async function start(path: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
  // The refusing proxy: every connection is closed at once.
  const sink = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { open: (s) => void s.end(), data: () => {} } });
  const cleanup = () => {
    sink.stop(true);
    rmSync(profile, { recursive: true, force: true });
  };
  const launched = launch(path, flags(sink.port, profile), () => {
    cleanup();
    if (running) running.then((b) => b === browser && (running = null)).catch(() => {});
  });
  const browser: Browser = { ...launched, guarded: new Map() };
  browser.cdp.on('Fetch.requestPaused', (p, sessionId) => void answer(browser.cdp, sessionId, p, browser.guarded.get(sessionId ?? '')));
  browser.cdp.on('Target.detachedFromTarget', (p) => browser.guarded.delete(p.sessionId));
  // The first answer proves the browser runs; a wrong path or a browser that cannot start fails here.
  await withTimeout(browser.cdp.send('Browser.getVersion'), 30_000, 'Chromium did not answer within 30 s of starting');
  return browser;
}

/** A browser context of its own (cookies, storage, cache), which may download nothing to svc's disk. */
export async function newContext(b: Browser): Promise<string> {
  const { browserContextId } = await b.cdp.send('Target.createBrowserContext', { disposeOnDetach: false });
  await b.cdp.send('Browser.setDownloadBehavior', { behavior: 'deny', browserContextId });
  return browserContextId as string;
}

/** Ends the browser (idle, or svc stopping). */
export async function stopBrowser() {
  const b = running;
  running = null;
  if (!b) return;
  const browser = await b.catch(() => null);
  if (!browser) return;
  await withTimeout(browser.cdp.send('Browser.close'), 3000, '').catch(() => browser.proc.kill('SIGKILL'));
}

export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(fail('provider_error', `chromium: ${message}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** One paused request, made through the egress guard and handed back to Chromium (or failed). */
async function answer(cdp: Cdp, sessionId: string | undefined, p: any, page: Guarded | undefined) {
  const { requestId, request } = p;
  const isDocument = p.resourceType === 'Document' && page && p.frameId === page.mainFrameId;
  try {
    if (!page) throw new EgressError('egress_blocked', 'A request of a page svc does not watch.');
    if (page.serve && request.url === page.serve.url) {
      if (isDocument) page.document = { url: request.url, status: 200 };
      return await cdp.send(
        'Fetch.fulfillRequest',
        { requestId, responseCode: 200, responseHeaders: SERVED, body: Buffer.from(page.serve.html).toString('base64') },
        sessionId,
      );
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(request.headers as Record<string, string>)) if (!DROP_REQUEST.has(k.toLowerCase())) headers[k] = v;
    const res = await egressFetch(request.url, {
      method: request.method,
      headers,
      body: bodyOf(request),
      followRedirects: false, // Chromium follows: each hop is paused, so checked, again
      timeoutMs: page.timeoutMs,
      maxBytes: page.maxBytes,
      purpose: 'page',
      signal: page.signal,
    });
    if (res.truncated) throw new EgressError('egress_failed', `${request.url} is larger than ${page.maxBytes} bytes.`);
    const responseHeaders: { name: string; value: string }[] = [];
    res.headers.forEach((value, name) => !DROP_RESPONSE.has(name) && responseHeaders.push({ name, value }));
    for (const c of res.headers.getSetCookie()) responseHeaders.push({ name: 'set-cookie', value: c });
    if (isDocument) page.document = { url: request.url, status: res.status };
    await cdp.send(
      'Fetch.fulfillRequest',
      { requestId, responseCode: res.status, responseHeaders, body: Buffer.from(res.body).toString('base64') },
      sessionId,
    );
  } catch (err) {
    if (page) page.refused.push(request.url);
    if (isDocument) page!.documentError = err;
    const code = err instanceof EgressError ? err.code : '';
    const errorReason =
      code === 'egress_blocked' || code === 'egress_invalid_url' ? 'BlockedByClient' : code === 'egress_timeout' ? 'TimedOut' : 'Failed';
    await cdp.send('Fetch.failRequest', { requestId, errorReason }, sessionId).catch(() => {});
  }
}

/** A paused request's body: its post data entries (base64 bytes), else its text. */
function bodyOf(request: any): Uint8Array | string | undefined {
  if (Array.isArray(request.postDataEntries) && request.postDataEntries.length)
    return Buffer.concat(request.postDataEntries.map((e: any) => Buffer.from(e.bytes ?? '', 'base64')));
  return request.postData;
}
