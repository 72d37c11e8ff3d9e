import { errors, type Ctx } from '../../core/sdk';
import { acquire, newContext, type Browser } from './chromium';
import { closePage, openPage, recycle, type PageHandle, type PageLimits } from './pages';

/** The browser plugin's settings (SVC_CHROMIUM_PATH and the limits of its sessions). */
export interface BrowserSettings {
  chromium_path: string;
  idle_s: number;
  max_pages: number;
  timeout_s: number;
  max_resource_bytes: number;
}

/**
 * One session per store: a Chromium browser context of its own (cookies, storage and cache kept
 * from the other stores'), with at most `max_pages` tabs, closed after `idle_s` without use. A
 * session lives in the svc process that opened it (it is a browser, not a row): behind several
 * API processes, a `page_id` is found only by requests that reach the same one; a `url` works
 * anywhere.
 */
interface Session {
  storeId: string;
  browser: Browser;
  contextId: string;
  pages: Map<string, PageHandle>;
  timer?: ReturnType<typeof setTimeout>;
  release: () => void;
}

const sessions = new Map<string, Promise<Session>>();
let uses = 0;

/** The browser's settings, for a caller whose ctx.config is its own (documents). */
export const settingsOf = (ctx: Pick<Ctx, 'registry'>) => ctx.registry.configOf('browser') as BrowserSettings;

/** SVC_CHROMIUM_PATH, or 400 provider_not_configured naming it. */
export function chromiumPath(s: BrowserSettings): string {
  if (!s.chromium_path) throw errors.notConfigured('SVC_CHROMIUM_PATH', 'the browser drives headless Chromium (Debian: /usr/bin/chromium)');
  return s.chromium_path;
}

/** The store's session, opened if it has none (or its browser went away). */
export async function sessionOf(storeId: string, s: BrowserSettings): Promise<Session> {
  const had = sessions.get(storeId);
  if (had) {
    const live = await had.catch(() => null);
    if (live && !live.browser.cdp.closed) return touch(live, s);
    if (sessions.get(storeId) === had) sessions.delete(storeId);
    // Its browser went away (a crash): the session no longer holds it.
    if (live) {
      clearTimeout(live.timer);
      live.release();
    }
  }
  const opening = open(storeId, s);
  sessions.set(storeId, opening);
  opening.catch(() => sessions.get(storeId) === opening && sessions.delete(storeId));
  return touch(await opening, s);
}

async function open(storeId: string, s: BrowserSettings): Promise<Session> {
  const { browser, release } = await acquire(chromiumPath(s), s.idle_s * 1000);
  try {
    return { storeId, browser, contextId: await newContext(browser), pages: new Map(), release };
  } catch (err) {
    release();
    throw err;
  }
}

function touch(session: Session, s: BrowserSettings): Session {
  if (session.timer) clearTimeout(session.timer);
  session.timer = setTimeout(() => void closeSession(session.storeId), s.idle_s * 1000);
  return session;
}

/** Closes the store's session (its pages, cookies and storage); answers how many pages it had. */
export async function closeSession(storeId: string): Promise<number> {
  const had = sessions.get(storeId);
  if (!had) return 0;
  sessions.delete(storeId);
  const session = await had.catch(() => null);
  if (!session) return 0;
  if (session.timer) clearTimeout(session.timer);
  const n = session.pages.size;
  await session.browser.cdp.send('Target.disposeBrowserContext', { browserContextId: session.contextId }).catch(() => {});
  session.release();
  return n;
}

/** A page of the store's session: `page_id`'s (404 when it has none such), or a new one (closing the least recently used past the limit). */
export async function pageOf(
  storeId: string,
  s: BrowserSettings,
  limits: PageLimits,
  pageId?: string,
): Promise<{ session: Session; page: PageHandle }> {
  const session = await sessionOf(storeId, s);
  if (pageId) {
    let page = session.pages.get(pageId);
    // A page that closed itself or crashed is gone as a closed one is.
    if (page && !session.browser.guarded.has(page.sessionId)) {
      session.pages.delete(pageId);
      page = undefined;
    }
    if (!page) throw errors.notFound(`browser page: '${pageId}' (pages close after ${s.idle_s} s idle)`, 'page_id');
    page.used = ++uses;
    return { session, page };
  }
  // Past the limit the least recently used page goes: its id is forgotten, and its tab (still
  // alive) becomes the new page (a tab costs more to open than a page costs to load).
  let reuse: PageHandle | undefined;
  while (session.pages.size >= s.max_pages) {
    const oldest = [...session.pages.values()].sort((a, b) => a.used - b.used)[0];
    session.pages.delete(oldest.id);
    if (!reuse && session.browser.guarded.has(oldest.sessionId)) reuse = oldest;
    else await closePage(session.browser, oldest);
  }
  const page = reuse
    ? await recycle(session.browser, reuse, limits)
    : await openPage(session.browser, session.contextId, crypto.randomUUID(), limits);
  page.used = ++uses;
  session.pages.set(page.id, page);
  return { session, page };
}

/** What `get_session` shows: the open pages, most recent first. */
export async function describeSession(storeId: string) {
  const had = sessions.get(storeId);
  const session = had ? await had.catch(() => null) : null;
  if (!session || session.browser.cdp.closed) return { browser: null, pages: [] };
  return { browser: session.browser, pages: [...session.pages.values()].sort((a, b) => b.used - a.used) };
}

/** A throwaway context and page for one job (a PDF), closed after it whatever happens. */
export async function withScratchPage<T>(s: BrowserSettings, limits: PageLimits, run: (b: Browser, p: PageHandle) => Promise<T>): Promise<T> {
  const { browser, release } = await acquire(chromiumPath(s), s.idle_s * 1000);
  let contextId: string | undefined;
  try {
    contextId = await newContext(browser);
    const page = await openPage(browser, contextId, crypto.randomUUID(), limits);
    return await run(browser, page);
  } finally {
    if (contextId) await browser.cdp.send('Target.disposeBrowserContext', { browserContextId: contextId }).catch(() => {});
    release();
  }
}
