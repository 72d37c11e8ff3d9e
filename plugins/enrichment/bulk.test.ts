import { afterEach, beforeAll, expect, test } from 'bun:test';
import { ADMIN_TOKEN, product, setup } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { mcpClient } from '../../test/kit/mcp';

/** bulk_enrich: a job over many products, at most SVC_ENRICHMENT_CONCURRENCY at the model per store (issue 47). */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

type H = Awaited<ReturnType<typeof setup>>;

/**
 * An OpenAI-compatible chat server that answers each product by its name after `delayMs`, and
 * counts how many requests it holds at once. A product named "Refused ..." gets a 400.
 */
function modelServer(delayMs = 60) {
  const seen: string[] = [];
  let inFlight = 0;
  const stats = { max: 0, seen };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = await req.json();
      const name = /Name: (.*)/.exec(body.messages.at(-1).content)![1];
      seen.push(name);
      stats.max = Math.max(stats.max, ++inFlight);
      await Bun.sleep(delayMs);
      inFlight--;
      if (name.startsWith('Refused')) return Response.json({ error: { message: 'content policy' } }, { status: 400 });
      // Exactly the fields asked for (the schema allows no others).
      const copy: Record<string, unknown> = {
        description: `${name}, made well.`,
        tags: [name.toLowerCase()],
        seo_title: `${name} | Shop`,
        seo_description: `Buy ${name}.`,
        attributes: { kind: name },
      };
      const asked: string[] = body.response_format.json_schema.schema.required;
      const content = JSON.stringify(Object.fromEntries(asked.map((f) => [f, copy[f]])));
      return Response.json({
        id: 'c',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-test',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    },
  });
  stops.push(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, stats };
}

async function harness(env: Record<string, string> = {}, delayMs?: number) {
  const model = modelServer(delayMs);
  const h = await setup({ env: { OPENAI_BASE_URL: `${model.url}/v1`, ...env } });
  const key = await h.newKey(['platform']);
  const call = (m: string, p: string, b?: unknown) => h.call(m, p, b, { 'x-api-key': key });
  return { h, call, model };
}

const mkProducts = async (h: H, ...names: string[]) => {
  const ids: string[] = [];
  for (const name of names) ids.push((await h.call('POST', '/products', product({ name }))).body.id);
  return ids;
};

/** Runs the store's queued bulk_enrich jobs as workers would, all at once. */
async function runQueued(h: H, opts: { retryLimit?: number } = {}) {
  const held = await takeQueued(h, 'enrichment.bulk_enrich');
  await Promise.all(held.map((j) => runJob(h, 'enrichment.bulk_enrich', [j], opts)));
  return held.length;
}

test('bulk_enrich is a job: each product enriched and applied, failures listed, results in the order asked', async () => {
  const { h, call, model } = await harness();
  const ids = await mkProducts(h, 'Apron', 'Refused knife', 'Board');
  const started = await call('POST', '/enrichment/bulk', { product_ids: ids, fields: ['seo_title', 'tags'], apply: true });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ object: 'job', type: 'enrichment.bulk_enrich', status: 'queued', result: null });
  expect(model.stats.seen).toEqual([]);
  // Deleted after the job was queued: that product's own failure, the others go on.
  await h.call('DELETE', `/products/${ids[2]}`);
  expect(await runQueued(h)).toBe(1);
  const job = (await call('GET', `/jobs/${started.body.id}`)).body;
  expect(job).toMatchObject({ status: 'succeeded', progress: { done: 3, total: 3 }, error: null });
  expect(job.result).toEqual({
    object: 'bulk_enrichment',
    applied: true,
    done: [{ product_id: ids[0], applied: true, suggestions: { tags: ['apron'], seo_title: 'Apron | Shop' } }],
    failed: [
      { product_id: ids[1], error: { code: 'provider_error', message: 'openai answered HTTP 400: content policy' } },
      { product_id: ids[2], error: { code: 'resource_missing', message: expect.any(String) } },
    ],
  });
  expect((await h.call('GET', `/products/${ids[0]}`)).body.metadata).toMatchObject({ seo_title: 'Apron | Shop', tags: 'apron' });
  expect((await h.call('GET', `/products/${ids[1]}`)).body.metadata).toEqual({});
  // Another store does not see the job.
  expect((await (await setup()).call('GET', `/jobs/${started.body.id}`)).status).toBe(404);
});

test('at most SVC_ENRICHMENT_CONCURRENCY products of a store are at the model at once, across its jobs', async () => {
  const { h, call, model } = await harness({ SVC_ENRICHMENT_CONCURRENCY: '2' }, 80);
  const a = await mkProducts(h, 'A1', 'A2', 'A3', 'A4');
  const b = await mkProducts(h, 'B1', 'B2', 'B3', 'B4');
  const jobs: string[] = [];
  for (const product_ids of [a, b]) jobs.push((await call('POST', '/enrichment/bulk', { product_ids, apply: false })).body.id);
  // Another store's job runs beside them: the limit is per store.
  const other = await harness({ SVC_ENRICHMENT_CONCURRENCY: '2' }, 80);
  const c = await mkProducts(other.h, 'C1', 'C2');
  await other.call('POST', '/enrichment/bulk', { product_ids: c, apply: false });
  await Promise.all([runQueued(h), runQueued(other.h)]);
  expect(model.stats.seen.sort()).toEqual(['A1', 'A2', 'A3', 'A4', 'B1', 'B2', 'B3', 'B4']);
  expect(model.stats.max).toBe(2);
  expect(other.model.stats.max).toBe(2);
  // Every slot was handed back.
  expect(await h.db.query('SELECT 1 FROM enrichment_slots WHERE store_id = $1', [h.store.id])).toEqual([]);
  for (const id of jobs) expect((await call('GET', `/jobs/${id}`)).body).toMatchObject({ status: 'succeeded', progress: { done: 4, total: 4 } });
});

test('the spend cap stops the job with spend_cap_reached; what was applied stays', async () => {
  const prices = JSON.stringify({ 'openai/gpt-4o-mini': { per_request: 1 } });
  const { h, call, model } = await harness({ SVC_PROVIDER_PRICES: prices, SVC_ENRICHMENT_CONCURRENCY: '1' });
  const ids = await mkProducts(h, 'P1', 'P2', 'P3', 'P4');
  await h.raw('PATCH', `/v1/stores/${h.store.id}`, { monthly_spend_cap: 2 }, { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' });
  const job = (await call('POST', '/enrichment/bulk', { product_ids: ids, fields: ['seo_title'], apply: true })).body;
  await runQueued(h);
  const after = (await call('GET', `/jobs/${job.id}`)).body;
  expect(after).toMatchObject({ status: 'failed', progress: { done: 2, total: 4 }, error: { code: 'spend_cap_reached' } });
  expect(model.stats.seen).toEqual(['P1', 'P2']);
  expect((await h.call('GET', `/products/${ids[1]}`)).body.metadata.seo_title).toBe('P2 | Shop');
  expect((await h.call('GET', `/products/${ids[2]}`)).body.metadata).toEqual({});
});

test('refused before anything is queued: an unknown product (404 naming its place), no provider (400 naming the setting), a bad list', async () => {
  const { h, call } = await harness();
  const [p] = await mkProducts(h, 'Apron');
  const miss = await call('POST', '/enrichment/bulk', { product_ids: [p, crypto.randomUUID()], apply: false });
  expect(miss.status).toBe(404);
  expect(miss.body.error.param).toBe('product_ids.1');
  expect((await call('POST', '/enrichment/bulk', { product_ids: [], apply: false })).status).toBe(400);
  expect((await call('POST', '/enrichment/bulk', { product_ids: [p, p], apply: false })).status).toBe(400);
  const none = await setup();
  const [q] = await mkProducts(none, 'Apron');
  const r = await none.call('POST', '/enrichment/bulk', { product_ids: [q], apply: false }, { 'x-api-key': await none.newKey(['platform']) });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'provider_not_configured', message: expect.stringContaining('OPENAI_BASE_URL') });
  expect(await takeQueued(none, 'enrichment.bulk_enrich')).toEqual([]);
  expect(await takeQueued(h, 'enrichment.bulk_enrich')).toEqual([]);
});

test('a cancelled job stops taking products', async () => {
  const { h, call, model } = await harness({ SVC_ENRICHMENT_CONCURRENCY: '1' }, 150);
  const ids = await mkProducts(h, 'K1', 'K2', 'K3');
  const job = (await call('POST', '/enrichment/bulk', { product_ids: ids, apply: false })).body;
  const running = runQueued(h);
  while (!model.stats.seen.length) await Bun.sleep(10);
  expect((await call('POST', `/jobs/${job.id}/cancel`, {})).status).toBe(200);
  await running;
  expect((await call('GET', `/jobs/${job.id}`)).body.status).toBe('cancelled');
  expect(model.stats.seen).toEqual(['K1']);
});

test('bulk_enrich over MCP, followed with get_job', async () => {
  const { h, model } = await harness();
  const [p] = await mkProducts(h, 'Apron');
  const { client } = await mcpClient(h, { key: await h.newKey(['platform']) });
  try {
    const r: any = await client.callTool({ name: 'enrichment', arguments: { action: 'bulk_enrich', product_ids: [p], apply: false } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ object: 'job', status: 'queued' });
    await runQueued(h);
    const j: any = await client.callTool({ name: 'enrichment', arguments: { action: 'get_job', id: r.structuredContent.id } });
    expect(j.structuredContent).toMatchObject({ status: 'succeeded', result: { done: [{ product_id: p }] } });
  } finally {
    await client.close();
  }
  expect(model.stats.seen).toEqual(['Apron']);
});

test('a slot left by a worker that died is taken again once its lease is over', async () => {
  const { h, call, model } = await harness({ SVC_ENRICHMENT_CONCURRENCY: '1' });
  const [p] = await mkProducts(h, 'Apron');
  // The store's one slot, leased by a worker that is gone: its lease ended a second ago.
  await h.db.query(`INSERT INTO enrichment_slots (store_id, slot, holder, held_until) VALUES ($1, 0, $2, $3)`, [
    h.store.id,
    crypto.randomUUID(),
    new Date(h.clock.now().getTime() - 1000),
  ]);
  const job = (await call('POST', '/enrichment/bulk', { product_ids: [p], fields: ['tags'], apply: false })).body;
  await runQueued(h);
  expect((await call('GET', `/jobs/${job.id}`)).body.status).toBe('succeeded');
  expect(model.stats.seen).toEqual(['Apron']);
});
