import { afterAll, afterEach, beforeAll, expect } from 'bun:test';
import { PNG } from 'pngjs';
import { setup } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { browserTest, CHROMIUM } from '../../test/kit/browser';
import { events, fakeServer, openai } from '../../test/kit/fake-models';
import { stopBrowser } from './chromium';

/**
 * The browser against pages served on 127.0.0.1 by this file (and a second host, 127.0.0.2, that
 * the egress allowance leaves closed), in Debian's headless Chromium (issue 47).
 */
beforeAll(() => sharedDb(), 60_000);
afterAll(() => stopBrowser());
const allow = process.env.SVC_EGRESS_ALLOW;
afterEach(() => {
  if (allow === undefined) delete process.env.SVC_EGRESS_ALLOW;
  else process.env.SVC_EGRESS_ALLOW = allow;
});

/** Every request each server saw, as `METHOD path`. */
const seen: string[] = [];
const closed: string[] = [];

const PAGES: Record<string, (req: Request, other: string) => Response | Promise<Response>> = {
  '/': (_, other) =>
    html(`<title>Shop</title><body style="margin:0;background:#ff0000">
      <h1 class="name">Linen apron</h1><p class="price">24.00</p><a id="next" href="/next">Next</a>
      <img src="${other}/tracker.png"><ul id="late"></ul>
      <script>
        document.getElementById('late').innerHTML = '<li>made by script</li><li>second</li>';
        fetch('${other}/beacon').catch(() => {});
        try { new WebSocket('${other.replace('http', 'ws')}/socket'); } catch {}
      </script></body>`),
  '/next': () => html('<title>Next</title><p id="who">next page</p>'),
  '/tall': () => html('<title>Tall</title><body style="margin:0"><div style="height:2000px;background:#0000ff"></div></body>'),
  '/login': () => new Response(null, { status: 302, headers: { location: '/me', 'set-cookie': 'sid=abc123; Path=/; HttpOnly' } }),
  '/me': (req) => html(`<title>Me</title><p id="cookie">${req.headers.get('cookie') ?? 'none'}</p>`),
  '/redirect-out': (_, other) => new Response(null, { status: 302, headers: { location: `${other}/` } }),
};
const html = (body: string) => new Response(`<!doctype html><html>${body}</html>`, { headers: { 'content-type': 'text/html' } });

function serve(hostname: string, other: () => string) {
  return Bun.serve({
    port: 0,
    hostname,
    fetch(req, server) {
      const path = new URL(req.url).pathname;
      seen.push(`${hostname} ${req.method} ${path}`);
      if (server.upgrade(req)) return undefined;
      const page = PAGES[path];
      return page ? page(req, other()) : new Response('missing', { status: 404 });
    },
    websocket: { message() {}, open: () => void closed.push(hostname) },
  });
}
const second = serve('127.0.0.2', () => first);
const secondUrl = `http://127.0.0.2:${second.port}`;
const main = serve('127.0.0.1', () => secondUrl);
const first = `http://127.0.0.1:${main.port}`;
afterAll(() => {
  main.stop(true);
  second.stop(true);
});

async function harness(env: Record<string, string> = { SVC_CHROMIUM_PATH: CHROMIUM }) {
  const h = await setup({ env });
  const key = await h.newKey(['platform']);
  const call = (m: string, path: string, body?: unknown) => h.call(m, path, body, { 'x-api-key': key });
  return { h, key, call };
}

browserTest('without SVC_CHROMIUM_PATH every page action is 400 provider_not_configured naming it; the session reads empty', async () => {
  const { call } = await harness({});
  for (const [path, body] of [
    ['/browser/navigate', { url: 'https://shop.example/' }],
    ['/browser/screenshot', { url: 'https://shop.example/' }],
    ['/browser/extract', { url: 'https://shop.example/' }],
  ] as const) {
    const r = await call('POST', path, body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('provider_not_configured');
    expect(r.body.error.message).toContain('SVC_CHROMIUM_PATH');
  }
  expect((await call('GET', '/browser/session')).body).toMatchObject({ object: 'browser_session', pages: [], max_pages: 5, idle_s: 120 });
});

browserTest('a loopback page is refused by the egress guard before Chromium or svc sends anything to it', async () => {
  const { call } = await harness();
  const before = seen.length;
  const r = await call('POST', '/browser/navigate', { url: `${first}/` });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'egress_blocked', param: 'url' });
  expect(seen.length).toBe(before);
  // Nothing but the web: a local file never reaches a page.
  for (const url of ['file:///etc/passwd', 'chrome://version', 'data:text/html,<h1>x</h1>']) {
    const f = await call('POST', '/browser/screenshot', { url });
    expect(f.status).toBe(400);
    expect(f.body.error.code).toBe('egress_invalid_url');
  }
});

browserTest(
  'a session unused for its idle time closes: its pages are gone',
  async () => {
    process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
    const { call } = await harness({ SVC_CHROMIUM_PATH: CHROMIUM, SVC_BROWSER_IDLE_S: '5' });
    const page = (await call('POST', '/browser/navigate', { url: `${first}/next` })).body;
    expect((await call('GET', '/browser/session')).body).toMatchObject({ pages: [{ id: page.id, title: 'Next' }], idle_s: 5 });
    await Bun.sleep(6000);
    expect((await call('GET', '/browser/session')).body.pages).toEqual([]);
    expect((await call('POST', '/browser/click', { page_id: page.id, selector: 'p' })).status).toBe(404);
  },
  30_000,
);

browserTest(
  'navigate runs the page’s scripts; every request it makes passes the guard: another host, its fetch and its WebSocket never arrive',
  async () => {
    process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
    const { call } = await harness();
    const r = await call('POST', '/browser/navigate', { url: `${first}/` });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'browser_page', url: `${first}/`, title: 'Shop', status: 200 });
    expect(r.body.blocked).toContain(`${secondUrl}/tracker.png`);
    const got = await call('POST', '/browser/extract', { page_id: r.body.id, selectors: { name: '.name', items: '#late li', missing: '.none' } });
    expect(got.body.data).toEqual({ name: ['Linen apron'], items: ['made by script', 'second'], missing: [] });
    await Bun.sleep(300);
    expect(seen.filter((s) => s.startsWith('127.0.0.2'))).toEqual([]);
    expect(closed).toEqual([]);
    // A redirect to the closed host is checked at its hop too.
    const out = await call('POST', '/browser/navigate', { url: `${first}/redirect-out` });
    expect(out.status).toBe(400);
    expect(out.body.error.code).toBe('egress_blocked');
    expect(seen.filter((s) => s.startsWith('127.0.0.2'))).toEqual([]);
  },
);

browserTest('screenshot: a PNG media asset of the viewport, the whole page or one element, private by default; the load is metered', async () => {
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
  const { h, call } = await harness();
  const shot = await call('POST', '/browser/screenshot', { url: `${first}/`, width: 400, height: 300 });
  expect(shot.status).toBe(201);
  expect(shot.body.page).toMatchObject({ title: 'Shop', status: 200 });
  expect(shot.body.media).toMatchObject({ object: 'media', content_type: 'image/png', width: 400, height: 300, visibility: 'private' });
  const png = PNG.sync.read(Buffer.from(await (await h.app.handle(new Request(shot.body.media.url))).arrayBuffer()));
  // The page's red background, drawn by Chromium (bottom-right corner: no text there).
  expect([...png.data.subarray((299 * 400 + 399) * 4, (299 * 400 + 399) * 4 + 3)]).toEqual([255, 0, 0]);

  const tall = await call('POST', '/browser/screenshot', { url: `${first}/tall`, full_page: true, visibility: 'public' });
  expect(tall.body.media).toMatchObject({ width: 1280, height: 2000, visibility: 'public' });
  const el = await call('POST', '/browser/screenshot', { page_id: shot.body.page.id, selector: 'h1' });
  expect(el.status, JSON.stringify(el.body)).toBe(201);
  expect(el.body.media.height).toBeLessThan(100);
  expect((await call('POST', '/browser/screenshot', { page_id: shot.body.page.id, selector: '.none' })).body.error.param).toBe('selector');

  const [usage] = await h.db.query("SELECT requests, pages FROM provider_usage WHERE store_id = $1 AND provider = 'chromium'", [h.store.id]);
  expect({ requests: Number(usage.requests), pages: Number(usage.pages) }).toEqual({ requests: 2, pages: 2 });
});

browserTest('click follows a link; cookies a page sets are sent back; extract reads an attribute', async () => {
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
  const { call } = await harness();
  const page = (await call('POST', '/browser/navigate', { url: `${first}/` })).body;
  expect((await call('POST', '/browser/extract', { page_id: page.id, selectors: { link: '#next' }, attribute: 'href' })).body.data).toEqual({
    link: ['/next'],
  });
  const after = await call('POST', '/browser/click', { page_id: page.id, selector: '#next' });
  expect(after.body).toMatchObject({ id: page.id, url: `${first}/next`, title: 'Next', status: 200 });
  expect((await call('POST', '/browser/click', { page_id: page.id, selector: '#gone' })).body.error).toMatchObject({ param: 'selector' });
  const me = await call('POST', '/browser/extract', { url: `${first}/login`, page_id: page.id, selectors: { cookie: '#cookie' } });
  expect(me.body.page.url).toBe(`${first}/me`);
  expect(me.body.data.cookie).toEqual(['sid=abc123']);
  // Without selectors: the page's visible text.
  expect((await call('POST', '/browser/extract', { page_id: page.id })).body.data).toEqual({ text: ['sid=abc123'] });
});

browserTest(
  'one session per store: at most 5 pages (the least recently used closes), another store’s page_id is 404, close_session ends it',
  async () => {
    process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
    const { call } = await harness();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await call('POST', '/browser/navigate', { url: `${first}/next` })).body.id);
    const s = (await call('GET', '/browser/session')).body;
    expect(s.pages.map((p: { id: string }) => p.id)).toEqual(ids.slice(1).reverse());
    const gone = await call('POST', '/browser/click', { page_id: ids[0], selector: 'p' });
    expect(gone.status).toBe(404);
    expect(gone.body.error.param).toBe('page_id');
    const other = await harness();
    expect((await other.call('POST', '/browser/extract', { page_id: ids[5] })).status).toBe(404);
    expect((await call('POST', '/browser/session/close')).body).toEqual({ object: 'browser_session', closed_pages: 5 });
    expect((await call('GET', '/browser/session')).body.pages).toEqual([]);
  },
);

browserTest('over MCP the browser tool takes a screenshot and reads a page; an agent reads one in chat', async () => {
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
  const model = fakeServer([
    openai.tools({ name: 'browser', input: { action: 'extract', url: `${first}/next`, selectors: { who: '#who' } } }),
    openai.text('It says next page.'),
  ]);
  const { h, key } = await harness({ SVC_CHROMIUM_PATH: CHROMIUM, OPENAI_BASE_URL: `${model.url}/v1` });
  const { client } = await mcpClient(h, { key });
  const r: any = await client.callTool({ name: 'browser', arguments: { action: 'screenshot', url: `${first}/next`, include_image: true } });
  expect(r.isError).toBeFalsy();
  const out = JSON.parse(r.content.find((c: any) => c.type === 'text').text);
  expect(out.media.content_type).toBe('image/png');
  // The model sees the page: the PNG comes as image content.
  const img = r.content.find((c: any) => c.type === 'image');
  expect(img.mimeType).toBe('image/png');
  expect(PNG.sync.read(Buffer.from(img.data, 'base64')).width).toBe(1280);
  const x: any = await client.callTool({ name: 'browser_extract', arguments: { page_id: out.page.id, selectors: { who: '#who' } } });
  expect(JSON.parse(x.content[0].text).data).toEqual({ who: ['next page'] });
  await client.close();

  const everything = await h.newKey([...h.registry.grantable]);
  const agent = (await h.call('POST', '/agents', { name: 'Reader', model: 'openai/gpt-test', tools: ['browser'] })).body;
  const ev = events((await h.call('POST', `/agents/${agent.id}/chat`, { message: 'What does the page say?' }, { 'x-api-key': everything })).body);
  expect(ev.find((e) => e.type === 'tool_result')).toMatchObject({ status: 'success', result: { data: { who: ['next page'] } } });
  model.stop();
});
