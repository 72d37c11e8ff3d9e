import { afterEach, beforeAll, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { busy, events, fakeServer, openai, whole, type Reply } from '../../test/kit/fake-models';

/** web_search against local fakes of SearXNG and Brave, and pages served on 127.0.0.1 (issue 47). */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
const allow = process.env.SVC_EGRESS_ALLOW;
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
  if (allow === undefined) delete process.env.SVC_EGRESS_ALLOW;
  else process.env.SVC_EGRESS_ALLOW = allow;
});

/** A harness whose key holds every scope, bare `platform` included (SPEC 5.4: web_search needs it). */
async function harness(env: Record<string, string>) {
  const h = await setup({ env });
  const key = await h.newKey([...h.registry.grantable]);
  const call = (m: string, path: string, body?: unknown) => h.call(m, path, body, { 'x-api-key': key });
  return { h, key, call };
}

function fake(replies: Reply[]) {
  const f = fakeServer(replies);
  stops.push(f.stop);
  return f;
}

/** Pages on 127.0.0.1: path -> [content type, body, delay ms]. */
function site(pages: Record<string, [string, string, number?]>) {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const page = pages[new URL(req.url).pathname];
      if (!page) return new Response('missing', { status: 404 });
      if (page[2]) await Bun.sleep(page[2]);
      return new Response(page[1], { headers: { 'content-type': page[0] } });
    },
  });
  stops.push(() => server.stop(true));
  return `http://127.0.0.1:${server.port}`;
}

const results = [
  { title: 'Linen aprons', url: 'https://a.example/aprons', content: 'Washable linen.' },
  { title: 'Apron guide', url: 'https://b.example/guide', content: 'How to choose.' },
  { title: 'No link', url: 'javascript:alert(1)', content: 'dropped' },
];

test('search through SearXNG: results in its order, limited; preferred to Brave when both are set; metered', async () => {
  const searx = fake([whole.searxng(results), whole.searxng(results)]);
  const { h, call } = await harness({ SVC_SEARXNG_URL: searx.url, SVC_BRAVE_API_KEY: 'bk' });
  const r = await call('GET', '/web-search?query=linen%20aprons');
  expect(r.status).toBe(200);
  expect(r.body).toEqual({
    object: 'list',
    provider: 'searxng',
    data: [
      { title: 'Linen aprons', url: 'https://a.example/aprons', snippet: 'Washable linen.' },
      { title: 'Apron guide', url: 'https://b.example/guide', snippet: 'How to choose.' },
    ],
  });
  expect(searx.requests[0]).toMatchObject({ path: '/search', query: { q: 'linen aprons', format: 'json' } });
  expect((await call('GET', '/web-search?query=x&limit=1')).body.data).toHaveLength(1);
  const u = (await h.call('GET', '/usage', undefined, { 'x-api-key': await h.newKey(['platform:read']) })).body;
  expect(u.days).toEqual([expect.objectContaining({ provider: 'searxng', model: 'search', requests: 2, cost: 0 })]);
});

test('search through Brave with its key; priced per request', async () => {
  const brave = fake([whole.brave([{ title: 'Aprons', url: 'https://c.example/', description: 'Shop aprons.' }])]);
  const { h, call } = await harness({ SVC_BRAVE_API_KEY: 'bk-test', SVC_BRAVE_URL: brave.url });
  const r = await call('GET', '/web-search?query=aprons&limit=5');
  expect(r.body).toMatchObject({ provider: 'brave', data: [{ title: 'Aprons', url: 'https://c.example/', snippet: 'Shop aprons.' }] });
  expect(brave.requests[0]).toMatchObject({
    path: '/res/v1/web/search',
    query: { q: 'aprons', count: '5' },
    headers: { 'x-subscription-token': 'bk-test' },
  });
  expect((await h.call('GET', '/usage')).body.total_cost).toBe(0.005);
});

test('search failures: 5xx after retries is 502 naming the provider, 429 keeps Retry-After, malformed is 502, none set is 400', async () => {
  const down = { status: 502, body: 'bad gateway', headers: { 'retry-after': '0' } };
  const searx = fake([down, down, down, down, busy(429, 0.01), busy(429, 0.01), busy(429, 0.01), busy(429, 9), { status: 200, body: '<html>' }]);
  const { call } = await harness({ SVC_SEARXNG_URL: searx.url });
  const r = await call('GET', '/web-search?query=x');
  expect(r.status).toBe(502);
  expect(r.body.error.message).toBe('searxng answered HTTP 502: bad gateway');
  const limited = await call('GET', '/web-search?query=x');
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('9');
  const bad = await call('GET', '/web-search?query=x');
  expect(bad.status).toBe(502);
  expect(bad.body.error.message).toContain('searxng answered malformed data');
  expect(searx.requests.length).toBe(9);
  const none = await harness({});
  const n = await none.call('GET', '/web-search?query=x');
  expect(n.status).toBe(400);
  expect(n.body.error).toMatchObject({ code: 'provider_not_configured', message: expect.stringContaining('SVC_SEARXNG_URL or SVC_BRAVE_API_KEY') });
});

const article = `<html><head><title>Aprons</title></head><body><nav>Menu Home Shop</nav>
  <article><h1>Linen aprons</h1><p>Our <a href="/aprons/blue">aprons</a> are <b>linen</b>. They have two pockets, adjustable
  straps and are machine washable at forty degrees, which keeps them soft for years.</p>
  <ul><li class="colour">Blue</li><li class="colour">Red</li></ul><p class="price">$20</p></article>
  <script>alert(1)</script></body></html>`;

test('fetch_page: readable markdown through the egress guard (loopback refused unless allowed), 2 MiB at most, within its timeout', async () => {
  const base = site({
    '/a': ['text/html; charset=utf-8', article],
    '/big': ['text/plain', 'x'.repeat(3 * 1024 * 1024)],
    '/slow': ['text/html', article, 1500],
    '/img': ['image/png', 'PNG'],
  });
  const { call } = await harness({ SVC_WEB_SEARCH_FETCH_TIMEOUT_S: '0.3' });
  const blocked = await call('GET', `/web-search/page?url=${encodeURIComponent(`${base}/a`)}`);
  expect(blocked.status).toBe(400);
  expect(blocked.body.error.code).toBe('egress_blocked');
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
  const r = await call('GET', `/web-search/page?url=${encodeURIComponent(`${base}/a`)}`);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ object: 'page', url: `${base}/a`, status: 200, content_type: 'text/html', title: 'Aprons', truncated: false });
  expect(r.body.markdown).toContain('## Linen aprons');
  expect(r.body.markdown).toContain(`[aprons](${base}/aprons/blue)`);
  expect(r.body.markdown).toContain('**linen**');
  expect(r.body.markdown).not.toContain('alert(1)');
  const big = await call('GET', `/web-search/page?url=${encodeURIComponent(`${base}/big`)}`);
  expect(big.body).toMatchObject({ truncated: true });
  expect(big.body.markdown.length).toBe(2 * 1024 * 1024);
  const slow = await call('GET', `/web-search/page?url=${encodeURIComponent(`${base}/slow`)}`);
  expect(slow.status).toBe(504);
  expect(slow.body.error.code).toBe('egress_timeout');
  expect((await call('GET', `/web-search/page?url=${encodeURIComponent(`${base}/img`)}`)).status).toBe(400);
  expect((await call('GET', '/web-search/page?url=file%3A%2F%2F%2Fetc%2Fpasswd')).status).toBe(400);
});

test('extract_data by CSS selectors, or by a JSON Schema through llm', async () => {
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
  const base = site({ '/a': ['text/html', article] });
  const model = fake([whole.openai('{"price":"$20","colours":["Blue","Red"]}')]);
  const { call } = await harness({ OPENAI_BASE_URL: `${model.url}/v1`, SVC_LLM_MODEL: 'openai/gpt-4o-mini' });
  const s = await call('POST', '/web-search/extract', { url: `${base}/a`, selectors: { price: '.price', colours: 'li.colour', none: '.nothing' } });
  expect(s.status).toBe(200);
  expect(s.body).toEqual({ object: 'extraction', url: `${base}/a`, data: { price: ['$20'], colours: ['Blue', 'Red'], none: [] } });
  const schema = {
    type: 'object',
    properties: { price: { type: 'string' }, colours: { type: 'array', items: { type: 'string' } } },
    required: ['price'],
  };
  const x = await call('POST', '/web-search/extract', { url: `${base}/a`, schema });
  expect(x.body).toEqual({ object: 'extraction', url: `${base}/a`, data: { price: '$20', colours: ['Blue', 'Red'] } });
  expect(model.requests[0].body.messages[1].content).toContain('Linen aprons');
  expect(model.requests[0].body.response_format.json_schema.schema).toEqual(schema);
  expect((await call('POST', '/web-search/extract', { url: `${base}/a` })).status).toBe(400);
  expect((await call('POST', '/web-search/extract', { url: `${base}/a`, selectors: { p: '.price' }, schema })).status).toBe(400);
  const badCss = await call('POST', '/web-search/extract', { url: `${base}/a`, selectors: { p: '[[[' } });
  expect(badCss.status).toBe(400);
  expect(badCss.body.error.param).toBe('selectors.p');
});

test('web_search over MCP and agent chat', async () => {
  const searx = fake([whole.searxng(results)]);
  const model = fake([openai.tools({ name: 'web_search', input: { action: 'search', query: 'aprons', limit: 1 } }), openai.text('Found one.')]);
  const { h, key } = await harness({ SVC_SEARXNG_URL: searx.url, OPENAI_BASE_URL: `${model.url}/v1` });
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
  const base = site({ '/a': ['text/html', article] });
  const { client } = await mcpClient(h, { key });
  try {
    const r: any = await client.callTool({ name: 'web_search', arguments: { action: 'fetch_page', url: `${base}/a` } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.title).toBe('Aprons');
  } finally {
    await client.close();
  }
  const agent = (await h.call('POST', '/agents', { name: 'Searcher', model: 'openai/gpt-test', tools: ['web_search'] })).body;
  const ev = events((await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Find aprons' }, { 'x-api-key': key })).body);
  expect(ev.find((e) => e.type === 'tool_result')).toMatchObject({
    status: 'success',
    result: { provider: 'searxng', data: [{ title: 'Linen aprons' }] },
  });
});
