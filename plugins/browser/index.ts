import { Type, type Static } from '@sinclair/typebox';
import { actionFor, definePlugin, errors, Input, metered, noExample, providerSettings, Uuid, type Ctx, onFirstCall } from '../../core/sdk';
import { Asset, storeMedia } from '../media/public';
import type { PageHandle, PageLimits, PageState } from './pages';
import type { BrowserSettings } from './sessions';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { stopBrowser } = onFirstCall(() => import('./chromium'));
const { click, extract, navigate, screenshot, state } = onFirstCall(() => import('./pages'));
const { closeSession, describeSession, pageOf } = onFirstCall(() => import('./sessions'));

const BrowserConfig = Type.Object({
  chromium_path: Type.String({
    env: 'SVC_CHROMIUM_PATH',
    default: '',
    description: "Headless Chromium's executable (Debian: /usr/bin/chromium); unset, the browser answers provider_not_configured.",
  }),
  idle_s: Type.Integer({
    minimum: 5,
    maximum: 3600,
    default: 120,
    description: "A store's session closes after this long unused (SVC_BROWSER_IDLE_S).",
  }),
  max_pages: Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'Pages open at once per store (SVC_BROWSER_MAX_PAGES).' }),
  timeout_s: Type.Number({
    exclusiveMinimum: 0,
    maximum: 120,
    default: 20,
    description: 'How long a page may take to load (SVC_BROWSER_TIMEOUT_S).',
  }),
  max_resource_bytes: Type.Integer({
    minimum: 1024,
    maximum: 100 * 1024 * 1024,
    default: 10 * 1024 * 1024,
    description: 'The largest response one request of a page may get (SVC_BROWSER_MAX_RESOURCE_BYTES).',
  }),
  provider_prices: providerSettings.provider_prices,
});
type Settings = Static<typeof BrowserConfig>;
const action = actionFor(BrowserConfig);

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'An http(s) URL; private and loopback addresses are refused.' });
const PageId = Uuid('A page of this store’s session (from navigate), kept while used; without it a new page opens.');
const Width = Type.Optional(Type.Integer({ minimum: 200, maximum: 3840, default: 1280, description: 'Viewport width of a new page, CSS pixels.' }));
const Height = Type.Optional(Type.Integer({ minimum: 200, maximum: 2160, default: 800, description: 'Viewport height of a new page.' }));
const Page = Type.Object({
  object: Type.Literal('browser_page'),
  id: Type.String({ description: 'page_id for the next calls on this page.' }),
  url: Type.String({ description: 'After redirects and clicks.' }),
  title: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()], { description: "The document's HTTP status; null for a page svc did not load." }),
  blocked: Type.Array(Type.String(), { description: 'Requests of the last load refused by the egress guard or failed (at most 50).' }),
});
const noBrowser = noExample(
  'drives headless Chromium (SVC_CHROMIUM_PATH) on pages outside svc; browser.test.ts covers it against a local page server',
);

const meterOf = (ctx: Ctx<Settings>) => ({ db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices });
const limitsOf = (ctx: Ctx<Settings>, width?: number, height?: number): PageLimits => ({
  timeoutMs: ctx.config.timeout_s * 1000,
  maxBytes: ctx.config.max_resource_bytes,
  signal: ctx.shutdown,
  width: width ?? 1280,
  height: height ?? 800,
});
const present = (p: PageHandle, s: PageState) => ({ object: 'browser_page' as const, id: p.id, ...s });

/**
 * The page an action works on: `page_id`'s as it is, or `url` loaded (in that page, or a new one).
 * A load is metered (chromium, one page) and refused at the store's spend cap.
 */
async function target(ctx: Ctx<Settings>, i: { page_id?: string; url?: string; width?: number; height?: number }) {
  if (!i.page_id && !i.url) throw errors.validation('Give url (a page to load) or page_id (an open page).', 'url');
  const limits = limitsOf(ctx, i.width, i.height);
  const { session, page } = await pageOf(ctx.store.id, ctx.config as BrowserSettings, limits, i.page_id);
  const b = session.browser;
  if (!i.url) return { b, page, state: await state(b, page) };
  const s = await metered(meterOf(ctx), 'chromium', 'headless', async () => ({
    value: await navigate(b, page, i.url!, limits),
    usage: { requests: 1, pages: 1 },
  }));
  return { b, page, state: s };
}

/**
 * SPEC 4.10 browser: headless Chromium over the DevTools protocol (cdp.ts), one session per store.
 * Every request a page makes passes the egress guard or is refused (chromium.ts); screenshots are
 * PNG media assets. public.ts prints HTML to PDF for documents.
 */
export default definePlugin({
  name: 'browser',
  category: 'platform',
  catalog: true,
  description:
    'A headless browser: load a page, click in it, read texts by CSS selector, take PNG screenshots (media assets). One session per store; pages outside svc only.',
  // SPEC 5.4: platform.
  scopes: { read: ['platform'], write: ['platform'] },
  requires: ['media'],
  config: BrowserConfig,
  // The browser process is stopped with svc (its sessions are this process's).
  start: async () => ({ stop: () => stopBrowser() }),
  actions: {
    navigate: action({
      kind: 'write',
      external: true,
      description:
        'Load a URL in a page of the store’s browser session (a new page unless page_id names an open one) and wait for it to load; answers its page_id, final URL, title and status.',
      input: Input({ url: Url, page_id: Type.Optional(PageId), width: Width, height: Height }),
      output: Page,
      rest: { method: 'POST', path: '/browser/navigate' },
      example: noBrowser,
      handler: async (ctx, input) => {
        const t = await target(ctx, input);
        return present(t.page, t.state);
      },
    }),
    screenshot: action({
      kind: 'write',
      description:
        'A PNG screenshot of a page (url loads one; page_id takes an open page as it is): the viewport, the whole page (full_page) or one element (selector), stored as a media asset.',
      input: Input({
        url: Type.Optional(Url),
        page_id: Type.Optional(PageId),
        full_page: Type.Optional(Type.Boolean({ default: false, description: 'The whole page, not only the viewport (at most 16,384 px tall).' })),
        selector: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Only the first element this CSS selector matches.' })),
        width: Width,
        height: Height,
        visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')], { description: 'Of the asset (default private).' })),
        include_image: Type.Optional(Type.Boolean({ description: 'Also answer the PNG itself (MCP clients and agents see it as image content).' })),
      }),
      output: Type.Object({
        object: Type.Literal('screenshot'),
        page: Page,
        media: Asset,
        image: Type.Optional(
          Type.Object(
            { object: Type.Literal('image'), mime_type: Type.String(), data: Type.String({ description: 'base64' }) },
            { description: 'The PNG, when include_image asked for it.' },
          ),
        ),
      }),
      rest: { method: 'POST', path: '/browser/screenshot', status: 201 },
      example: noBrowser,
      handler: async (ctx, input) => {
        const t = await target(ctx, input);
        const png = await screenshot(t.b, t.page, { fullPage: input.full_page, selector: input.selector });
        const host = new URL(t.state.url).hostname.replace(/[^\w.-]/g, '_') || 'page';
        const media = await storeMedia(ctx, { bytes: png, filename: `screenshot-${host}.png`, visibility: input.visibility ?? 'private' });
        const out = { object: 'screenshot' as const, page: present(t.page, t.state), media };
        if (!input.include_image) return out;
        return { ...out, image: { object: 'image' as const, mime_type: 'image/png', data: Buffer.from(png).toString('base64') } };
      },
    }),
    extract: action({
      kind: 'write',
      external: true,
      description:
        'Read a page (url or page_id) after its scripts ran: selectors {name: css} answers each name’s matching texts (or `attribute`’s values); without selectors, the page’s visible text.',
      input: Input({
        url: Type.Optional(Url),
        page_id: Type.Optional(PageId),
        selectors: Type.Optional(
          Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ minLength: 1, maxLength: 500 }), { maxProperties: 50 }),
        ),
        attribute: Type.Optional(
          Type.String({ minLength: 1, maxLength: 100, description: 'Answer this attribute (href, src, content) instead of the text.' }),
        ),
      }),
      output: Type.Object({
        object: Type.Literal('extraction'),
        page: Page,
        data: Type.Record(Type.String(), Type.Array(Type.String()), {
          description: 'Per name, the matches in page order (100,000 characters in all).',
        }),
      }),
      rest: { method: 'POST', path: '/browser/extract' },
      example: noBrowser,
      handler: async (ctx, input) => {
        if (input.selectors && !Object.keys(input.selectors).length) throw errors.validation('selectors names no field.', 'selectors');
        const t = await target(ctx, input);
        const data = await extract(t.b, t.page, input.selectors, input.attribute);
        return { object: 'extraction' as const, page: present(t.page, await state(t.b, t.page)), data };
      },
    }),
    click: action({
      kind: 'write',
      external: true,
      description: 'Click the first element a CSS selector matches in an open page, as a mouse would; a navigation it starts is waited for.',
      input: Input({ page_id: PageId, selector: Type.String({ minLength: 1, maxLength: 500 }) }),
      output: Page,
      rest: { method: 'POST', path: '/browser/click' },
      example: noBrowser,
      handler: async (ctx, input) => {
        const t = await target(ctx, input);
        return present(t.page, await click(t.b, t.page, input.selector, limitsOf(ctx)));
      },
    }),
    get_session: action({
      kind: 'read',
      description: 'The store’s browser session: its open pages, most recently used first (empty when none is open).',
      input: Input({}),
      output: Type.Object({
        object: Type.Literal('browser_session'),
        pages: Type.Array(Type.Object({ id: Type.String(), url: Type.String(), title: Type.String() })),
        max_pages: Type.Integer(),
        idle_s: Type.Integer({ description: 'The session closes after this long unused.' }),
      }),
      rest: { method: 'GET', path: '/browser/session' },
      handler: async (ctx) => {
        const open = await describeSession(ctx.store.id);
        const pages = [];
        for (const p of open.pages) {
          // A page that went away (closed itself, crashed) is left out.
          const s = await state(open.browser!, p).catch(() => null);
          if (s) pages.push({ id: p.id, url: s.url, title: s.title });
        }
        return { object: 'browser_session' as const, pages, max_pages: ctx.config.max_pages, idle_s: ctx.config.idle_s };
      },
    }),
    close_session: action({
      kind: 'write',
      external: true,
      description: 'Close the store’s browser session now: its pages, cookies and storage are gone.',
      input: Input({}),
      output: Type.Object({ object: Type.Literal('browser_session'), closed_pages: Type.Integer() }),
      rest: { method: 'POST', path: '/browser/session/close' },
      handler: async (ctx) => ({ object: 'browser_session' as const, closed_pages: await closeSession(ctx.store.id) }),
    }),
  },
});
