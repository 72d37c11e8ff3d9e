import { afterEach, beforeAll, expect, test } from 'bun:test';
import { ADMIN_TOKEN, product, setup } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { events, fakeServer, openai, USAGE, whole, type Reply } from '../../test/kit/fake-models';

/** enrich_product and enrich_customer against a local fake of the chat providers (issue 47). */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

type H = Awaited<ReturnType<typeof setup>>;

/** The harness with a key holding every scope, bare `platform` included (SPEC 5.4: enrichment needs it). */
async function withPlatform(h: H) {
  const key = await h.newKey([...h.registry.grantable]);
  return { ...h, key, call: (m: string, p: string, b?: unknown, hd: Record<string, string> = {}) => h.call(m, p, b, { 'x-api-key': key, ...hd }) };
}

async function harness(replies: Reply[], env: Record<string, string> = {}) {
  const fake = fakeServer(replies);
  stops.push(fake.stop);
  const h = await withPlatform(await setup({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test', ...env } }));
  return { h, fake };
}

const COPY = {
  description: 'A linen apron with two deep pockets.\n\nWashable at 40 degrees.',
  tags: ['Linen', 'apron', 'kitchen, garden', 'linen'],
  seo_title: 'Linen Apron with Pockets',
  seo_description: 'A washable linen apron with two deep pockets and adjustable straps.',
  attributes: { Material: 'linen', 'Pocket count': '2' },
};
const answer = (over: object = {}) => whole.openai(JSON.stringify({ ...COPY, ...over }));
const apron = () => product({ name: 'Linen apron', description: 'Apron.', metadata: { colour: 'natural', erp: 'A-17' } });

test('enrich_product with apply false answers the suggestions, tidied, and leaves the product as it was; usage is recorded', async () => {
  const { h, fake } = await harness([answer()]);
  const p = (await h.call('POST', '/products', apron())).body;
  const r = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: false });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({
    object: 'product_enrichment',
    product_id: p.id,
    fields: ['description', 'tags', 'seo_title', 'seo_description', 'attributes'],
    suggestions: {
      description: COPY.description,
      tags: ['linen', 'apron', 'kitchen garden'],
      seo_title: COPY.seo_title,
      seo_description: COPY.seo_description,
      attributes: { material: 'linen', pocket_count: '2' },
    },
    applied: false,
    product: null,
    model: 'openai/gpt-4o-mini',
    usage: USAGE,
  });
  // The model saw the product's facts, and was asked for exactly these fields as structured output.
  const sent = fake.requests[0].body;
  expect(sent.model).toBe('gpt-4o-mini');
  expect(sent.messages[1].content).toContain('Name: Linen apron');
  expect(sent.messages[1].content).toContain('colour=natural');
  expect(sent.response_format.json_schema.schema.required).toEqual(['description', 'tags', 'seo_title', 'seo_description', 'attributes']);
  const after = (await h.call('GET', `/products/${p.id}`)).body;
  expect(after).toMatchObject({ description: 'Apron.', metadata: { colour: 'natural', erp: 'A-17' } });
  expect((await h.call('GET', '/usage')).body.days).toEqual([
    expect.objectContaining({ provider: 'openai', model: 'gpt-4o-mini', requests: 1, ...USAGE }),
  ]);
});

test('enrich_product with apply true writes through products: the description, and tags, SEO and attributes as metadata', async () => {
  const { h, fake } = await harness([answer(), whole.openai(JSON.stringify({ seo_title: 'Apron' }))]);
  await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/p', events: ['product.updated'] });
  const p = (await h.call('POST', '/products', apron())).body;
  const r = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true });
  expect(r.status).toBe(200);
  expect(r.body.applied).toBe(true);
  expect(r.body.product).toMatchObject({
    id: p.id,
    description: COPY.description,
    metadata: {
      colour: 'natural',
      erp: 'A-17',
      tags: 'linen, apron, kitchen garden',
      seo_title: COPY.seo_title,
      seo_description: COPY.seo_description,
      attr_material: 'linen',
      attr_pocket_count: '2',
    },
  });
  expect((await h.call('GET', `/products/${p.id}`)).body.description).toBe(COPY.description);
  // Written by products' own action: its event was emitted.
  const ev = await h.db.query(`SELECT type FROM events WHERE store_id = $1 AND type = 'product.updated'`, [h.store.id]);
  expect(ev.length).toBe(1);
  // Only the fields named are asked for and written.
  const one = await h.call('POST', '/enrichment/product', { product_id: p.id, fields: ['seo_title'], apply: true });
  expect(one.body.suggestions).toEqual({ seo_title: 'Apron' });
  expect(fake.requests[1].body.response_format.json_schema.schema).toMatchObject({ required: ['seo_title'], additionalProperties: false });
  expect(one.body.product).toMatchObject({ description: COPY.description, metadata: { seo_title: 'Apron', attr_material: 'linen' } });
});

test('over Anthropic the answer comes through a forced tool', async () => {
  const fake = fakeServer([whole.anthropicTool('answer', { tags: ['apron'] })]);
  stops.push(fake.stop);
  const h = await withPlatform(
    await setup({ env: { ANTHROPIC_BASE_URL: `${fake.url}/v1`, ANTHROPIC_API_KEY: 'ak', SVC_LLM_MODEL: 'anthropic/claude-sonnet-4-5' } }),
  );
  const p = (await h.call('POST', '/products', apron())).body;
  const r = await h.call('POST', '/enrichment/product', { product_id: p.id, fields: ['tags'], apply: false });
  expect(r.body).toMatchObject({ suggestions: { tags: ['apron'] }, model: 'anthropic/claude-sonnet-4-5' });
  expect(fake.requests[0]).toMatchObject({ path: '/v1/messages', body: { tool_choice: { type: 'tool', name: 'answer' } } });
});

test('failures write nothing: an answer outside the schema twice, a 5xx after its retries, a timeout; each is 502 provider_error', async () => {
  const down = { status: 503, body: '{"error":{"message":"down"}}', headers: { 'content-type': 'application/json', 'retry-after': '0' } };
  const slow = { delayMs: 1500, then: answer() };
  const { h, fake } = await harness([answer({ tags: 'not a list' }), whole.openai('no json'), down, down, down, down, slow, whole.malformed()], {
    SVC_PROVIDER_TIMEOUT_S: '0.5',
  });
  const p = (await h.call('POST', '/products', apron())).body;
  const bad = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true });
  expect(bad.status).toBe(502);
  expect(bad.body.error).toMatchObject({ code: 'provider_error', message: expect.stringContaining('outside the requested schema twice') });
  const d = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true });
  expect(d.status).toBe(502);
  expect(d.body.error.message).toBe('openai answered HTTP 503: down');
  const t = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true });
  expect(t.body.error).toMatchObject({ code: 'provider_error', message: expect.stringContaining('timed out') });
  const m = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true });
  expect(m.body.error.message).toContain('malformed');
  expect(fake.requests.length).toBe(8);
  expect((await h.call('GET', `/products/${p.id}`)).body).toMatchObject({ description: 'Apron.', metadata: { colour: 'natural', erp: 'A-17' } });
  // The two answers outside the schema were paid for: counted; the failed calls were not.
  expect((await h.call('GET', '/usage')).body.days[0].requests).toBe(2);
}, 15_000);

test('a 429 still limited after the retries is 429 rate_limit_exceeded with Retry-After', async () => {
  const limited = { status: 429, body: '{"error":{"message":"slow down"}}', headers: { 'content-type': 'application/json', 'retry-after': '40' } };
  const { h, fake } = await harness([limited]);
  const p = (await h.call('POST', '/products', apron())).body;
  const r = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true });
  expect(r.status).toBe(429);
  expect(r.body.error.code).toBe('rate_limit_exceeded');
  expect(r.headers.get('retry-after')).toBe('40');
  expect(fake.requests.length).toBe(1);
});

test('ownership first, then the setting: 404 naming product_id, 400 provider_not_configured naming OPENAI_BASE_URL; platform scope only', async () => {
  const h = await withPlatform(await setup());
  const theirs = (await (await setup()).call('POST', '/products', apron())).body;
  const r404 = await h.call('POST', '/enrichment/product', { product_id: theirs.id, apply: false });
  expect(r404.status).toBe(404);
  expect(r404.body.error.param).toBe('product_id');
  const p = (await h.call('POST', '/products', apron())).body;
  const r = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'provider_not_configured' });
  expect(r.body.error.message).toContain('OPENAI_BASE_URL');
  expect(r.body.error.param ?? null).toBeNull();
  // apply is required: the client says whether the product is written.
  expect((await h.call('POST', '/enrichment/product', { product_id: p.id })).body.error.param).toBe('apply');
  expect((await h.call('POST', '/enrichment/product', { product_id: p.id, apply: false, fields: ['price'] })).status).toBe(400);
  for (const scopes of [
    ['ai', 'ai:write'],
    ['products', 'products:write'],
  ])
    expect((await h.call('POST', '/enrichment/product', { product_id: p.id, apply: false }, { 'x-api-key': await h.newKey(scopes) })).status).toBe(
      403,
    );
  // A platform key alone writes the product through products (as this plugin): the setting is the only obstacle left.
  const only = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true }, { 'x-api-key': await h.newKey(['platform']) });
  expect(only.body.error.code).toBe('provider_not_configured');
});

test('the monthly spend cap refuses before the provider is reached', async () => {
  const { h, fake } = await harness([answer()]);
  const p = (await h.call('POST', '/products', apron())).body;
  const set = await h.raw('PATCH', `/v1/stores/${h.store.id}`, { monthly_spend_cap: 0 }, { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' });
  expect(set.status).toBe(200);
  const r = await h.call('POST', '/enrichment/product', { product_id: p.id, apply: true });
  expect(r.status).toBe(403);
  expect(r.body.error).toMatchObject({ code: 'spend_cap_reached', message: expect.stringContaining('0.00 USD') });
  expect(fake.requests.length).toBe(0);
});

test('enrich_customer recomputes the customer through customers.enrich_customer; another store’s customer is 404 naming customer_id', async () => {
  const h = await withPlatform(await setup());
  const c = (await h.call('POST', '/customers', { email: `ada.${crypto.randomUUID().slice(0, 6)}@example.com` })).body;
  const p = (await h.call('POST', '/products', product({ pricing_data: { retail: 30 } }))).body;
  expect((await h.call('POST', '/orders', { customer_id: c.id, line_items: [{ product_id: p.id, quantity: 2 }] })).status).toBe(201);
  // A key holding only platform: customers and orders are reached as this plugin.
  const r = await h.call('POST', '/enrichment/customer', { customer_id: c.id }, { 'x-api-key': await h.newKey(['platform']) });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ object: 'customer', id: c.id, enrichment: { orders_count: 1, total_spent: 60, segments: ['new'] } });
  expect((await h.call('GET', `/customers/${c.id}`)).body.enrichment).toEqual(r.body.enrichment);
  const theirs = (await (await setup()).call('POST', '/customers', { email: 'bo@example.com' })).body;
  const miss = await h.call('POST', '/enrichment/customer', { customer_id: theirs.id });
  expect(miss.status).toBe(404);
  expect(miss.body.error.param).toBe('customer_id');
});

test('enrichment over MCP and agent chat', async () => {
  // Scripted once the product exists: the fake reads this array as requests come.
  const replies: Reply[] = [];
  const { h, fake } = await harness(replies);
  const p = (await h.call('POST', '/products', apron())).body;
  const c = (await h.call('POST', '/customers', { email: `cy.${crypto.randomUUID().slice(0, 6)}@example.com` })).body;
  replies.push(
    answer({ seo_title: 'From MCP' }),
    openai.tools({ name: 'enrichment', input: { action: 'enrich_product', product_id: p.id, fields: ['seo_title'], apply: true } }),
    whole.openai('{"seo_title":"From the agent"}'),
    openai.tools({ name: 'enrichment', input: { action: 'enrich_customer', customer_id: c.id } }),
    openai.text('Done.'),
  );
  const { client } = await mcpClient(h, { key: h.key });
  try {
    const r: any = await client.callTool({ name: 'enrichment', arguments: { action: 'enrich_product', product_id: p.id, apply: false } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ object: 'product_enrichment', suggestions: { seo_title: 'From MCP' } });
  } finally {
    await client.close();
  }
  const agent = (await h.call('POST', '/agents', { name: 'Copywriter', model: 'openai/gpt-4o-mini', tools: ['enrichment'] })).body;
  const ev = events((await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Give the apron a better title' })).body);
  const results = ev.filter((e) => e.type === 'tool_result');
  expect(results[1]).toMatchObject({ status: 'success', result: { object: 'customer', id: c.id, enrichment: { orders_count: 0 } } });
  expect(results[0]).toMatchObject({
    status: 'success',
    result: { applied: true, suggestions: { seo_title: 'From the agent' } },
  });
  expect((await h.call('GET', `/products/${p.id}`)).body.metadata.seo_title).toBe('From the agent');
  expect(fake.requests.length).toBe(5);
  // The agent's three model calls and the tool's two count alike.
  expect((await h.call('GET', '/usage')).body.days[0].requests).toBe(5);
});
