import { afterEach, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, type Harness } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { events, fakeServer, openai } from '../../test/kit/fake-models';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { failure, fakeImages, imageBody, type ImageReply } from '../../test/kit/fake-images';
import { encodeImage } from '../media/codecs';

/** remove_bg (issue 47) against a local fake of remove.bg's POST /v1.0/removebg. */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

function fake(replies: ImageReply[]) {
  const f = fakeImages(replies);
  stops.push(f.stop);
  return f;
}

const png = (v = 128) => encodeImage('png', { data: new Uint8ClampedArray(4 * 4 * 4).fill(v), width: 4, height: 4 }, 90);
const harness = (env: Record<string, string> = {}) => setup({ env: { SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-rmbg-')), ...env } });
const upload = async (h: Harness, name = 'shoe.jpg') =>
  (await h.call('POST', '/media', { data: Buffer.from(await png()).toString('base64'), filename: name })).body;

test('remove_background: the stored picture goes to remove.bg as image_file with X-Api-Key; the answer is a PNG asset', async () => {
  const cut = await png(0);
  const api = fake([imageBody(cut)]);
  const h = await harness({ SVC_REMOVEBG_API_KEY: 'rb-key', SVC_REMOVEBG_URL: api.url });
  const src = await upload(h);
  const r = await h.call('POST', '/remove-bg', { media_id: src.id });
  expect(r.status).toBe(201);
  expect(api.requests[0]).toMatchObject({ path: '/v1.0/removebg', headers: { 'x-api-key': 'rb-key' } });
  expect(api.requests[0].files!.image_file.bytes.length).toBe(src.size);
  expect(r.body).toMatchObject({ filename: 'shoe-nobg.png', content_type: 'image/png', size: cut.length });
  const usage = await h.db.query('SELECT provider, images::int AS images FROM provider_usage WHERE store_id = $1', [h.store.id]);
  expect(usage).toEqual([{ provider: 'removebg', images: 1 }]);
  // Another store's asset is 404; remove.bg is not called.
  const other = await harness({ SVC_REMOVEBG_API_KEY: 'rb-key', SVC_REMOVEBG_URL: api.url });
  const theirs = await other.call('POST', '/remove-bg', { media_id: src.id });
  expect(theirs.status).toBe(404);
  expect(theirs.body.error.param).toBe('media_id');
  expect(api.requests).toHaveLength(1);
});

test('unset key: 400 provider_not_configured naming SVC_REMOVEBG_API_KEY, for one picture and for a batch (no job queued)', async () => {
  const h = await harness();
  const src = await upload(h);
  for (const [path, body] of [
    ['/remove-bg', { media_id: src.id }],
    ['/remove-bg/batch', { media_ids: [src.id] }],
  ] as const) {
    const r = await h.call('POST', path, body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('provider_not_configured');
    expect(r.body.error.message).toContain('SVC_REMOVEBG_API_KEY');
  }
  expect(await takeQueued(h, 'remove_bg.batch_remove')).toEqual([]);
});

test('remove.bg failures: an error answer is 502 naming removebg, a non-image answer 502; nothing stored', async () => {
  const api = fake([failure(400, 'Could not identify foreground'), { status: 200, body: '{}', headers: { 'content-type': 'application/json' } }]);
  const h = await harness({ SVC_REMOVEBG_API_KEY: 'k', SVC_REMOVEBG_URL: api.url });
  const src = await upload(h);
  const refused = await h.call('POST', '/remove-bg', { media_id: src.id });
  expect(refused.status).toBe(502);
  expect(refused.body.error.message).toContain('removebg answered HTTP 400');
  const odd = await h.call('POST', '/remove-bg', { media_id: src.id });
  expect(odd.status).toBe(502);
  expect(odd.body.error.message).toContain('malformed');
  expect((await h.call('GET', '/media')).body.data).toHaveLength(1);
});

test('batch_remove is a job: up to 100 ids, each checked first; the job makes one PNG per picture with progress', async () => {
  const api = fake([imageBody(await png(1)), failure(400, 'no foreground'), imageBody(await png(2))]);
  const h = await harness({ SVC_REMOVEBG_API_KEY: 'k', SVC_REMOVEBG_URL: api.url });
  const [a, x, b] = [await upload(h, 'a.png'), await upload(h, 'x.png'), await upload(h, 'b.png')];
  expect((await h.call('POST', '/remove-bg/batch', { media_ids: Array.from({ length: 101 }, () => crypto.randomUUID()) })).status).toBe(400);
  const missing = await h.call('POST', '/remove-bg/batch', { media_ids: [a.id, crypto.randomUUID()] });
  expect(missing.status).toBe(404);
  expect(missing.body.error.param).toBe('media_ids.1');
  const started = await h.call('POST', '/remove-bg/batch', { media_ids: [a.id, x.id, b.id] });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ object: 'job', type: 'remove_bg.batch_remove', status: 'queued' });
  const held = await takeQueued(h, 'remove_bg.batch_remove');
  expect(held).toHaveLength(1);
  await runJob(h, 'remove_bg.batch_remove', held);
  const job = await h.call('GET', `/jobs/${started.body.id}`);
  expect(job.body).toMatchObject({ status: 'succeeded', progress: { done: 3, total: 3 } });
  expect(job.body.result.done.map((d: any) => d.media_id)).toEqual([a.id, b.id]);
  expect(job.body.result.failed).toEqual([{ media_id: x.id, error: expect.stringContaining('removebg answered HTTP 400') }]);
  const names = (await h.call('GET', '/media')).body.data.map((m: any) => m.filename).sort();
  expect(names).toEqual(['a-nobg.png', 'a.png', 'b-nobg.png', 'b.png', 'x.png']);
});

test('remove_bg over MCP: remove_background and batch_remove', async () => {
  const api = fake([imageBody(await png(1))]);
  const h = await harness({ SVC_REMOVEBG_API_KEY: 'k', SVC_REMOVEBG_URL: api.url });
  const src = await upload(h);
  const { client } = await mcpClient(h);
  try {
    const one: any = await client.callTool({ name: 'remove_bg', arguments: { action: 'remove_background', media_id: src.id } });
    expect(one.isError, JSON.stringify(one.content)).toBeFalsy();
    expect(one.structuredContent.filename).toBe('shoe-nobg.png');
    const batch: any = await client.callTool({ name: 'remove_bg', arguments: { action: 'batch_remove', media_ids: [src.id] } });
    expect(batch.isError, JSON.stringify(batch.content)).toBeFalsy();
    expect(batch.structuredContent).toMatchObject({ object: 'job', type: 'remove_bg.batch_remove' });
  } finally {
    await client.close();
  }
});

test('through agent chat: the model asks remove_bg to cut out a picture and gets the new PNG asset', async () => {
  const cut = await png(0);
  const api = fake([imageBody(cut)]);
  const env = { SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-rmbg-')), SVC_REMOVEBG_API_KEY: 'k', SVC_REMOVEBG_URL: api.url };
  const h = await setup({ env });
  const src = await upload(h);
  const model = fakeServer([
    openai.tools({ name: 'remove_bg', input: { action: 'remove_background', media_id: src.id } }),
    openai.text('Background removed.'),
  ]);
  stops.push(() => model.stop());
  // The same store through a server whose agents talk to the fake model.
  const app = h.elsewhere({ ...env, OPENAI_BASE_URL: `${model.url}/v1` });
  const everything = await h.newKey([...h.registry.grantable]);
  const agent = (await app.call('POST', '/agents', { name: 'Editor', model: 'openai/gpt-test', tools: ['remove_bg'] })).body;
  const chat = await app.call('POST', `/agents/${agent.id}/chat`, { message: 'Remove the background' }, { 'x-api-key': everything });
  expect(chat.status).toBe(200);
  const result: any = events(chat.body).find((e) => e.type === 'tool_result');
  expect(result).toMatchObject({ status: 'success', result: { filename: 'shoe-nobg.png', content_type: 'image/png', size: cut.length } });
  expect(api.requests).toHaveLength(1);
  const ids = (await h.call('GET', '/media')).body.data.map((m: any) => m.id);
  expect(ids).toContain(result.result.id);
});
