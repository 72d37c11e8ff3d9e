import { EgressError, errors } from '../../core/sdk';
import type { Cdp } from './cdp';
import type { Browser, Guarded } from './chromium';

/** One open tab: its DevTools session and what the guard keeps of its requests. */
export interface PageHandle {
  id: string;
  targetId: string;
  sessionId: string;
  guard: Guarded;
  /** Larger is more recent (a counter, not a clock): the session closes its least recently used page. */
  used: number;
}

export interface PageLimits {
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal;
  width: number;
  height: number;
}

/** Waits for `event` of one session (optionally one that `match`es); `cancel` stops listening. */
function waitFor(cdp: Cdp, event: string, sessionId: string, ms: number, match: (p: any) => boolean = () => true) {
  let off = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<boolean>((resolve) => {
    off = cdp.on(event, (p, sid) => sid === sessionId && match(p) && resolve(true));
    timer = setTimeout(() => resolve(false), ms);
  }).finally(() => {
    off();
    clearTimeout(timer);
  });
  return { promise, cancel: () => (off(), clearTimeout(timer)) };
}

/** A new tab in the browser context, every request of it answered through the guard. */
export async function openPage(b: Browser, contextId: string, id: string, l: PageLimits): Promise<PageHandle> {
  const { targetId } = await b.cdp.send('Target.createTarget', { url: 'about:blank', browserContextId: contextId });
  const { sessionId } = await b.cdp.send('Target.attachToTarget', { targetId, flatten: true });
  const { frameTree } = await b.cdp.send('Page.getFrameTree', {}, sessionId);
  const guard: Guarded = { mainFrameId: frameTree.frame.id, signal: l.signal, timeoutMs: l.timeoutMs, maxBytes: l.maxBytes, refused: [] };
  b.guarded.set(sessionId, guard);
  await Promise.all([
    b.cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] }, sessionId),
    b.cdp.send('Page.enable', {}, sessionId),
    b.cdp.send('Emulation.setDeviceMetricsOverride', { width: l.width, height: l.height, deviceScaleFactor: 1, mobile: false }, sessionId),
  ]);
  return { id, targetId, sessionId, guard, used: 0 };
}

/** An open tab made a new page: a new id, the caller's limits and viewport, its history kept (unseen). */
export async function recycle(b: Browser, p: PageHandle, l: PageLimits): Promise<PageHandle> {
  Object.assign(p.guard, { signal: l.signal, timeoutMs: l.timeoutMs, maxBytes: l.maxBytes, document: undefined, refused: [] });
  await b.cdp.send('Emulation.setDeviceMetricsOverride', { width: l.width, height: l.height, deviceScaleFactor: 1, mobile: false }, p.sessionId);
  return { ...p, id: crypto.randomUUID() };
}

export const closePage = (b: Browser, p: PageHandle) => b.cdp.send('Target.closeTarget', { targetId: p.targetId }).catch(() => {});

export interface PageState {
  url: string;
  title: string;
  status: number | null;
  blocked: string[];
}

/** Loads `url` in the page and waits for its load event (at most the timeout; a page still loading is answered as it is). */
export async function navigate(b: Browser, p: PageHandle, url: string, l: Pick<PageLimits, 'timeoutMs' | 'signal'>): Promise<PageState> {
  // Only the web: a file:, data: or chrome: URL would never reach the guard (nothing to fetch).
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {}
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new EgressError('egress_invalid_url', `url must be an http(s) URL; '${url.slice(0, 100)}' is not.`);
  Object.assign(p.guard, { document: undefined, documentError: undefined, refused: [], signal: l.signal, timeoutMs: l.timeoutMs });
  const loaded = waitFor(b.cdp, 'Page.loadEventFired', p.sessionId, l.timeoutMs);
  const r = await b.cdp.send('Page.navigate', { url }, p.sessionId);
  if (r.errorText) {
    loaded.cancel();
    if (p.guard.documentError) throw p.guard.documentError;
    throw new EgressError('egress_failed', `${url} could not be loaded (${r.errorText}).`, parsed.hostname);
  }
  // A same-document navigation (a #fragment) has no loader and fires no load event.
  if (r.loaderId) await loaded.promise;
  else loaded.cancel();
  return state(b, p);
}

/** The page as it is now: its URL, title, its document's status and the requests the guard refused. */
export async function state(b: Browser, p: PageHandle): Promise<PageState> {
  const v = await evaluate(b, p, '({ url: location.href, title: document.title })');
  return { url: v.url, title: v.title, status: p.guard.document?.status ?? null, blocked: [...new Set(p.guard.refused)].slice(0, 50) };
}

/** An expression's value in the page (JSON values only); a thrown error is a 400 naming `param`. */
export async function evaluate(b: Browser, p: PageHandle, expression: string, param = 'selector'): Promise<any> {
  const r = await b.cdp.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, p.sessionId);
  if (r.exceptionDetails)
    throw errors.validation(`The page refused it: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`, param);
  return r.result.value;
}

/** The tallest full-page screenshot taken (taller pages are cut there). */
const MAX_SHOT_HEIGHT = 16_384;

/** A PNG of the viewport, the whole page, or one element. */
export async function screenshot(b: Browser, p: PageHandle, o: { fullPage?: boolean; selector?: string }): Promise<Uint8Array> {
  let clip: { x: number; y: number; width: number; height: number; scale: 1 } | undefined;
  // A tab in the background draws no frames, and a capture would wait for one forever.
  await b.cdp.send('Page.bringToFront', {}, p.sessionId);
  if (o.selector) {
    const box = await evaluate(
      b,
      p,
      `(() => { const e = document.querySelector(${JSON.stringify(o.selector)}); if (!e) return null; e.scrollIntoView({ block: 'nearest' });
        const r = e.getBoundingClientRect(); return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height }; })()`,
    );
    if (!box || box.width < 1 || box.height < 1) throw errors.validation(`No visible element matches '${o.selector}'.`, 'selector');
    clip = { ...box, scale: 1 };
  } else if (o.fullPage) {
    const m = await b.cdp.send('Page.getLayoutMetrics', {}, p.sessionId);
    const size = m.cssContentSize ?? m.contentSize;
    clip = { x: 0, y: 0, width: Math.ceil(size.width), height: Math.min(MAX_SHOT_HEIGHT, Math.ceil(size.height)), scale: 1 };
  }
  const r = await b.cdp.send('Page.captureScreenshot', { format: 'png', ...(clip ? { clip, captureBeyondViewport: true } : {}) }, p.sessionId);
  return new Uint8Array(Buffer.from(r.data, 'base64'));
}

/** The most text one extraction answers, in characters. */
export const MAX_TEXT = 100_000;

/** Each selector's matching elements' visible texts; with none, the page's whole visible text. */
export async function extract(b: Browser, p: PageHandle, selectors?: Record<string, string>, attribute?: string): Promise<Record<string, string[]>> {
  const out = await evaluate(
    b,
    p,
    `((sel, attr, max) => { const out = {}; let used = 0;
      const keep = (s) => { s = (s || '').replace(/\\s+/g, ' ').trim(); if (!s || used >= max) return null; s = s.slice(0, max - used); used += s.length; return s; };
      if (!sel) return { text: [keep(document.body ? document.body.innerText : '')].filter(Boolean) };
      for (const [name, css] of Object.entries(sel)) {
        let found; try { found = [...document.querySelectorAll(css)]; } catch { return { __bad: name }; }
        out[name] = found.map((e) => keep(attr ? e.getAttribute(attr) : e.innerText ?? e.textContent)).filter((s) => s !== null);
      }
      return out; })(${JSON.stringify(selectors ?? null)}, ${JSON.stringify(attribute ?? null)}, ${MAX_TEXT})`,
  );
  if (out.__bad) throw errors.validation(`selectors.${out.__bad} is not a CSS selector.`, `selectors.${out.__bad}`);
  return out;
}

/** Clicks the element's centre as a mouse would; a navigation it starts is waited for (its load, at most the timeout). */
export async function click(b: Browser, p: PageHandle, selector: string, l: Pick<PageLimits, 'timeoutMs' | 'signal'>): Promise<PageState> {
  const at = await evaluate(
    b,
    p,
    `(() => { const e = document.querySelector(${JSON.stringify(selector)}); if (!e) return null; e.scrollIntoView({ block: 'center' });
      const r = e.getBoundingClientRect(); return r.width && r.height ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : null; })()`,
  );
  if (!at) throw errors.validation(`No visible element matches '${selector}'.`, 'selector');
  // The document's status becomes the new one's if the click navigates; else it stays.
  const before = p.guard.document;
  Object.assign(p.guard, { document: undefined, documentError: undefined, refused: [], signal: l.signal, timeoutMs: l.timeoutMs });
  const started = waitFor(b.cdp, 'Page.frameStartedLoading', p.sessionId, 500, (e) => e.frameId === p.guard.mainFrameId);
  const mouse = (type: string) => b.cdp.send('Input.dispatchMouseEvent', { type, x: at.x, y: at.y, button: 'left', clickCount: 1 }, p.sessionId);
  await mouse('mouseMoved');
  await mouse('mousePressed');
  await mouse('mouseReleased');
  const loaded = waitFor(b.cdp, 'Page.loadEventFired', p.sessionId, l.timeoutMs);
  if (await started.promise) {
    await loaded.promise;
    if (!p.guard.document && p.guard.documentError) throw p.guard.documentError;
  } else {
    loaded.cancel();
    p.guard.document ??= before;
  }
  return state(b, p);
}

/** HTML printed to an A4 PDF, backgrounds included; a CSS @page size wins. */
export async function printPdf(b: Browser, p: PageHandle, o: { landscape?: boolean }): Promise<Uint8Array> {
  const r = await b.cdp.send(
    'Page.printToPDF',
    { printBackground: true, preferCSSPageSize: true, landscape: !!o.landscape, paperWidth: 8.27, paperHeight: 11.69 },
    p.sessionId,
  );
  return new Uint8Array(Buffer.from(r.data, 'base64'));
}
