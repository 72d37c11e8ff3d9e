import { afterEach, beforeAll, expect, test } from 'bun:test';
import { product, setup } from '../../test/kit/setup';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { backend, sharedDb } from '../../test/kit/db';
import { nearestSql } from './vector-index';
import { mcpClient } from '../../test/kit/mcp';
import { events, fakeServer, openai, whole, type Reply } from '../../test/kit/fake-models';

/** The embeddings tool against a local fake of OpenAI's /embeddings (issue 47). */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

async function harness(replies: Reply[], env: Record<string, string> = {}) {
  const fake = fakeServer(replies);
  stops.push(fake.stop);
  const h = await withPlatform(await setup({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test', ...env } }));
  return { h, fake };
}

/** The harness with a key holding every scope, bare `platform` included (SPEC 5.4: embeddings needs it). */
async function withPlatform(h: Awaited<ReturnType<typeof setup>>) {
  const key = await h.newKey([...h.registry.grantable]);
  return {
    ...h,
    key,
    call: (m: string, path: string, body?: unknown, headers: Record<string, string> = {}) => h.call(m, path, body, { 'x-api-key': key, ...headers }),
  };
}

const vec = (...v: number[]) => whole.embeddings([v]);

test('kept texts come back nearest first by cosine similarity, over the configured model; usage and cost are recorded', async () => {
  const { h, fake } = await harness([vec(1, 0, 0), vec(0, 2, 0), vec(1, 1, 0), vec(3, 0.3, 0), vec(1, 0, 0)]);
  const a = await h.call('POST', '/embeddings', { text: 'Linen apron', ref: 'product:1', metadata: { kind: 'product' } });
  expect(a.status).toBe(201);
  expect(a.body).toMatchObject({
    object: 'embedding',
    ref: 'product:1',
    metadata: { kind: 'product' },
    model: 'text-embedding-3-small',
    dimensions: 3,
  });
  expect(fake.requests[0]).toMatchObject({
    path: '/v1/embeddings',
    body: { model: 'text-embedding-3-small', input: ['Linen apron'], encoding_format: 'float' },
  });
  await h.call('POST', '/embeddings', { text: 'Steel pan' });
  await h.call('POST', '/embeddings', { text: 'Apron and pan set' });
  const q = await h.call('GET', '/embeddings/similar?query=apron&limit=2');
  expect(q.status).toBe(200);
  expect(q.body.data.map((d: any) => d.text)).toEqual(['Linen apron', 'Apron and pan set']);
  // Cosine: (3, 0.3, 0) against (1, 0, 0) and (1, 1, 0), scale left out.
  const n = Math.hypot(3, 0.3);
  expect(q.body.data[0].similarity).toBeCloseTo(3 / n, 5);
  expect(q.body.data[1].similarity).toBeCloseTo(3.3 / n / Math.SQRT2, 5);
  const u = (await h.call('GET', '/usage')).body;
  expect(u.days).toEqual([
    expect.objectContaining({ provider: 'openai', model: 'text-embedding-3-small', requests: 4, input_tokens: 20, output_tokens: 0 }),
  ]);
  expect(u.total_cost).toBeCloseTo((20 * 0.02) / 1e6, 10);
  // Another store finds none of them.
  const other = await withPlatform(await setup({ env: { OPENAI_BASE_URL: `${fake.url}/v1` } }));
  expect((await other.call('GET', '/embeddings/similar?query=apron')).body.data).toEqual([]);
});

test('a ref written again is replaced; unchanged text is not embedded again', async () => {
  const { h, fake } = await harness([vec(1, 0), vec(0, 1), vec(0, 1)]);
  const first = (await h.call('POST', '/embeddings', { text: 'Apron', ref: 'product:9' })).body;
  const same = await h.call('POST', '/embeddings', { text: 'Apron', ref: 'product:9', metadata: { v: '2' } });
  expect(same.body).toMatchObject({ id: first.id, metadata: { v: '2' } });
  expect(fake.requests.length).toBe(1);
  await h.call('POST', '/embeddings', { text: 'Blue apron', ref: 'product:9' });
  expect(fake.requests.length).toBe(2);
  const q = (await h.call('GET', '/embeddings/similar?query=x')).body.data;
  expect(q.map((d: any) => [d.ref, d.text, d.similarity])).toEqual([['product:9', 'Blue apron', 1]]);
});

test('failures write nothing: malformed vectors, a 5xx after its retries; no provider is 400 naming the setting', async () => {
  const down = { status: 503, body: 'down', headers: { 'retry-after': '0' } };
  const { h, fake } = await harness([whole.json({ data: [{ embedding: 'nope' }] }), down, down, down, down]);
  const bad = await h.call('POST', '/embeddings', { text: 'x' });
  expect(bad.status).toBe(502);
  expect(bad.body.error.message).toContain('openai answered malformed data');
  const d = await h.call('POST', '/embeddings', { text: 'x' });
  expect(d.status).toBe(502);
  expect(d.body.error.message).toBe('openai answered HTTP 503: down');
  expect(fake.requests.length).toBe(5);
  expect(await h.db.query('SELECT 1 FROM embeddings WHERE store_id = $1', [h.store.id])).toEqual([]);
  const none = await withPlatform(await setup());
  const r = await none.call('POST', '/embeddings', { text: 'x' });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'provider_not_configured', message: expect.stringContaining('OPENAI_BASE_URL') });
  // Only `platform` opens the tool (SPEC 5.4).
  expect((await h.call('POST', '/embeddings', { text: 'x' }, { 'x-api-key': await h.newKey(['ai']) })).status).toBe(403);
});

test('embeddings over MCP and agent chat', async () => {
  const { h } = await harness([
    vec(1, 0),
    openai.tools({ name: 'embeddings', input: { action: 'query_similar', query: 'apron' } }),
    vec(1, 0),
    openai.text('Found it.'),
  ]);
  const { client } = await mcpClient(h, { key: h.key });
  try {
    const r: any = await client.callTool({ name: 'embeddings', arguments: { action: 'create_embedding', text: 'Linen apron', ref: 'p:1' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ object: 'embedding', ref: 'p:1' });
  } finally {
    await client.close();
  }
  const agent = (await h.call('POST', '/agents', { name: 'Finder', model: 'openai/gpt-test', tools: ['embeddings'] })).body;
  const ev = events((await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Find aprons' })).body);
  const result = ev.find((e) => e.type === 'tool_result');
  expect(result).toMatchObject({ status: 'success' });
  expect(result.result.data.map((d: any) => d.ref)).toEqual(['p:1']);
});

/** Runs this store's queued index_catalog jobs as a worker would; answers how many ran. */
async function runIndexJobs(h: Awaited<ReturnType<typeof setup>>) {
  const held = await takeQueued(h, 'embeddings.index_catalog');
  if (held.length) await runJob(h, 'embeddings.index_catalog', held);
  return held.length;
}

test('index_catalog is a job: every live product embedded as product:<id>; run again, only changed products are sent', async () => {
  const { h, fake } = await harness([
    whole.embeddings(
      [
        [1, 0],
        [0, 1],
        [1, 1],
      ],
      30,
    ),
    whole.embeddings([[1, 0.1]], 10),
    vec(1, 0),
  ]);
  const made = [];
  for (const name of ['Linen apron', 'Steel pan', 'Oak board'])
    made.push((await h.call('POST', '/products', product({ name, description: `${name}, made well.` }))).body);
  const started = await h.call('POST', '/embeddings/index-catalog', {});
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ object: 'job', type: 'embeddings.index_catalog', status: 'queued', result: null });
  expect(fake.requests.length).toBe(0);
  expect(await runIndexJobs(h)).toBe(1);
  const done = (await h.call('GET', `/jobs/${started.body.id}`)).body;
  expect(done).toMatchObject({ status: 'succeeded', progress: { done: 3, total: 3 }, result: { embedded: 3, unchanged: 0 }, error: null });
  expect(fake.requests[0].body.input.sort()).toEqual([
    'Linen apron\nLinen apron, made well.',
    'Oak board\nOak board, made well.',
    'Steel pan\nSteel pan, made well.',
  ]);
  // An edit: the next run sends only that product.
  await h.call('PATCH', `/products/${made[1].id}`, { description: 'Carbon steel.' });
  const again = (await h.call('POST', '/embeddings/index-catalog', {})).body;
  await runIndexJobs(h);
  expect((await h.call('GET', `/jobs/${again.id}`)).body).toMatchObject({
    status: 'succeeded',
    result: { embedded: 1, unchanged: 2 },
  });
  expect(fake.requests[1].body.input).toEqual(['Steel pan\nCarbon steel.']);
  const near = (await h.call('GET', '/embeddings/similar?query=apron&limit=1')).body.data;
  expect(near[0]).toMatchObject({ metadata: { product_id: expect.any(String) }, ref: expect.stringMatching(/^product:/) });
  expect((await h.call('GET', '/usage')).body.days[0]).toMatchObject({ model: 'text-embedding-3-small', requests: 3, input_tokens: 45 });
  // Stores are walls: another store's key does not see the job.
  const other = await withPlatform(await setup());
  expect((await other.call('GET', `/jobs/${again.id}`)).status).toBe(404);
});

test('index_catalog: a provider failure fails the job after its retries, nothing written; an unset provider is 400 before anything is queued', async () => {
  const { h } = await harness([{ status: 400, body: '{"error":{"message":"model not found"}}', headers: { 'content-type': 'application/json' } }]);
  await h.call('POST', '/products', product());
  const job = (await h.call('POST', '/embeddings/index-catalog', {})).body;
  // Its last attempt (a provider's 4xx is retried twice, then the job fails).
  const held = (await takeQueued(h, 'embeddings.index_catalog')).map((j) => ({ ...j, retryCount: 2, retryLimit: 2 }));
  await runJob(h, 'embeddings.index_catalog', held);
  const failed = (await h.call('GET', `/jobs/${job.id}`)).body;
  expect(failed).toMatchObject({ status: 'failed', progress: { done: 0, total: 1 } });
  // A 5xx-class error is not shown to the client (the kit's rule: the log has it); nothing was embedded.
  expect(failed.error).toMatchObject({ code: expect.any(String) });
  expect(await h.db.query('SELECT 1 FROM embeddings WHERE store_id = $1', [h.store.id])).toEqual([]);
  const none = await withPlatform(await setup());
  const r = await none.call('POST', '/embeddings/index-catalog', {});
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('provider_not_configured');
  expect(await takeQueued(none, 'embeddings.index_catalog')).toEqual([]);
});

// pgvector is installed on this server (Debian's postgresql-<n>-pgvector, or built from source): the migration creates it.
const db = await sharedDb();
const pgvector = backend === 'postgres' && (await db.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)).length > 0;

test.skipIf(!pgvector)(
  'with pgvector (PostgreSQL with the extension; skipped elsewhere, where every other test runs the exact search): an HNSW index per dimension count, usable by query_similar, answering as the exact search does',
  async () => {
    // 30 points of 8 dimensions in this store, 30 in another (whose rows the index walks past).
    const point = (i: number) => Array.from({ length: 8 }, (_, k) => Math.sin(i * 7.3 + k * 1.7) + (k === i % 8 ? 1 : 0));
    const queries = [point(1000), point(2000), point(3000)];
    // Each query is embedded twice: once for each path.
    const { h, fake } = await harness([...Array.from({ length: 60 }, (_, i) => vec(...point(i))), ...queries.flatMap((q) => [vec(...q), vec(...q)])]);
    const other = await setup({ env: { OPENAI_BASE_URL: `${fake.url}/v1` } });
    const otherKey = await other.newKey([...other.registry.grantable]);
    for (let i = 0; i < 60; i++) {
      const [who, key] = i % 2 ? [other, otherKey] : [h, h.key];
      expect((await who.call('POST', '/embeddings', { text: `point ${i}` }, { 'x-api-key': key })).status).toBe(201);
    }
    const [index] = await h.db.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'embeddings' AND indexname = 'embeddings_hnsw_8'`);
    expect(index.indexdef).toContain('USING hnsw');
    expect(index.indexdef).toContain('vector_ip_ops');
    // The planner can answer query_similar's statement from it (on a table this small it may still prefer a scan).
    const plan = await h.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      return tx.query(`EXPLAIN ${nearestSql('id', 8)}`, [h.store.id, 'text-embedding-3-small', `{${queries[0].join(',')}}`, 5]);
    });
    expect(plan.map((r) => Object.values(r)[0]).join('\n')).toContain('embeddings_hnsw_8');
    // The same answers with the index and with the exact search (SVC_EMBEDDINGS_PGVECTOR=false), a query each.
    const exact = await h.elsewhere({ OPENAI_BASE_URL: `${fake.url}/v1`, SVC_EMBEDDINGS_PGVECTOR: 'false' });
    for (let n = 0; n < queries.length; n++) {
      // Query n: its vector is the fake's next two replies.
      const a = (await h.call('GET', '/embeddings/similar?query=q&limit=5')).body.data;
      const b = (await exact.call('GET', '/embeddings/similar?query=q&limit=5', undefined, { 'x-api-key': h.key })).body.data;
      expect(a.map((d: any) => d.text)).toHaveLength(5);
      expect(b).toEqual(a);
    }
  },
);
