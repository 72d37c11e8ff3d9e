import { afterEach, beforeAll, expect, test } from 'bun:test';
import { ADMIN_TOKEN, product, setup, type Harness } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { fakeServer, whole, type Reply } from '../../test/kit/fake-models';

/** get_summary's themes through llm when a model is configured (issue 47); none otherwise. */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

async function harness(replies: Reply[], env: Record<string, string> = {}) {
  const fake = fakeServer(replies);
  stops.push(fake.stop);
  const h = await setup({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, ...env } });
  return { h, fake };
}

const themes = (...t: string[]) => whole.openai(JSON.stringify({ themes: t }));

async function approved(h: Harness, productId: string, body: string, rating = 4) {
  const r = (await h.call('POST', '/reviews', { product_id: productId, rating, body, author_name: 'Ada' })).body;
  expect((await h.call('POST', `/reviews/${r.id}/approve`, {})).status).toBe(200);
  return r.id as string;
}

const summary = async (h: Harness, productId: string, key?: string) =>
  (await h.call('GET', `/reviews/summary?product_id=${productId}`, undefined, key ? { 'x-api-key': key } : {})).body;

test('no model configured: the summary has no themes field, and nothing is asked', async () => {
  const h = await setup();
  const p = (await h.call('POST', '/products', product())).body.id;
  await approved(h, p, 'Runs small.');
  const s = await summary(h, p);
  expect(s).toMatchObject({ object: 'review_summary', review_count: 1 });
  expect('themes' in s).toBe(false);
});

test('with a model: up to 5 themes from the approved reviews, through llm, kept until the reviews change', async () => {
  const { h, fake } = await harness([themes('runs small', 'soft fabric', 'runs small', ' '), themes('runs small', 'slow delivery')]);
  const p = (await h.call('POST', '/products', product())).body.id;
  await approved(h, p, 'Lovely soft fabric but runs small.', 4);
  await approved(h, p, 'Order a size up, it runs small.', 3);
  await h.call('POST', '/reviews', { product_id: p, rating: 1, body: 'PENDING TEXT', author_name: 'Bo' });
  // A key with only catalog:read: llm is reached as the reviews plugin.
  const key = await h.newKey(['catalog:read']);
  expect(await summary(h, p, key)).toMatchObject({ review_count: 2, pending_count: 1, themes: ['runs small', 'soft fabric'] });
  const sent = fake.requests[0];
  expect(sent.path).toBe('/v1/chat/completions');
  expect(sent.body.model).toBe('gpt-4o-mini');
  expect(sent.body.response_format.json_schema.schema.properties.themes.maxItems).toBe(5);
  const text = sent.body.messages.at(-1).content;
  expect(text).toContain('[3/5] Order a size up, it runs small.');
  expect(text).toContain('[4/5] Lovely soft fabric');
  expect(text).not.toContain('PENDING TEXT');
  // Read again: kept, the model is not asked.
  expect((await summary(h, p)).themes).toEqual(['runs small', 'soft fabric']);
  expect(fake.requests.length).toBe(1);
  // A newly approved review changes the set: asked again.
  await approved(h, p, 'Took three weeks to arrive.', 2);
  expect((await summary(h, p)).themes).toEqual(['runs small', 'slow delivery']);
  expect(fake.requests.length).toBe(2);
  // Counted as llm's calls are: per store and day.
  expect((await h.call('GET', '/usage')).body.days).toEqual([expect.objectContaining({ provider: 'openai', model: 'gpt-4o-mini', requests: 2 })]);
});

test('only the latest 100 approved reviews are read; none approved is an empty list with no call', async () => {
  const { h, fake } = await harness([themes('good value')]);
  const p = (await h.call('POST', '/products', product())).body.id;
  expect((await summary(h, p)).themes).toEqual([]);
  await h.db.query(
    `INSERT INTO reviews (id, store_id, product_id, rating, body, author_name, status, created_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, 5, 'review number ' || n, 'Ada', 'approved', $3::timestamptz + n * interval '1 minute', $3
       FROM generate_series(1, 101) AS n`,
    [h.store.id, p, '2026-03-01T00:00:00Z'],
  );
  expect(await summary(h, p)).toMatchObject({ review_count: 101, themes: ['good value'] });
  const lines = fake.requests[0].body.messages.at(-1).content.split('\n').slice(1);
  expect(lines.length).toBe(100);
  expect(lines[0]).toBe('[5/5] review number 101');
  expect(lines).not.toContain('[5/5] review number 1');
});

test('a failing model leaves the themes out and the summary answers; so does the spend cap', async () => {
  const down = { status: 500, body: '{"error":{"message":"boom"}}', headers: { 'content-type': 'application/json', 'retry-after': '0' } };
  const replies: Reply[] = [down, down, down, down];
  const { h, fake } = await harness(replies);
  const p = (await h.call('POST', '/products', product())).body.id;
  await approved(h, p, 'Great.');
  const s = await h.call('GET', `/reviews/summary?product_id=${p}`);
  expect(s.status).toBe(200);
  expect(s.body).toMatchObject({ review_count: 1, average_rating: 4 });
  expect('themes' in s.body).toBe(false);
  expect(fake.requests.length).toBe(4);
  // Not asked again for 5 minutes: a provider that is down does not slow every summary.
  expect('themes' in (await summary(h, p))).toBe(false);
  expect(fake.requests.length).toBe(4);
  h.clock.advance(5 * 60_000 + 1);
  fake.requests.length = 0;
  // Then asked again; at the spend cap it is refused before the provider, and the summary still answers.
  await h.raw('PATCH', `/v1/stores/${h.store.id}`, { monthly_spend_cap: 0 }, { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' });
  const capped = await h.call('GET', `/reviews/summary?product_id=${p}`);
  expect(capped.status).toBe(200);
  expect('themes' in capped.body).toBe(false);
  expect(fake.requests.length).toBe(0);
  h.clock.advance(5 * 60_000 + 1);
  await h.raw('PATCH', `/v1/stores/${h.store.id}`, { monthly_spend_cap: null }, { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' });
  replies.push(themes('great'));
  expect((await summary(h, p)).themes).toEqual(['great']);
}, 15_000);

test('themes over MCP', async () => {
  const { h } = await harness([themes('sturdy')]);
  const p = (await h.call('POST', '/products', product())).body.id;
  await approved(h, p, 'Very sturdy.');
  const { client } = await mcpClient(h, { key: await h.newKey(['catalog:read']) });
  try {
    const r: any = await client.callTool({ name: 'reviews', arguments: { action: 'get_summary', product_id: p } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ review_count: 1, themes: ['sturdy'] });
  } finally {
    await client.close();
  }
});
