import { afterEach, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, setup, type Harness } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { fakeVideos, MP4, videoFailure, type VideoStep } from '../../test/kit/fake-videos';
import { anthropic, events, fakeServer } from '../../test/kit/fake-models';

/** video_gen (issue 47) against a local fake of OpenAI's Videos API (create, poll, content). */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

const QUEUE = 'video_gen.generate_video';

function fake(opts: { steps?: VideoStep[]; seconds?: string } = {}) {
  const f = fakeVideos(opts);
  stops.push(f.stop);
  return f;
}

const harness = (url: string | undefined, env: Record<string, string> = {}) =>
  setup({
    env: {
      SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-video-')),
      SVC_VIDEO_GEN_POLL_S: '0.01',
      ...(url ? { OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'sk-video' } : {}),
      ...env,
    },
  });

/** Runs the queued video jobs of the store as a worker would. */
async function work(h: Harness) {
  const held = await takeQueued(h, QUEUE);
  await runJob(h, QUEUE, held);
  return held;
}

const eventsOf = async (h: Harness) =>
  (await h.db.query<{ body: string }>('SELECT body FROM events WHERE store_id = $1 ORDER BY created_at', [h.store.id])).map((e) =>
    JSON.parse(e.body),
  );

const usage = (h: Harness) =>
  h.db.query<{ provider: string; model: string; requests: number; video_seconds: number; cost: number }>(
    'SELECT provider, model, requests::int AS requests, video_seconds::float8 AS video_seconds, cost::float8 AS cost FROM provider_usage WHERE store_id = $1',
    [h.store.id],
  );

test('generate_video asks the Videos API at once and answers a job; the job polls to completed and keeps the MP4 as a media asset', async () => {
  const api = fake({ steps: [{ status: 'queued' }, { status: 'in_progress', progress: 35 }, { status: 'completed' }] });
  const h = await harness(api.url);
  await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/videos', events: ['video.completed', 'video.failed'] });
  const r = await h.call('POST', '/videos', { prompt: 'A linen apron folding itself', seconds: 8, size: '1280x720' });
  expect(r.status).toBe(202);
  expect(r.body).toMatchObject({ object: 'job', type: QUEUE, status: 'queued' });
  expect(api.requests[0]).toMatchObject({
    method: 'POST',
    path: '/v1/videos',
    headers: { authorization: 'Bearer sk-video' },
    fields: { model: 'sora-2', prompt: 'A linen apron folding itself', seconds: '8', size: '1280x720' },
  });
  // The video's id is its job's: queued until the job has run.
  const before = await h.call('GET', `/videos/${r.body.id}`);
  expect(before.body).toMatchObject({ object: 'video', id: r.body.id, status: 'queued', seconds: 8, size: '1280x720', media: null });

  await work(h);
  const polls = api.requests.filter((q) => q.method === 'GET' && !q.path.endsWith('/content'));
  expect(polls).toHaveLength(3);
  expect(api.requests.at(-1)!.path).toMatch(/^\/v1\/videos\/video_\w+\/content$/);
  const job = (await h.call('GET', `/jobs/${r.body.id}`)).body;
  expect(job).toMatchObject({ status: 'succeeded', progress: { done: 100, total: 100 } });
  const video = (await h.call('GET', `/videos/${r.body.id}`)).body;
  expect(video).toMatchObject({ status: 'completed', progress: 100, model: 'sora-2', error: null });
  expect(video.media).toMatchObject({ object: 'media', id: video.media_id, content_type: 'video/mp4', size: MP4.length, visibility: 'public' });
  expect(job.result).toEqual({ ...video, media: { ...video.media, url: expect.any(String) } });
  // The file is served by svc.
  const served = await h.app.handle(new Request(`http://svc.test${new URL(video.media.url, 'http://svc.test').pathname}`));
  expect(new Uint8Array(await served.arrayBuffer())).toEqual(MP4);
  expect((await h.call('GET', '/videos')).body.data.map((v: any) => v.id)).toEqual([video.id]);
  expect((await h.call('GET', '/videos?status=failed')).body.data).toEqual([]);
  // Metered: 8 s of sora-2 at 0.10 USD a second.
  expect(await usage(h)).toEqual([{ provider: 'openai', model: 'sora-2', requests: 1, video_seconds: 8, cost: 0.8 }]);
  const events = await eventsOf(h);
  expect(events.map((e) => e.type)).toEqual(['video.completed']);
  expect(events[0].data).toMatchObject({ id: video.id, status: 'completed', media_id: video.media_id });
  // A second run of the same job (its worker died before pg-boss heard) changes nothing.
  await runJob(h, QUEUE, [{ data: { input: {}, store_id: h.store.id, job_id: r.body.id } }]);
  expect((await usage(h))[0].requests).toBe(1);
  expect(await eventsOf(h)).toHaveLength(1);
  // Another store sees none of it.
  const other = await harness(api.url);
  expect((await other.call('GET', `/videos/${video.id}`)).status).toBe(404);
  expect((await other.call('GET', '/videos')).body.data).toEqual([]);
});

test('a video the provider fails: the job fails with video_failed and its words, video.failed is sent, nothing is stored or billed', async () => {
  const api = fake({
    steps: [
      { status: 'in_progress', progress: 10 },
      { status: 'failed', error: { code: 'moderation_blocked', message: 'The prompt was blocked.' } },
    ],
  });
  const h = await harness(api.url, { SVC_VIDEO_MODEL: 'sora-2-pro' });
  await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/videos', events: ['video.failed'] });
  const r = await h.call('POST', '/videos', { prompt: 'Something refused', visibility: 'private' });
  expect(api.requests[0].fields).toMatchObject({ model: 'sora-2-pro' });
  await work(h);
  const job = (await h.call('GET', `/jobs/${r.body.id}`)).body;
  expect(job).toMatchObject({ status: 'failed', error: { code: 'video_failed' } });
  expect(job.error.message).toContain('The prompt was blocked. (moderation_blocked)');
  const video = (await h.call('GET', `/videos/${r.body.id}`)).body;
  expect(video).toMatchObject({ status: 'failed', media_id: null, error: { code: 'moderation_blocked', message: 'The prompt was blocked.' } });
  expect((await eventsOf(h)).map((e) => [e.type, e.data.id])).toEqual([['video.failed', video.id]]);
  expect((await h.call('GET', '/media')).body.data).toEqual([]);
  expect(await usage(h)).toEqual([]);
});

test('unset OPENAI_BASE_URL: 400 provider_not_configured naming it, before anything is queued or kept', async () => {
  const h = await harness(undefined);
  const r = await h.call('POST', '/videos', { prompt: 'x' });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'provider_not_configured' });
  expect(r.body.error.message).toContain('OPENAI_BASE_URL');
  expect(await takeQueued(h, QUEUE)).toEqual([]);
  expect((await h.call('GET', '/videos')).body.data).toEqual([]);
});

test('the provider refusing the request: 429 with Retry-After, 502 for a 5xx or a malformed answer; no job, no video', async () => {
  const api = fake();
  const h = await harness(api.url);
  // Four 429s (the first try and three retries, each asking 10 ms).
  api.interrupt(...Array.from({ length: 4 }, () => videoFailure(429, 'Slow down', 0.01)));
  const limited = await h.call('POST', '/videos', { prompt: 'x' });
  expect(limited.status).toBe(429);
  expect(limited.body.error.code).toBe('rate_limit_exceeded');
  expect(limited.headers.get('retry-after')).toBe('1');
  api.interrupt(videoFailure(400, "Invalid size '99x99'."));
  const refused = await h.call('POST', '/videos', { prompt: 'x', size: '99x99' });
  expect(refused.status).toBe(502);
  expect(refused.body.error.message).toContain('openai answered HTTP 400: ');
  api.interrupt({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"object":"video"}' });
  const odd = await h.call('POST', '/videos', { prompt: 'x' });
  expect(odd.status).toBe(502);
  expect(odd.body.error.message).toContain('malformed');
  expect(await takeQueued(h, QUEUE)).toEqual([]);
  expect((await h.call('GET', '/videos')).body.data).toEqual([]);
});

test('a poll that fails is retried by the job, which resumes the same video (never asked for twice)', async () => {
  const api = fake({ steps: [{ status: 'completed' }] });
  const h = await harness(api.url);
  const r = await h.call('POST', '/videos', { prompt: 'A shoe', seconds: 4 });
  const held = await takeQueued(h, QUEUE);
  api.interrupt(...Array.from({ length: 4 }, () => videoFailure(503, 'overloaded', 0.01)));
  await runJob(h, QUEUE, held);
  expect((await h.call('GET', `/jobs/${r.body.id}`)).body).toMatchObject({ status: 'queued', error: { code: 'api_error' } });
  expect((await h.call('GET', `/videos/${r.body.id}`)).body.status).toBe('queued');
  await runJob(
    h,
    QUEUE,
    held.map((j) => ({ ...j, retryCount: 1 })),
  );
  expect((await h.call('GET', `/videos/${r.body.id}`)).body.status).toBe('completed');
  expect(api.requests.filter((q) => q.method === 'POST')).toHaveLength(1);
});

test('a video not finished within SVC_VIDEO_GEN_MAX_WAIT_S is failed (timeout)', async () => {
  const api = fake({ steps: [{ status: 'in_progress', progress: 50 }] });
  const h = await harness(api.url, { SVC_VIDEO_GEN_MAX_WAIT_S: '60' });
  const r = await h.call('POST', '/videos', { prompt: 'A slow one' });
  h.clock.advance(61_000);
  await work(h);
  const video = (await h.call('GET', `/videos/${r.body.id}`)).body;
  expect(video).toMatchObject({ status: 'failed', progress: 50, error: { code: 'timeout' } });
  expect((await h.call('GET', `/jobs/${r.body.id}`)).body.status).toBe('failed');
});

test('a video whose job is cancelled (before a worker took it) shows failed, cancelled; the job does not poll it', async () => {
  const api = fake({ steps: [{ status: 'in_progress', progress: 20 }] });
  const h = await harness(api.url);
  const r = await h.call('POST', '/videos', { prompt: 'Never mind' });
  expect((await h.call('POST', `/jobs/${r.body.id}/cancel`)).body.status).toBe('cancelled');
  await work(h);
  expect(api.requests).toHaveLength(1);
  expect((await h.call('GET', `/videos/${r.body.id}`)).body).toMatchObject({ status: 'failed', error: { code: 'cancelled' } });
  expect((await h.call('GET', '/videos?status=queued')).body.data).toEqual([]);
  expect((await h.call('GET', '/videos?status=failed')).body.data.map((v: any) => v.error.code)).toEqual(['cancelled']);
});

test('the spend cap: at it, generate_video is 403 spend_cap_reached before the provider is asked', async () => {
  const api = fake();
  const h = await harness(api.url);
  const capped = await h.raw(
    'PATCH',
    `/v1/stores/${h.store.id}`,
    { monthly_spend_cap: 0 },
    { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' },
  );
  expect(capped.status).toBe(200);
  const r = await h.call('POST', '/videos', { prompt: 'x' });
  expect(r.status).toBe(403);
  expect(r.body.error.code).toBe('spend_cap_reached');
  expect(api.requests).toEqual([]);
});

test('over MCP: generate_video answers the job, get_status and get_job follow it; a narrow key without media scopes is refused', async () => {
  const api = fake({ steps: [{ status: 'completed' }] });
  const h = await harness(api.url);
  const { client } = await mcpClient(h);
  try {
    const started: any = await client.callTool({ name: 'video_gen', arguments: { action: 'generate_video', prompt: 'A hat', seconds: 4 } });
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    expect(started.structuredContent).toMatchObject({ object: 'job', type: QUEUE, status: 'queued' });
    const id = started.structuredContent.id;
    await work(h);
    const status: any = await client.callTool({ name: 'video_gen', arguments: { action: 'get_status', id } });
    expect(status.structuredContent).toMatchObject({ object: 'video', id, status: 'completed', media: { content_type: 'video/mp4' } });
    const job: any = await client.callTool({ name: 'video_gen', arguments: { action: 'get_job', id } });
    expect(job.structuredContent).toMatchObject({ id, status: 'succeeded' });
    const list: any = await client.callTool({ name: 'video_gen_list_videos', arguments: {} });
    expect(list.structuredContent.data.map((v: any) => v.id)).toEqual([id]);
  } finally {
    await client.close();
  }
  const narrow = await h.newKey(['catalog']);
  expect((await h.call('POST', '/videos', { prompt: 'x' }, { 'x-api-key': narrow })).status).toBe(403);
  const creator = await h.newKey(['creations']);
  expect((await h.call('GET', '/videos', undefined, { 'x-api-key': creator })).status).toBe(200);
});

test('an agent asks for a video in chat: the tool answers the job, which completes as through REST', async () => {
  const api = fake({ steps: [{ status: 'completed' }] });
  // The agent's own model speaks Anthropic's wire (the Videos API has the OpenAI base URL to itself here).
  const model = fakeServer([
    anthropic.tools({ name: 'video_gen', input: { action: 'generate_video', prompt: 'A mug steaming' } }),
    anthropic.text('Your video is on its way.'),
  ]);
  stops.push(model.stop);
  const h = await harness(api.url, { ANTHROPIC_BASE_URL: `${model.url}/v1`, ANTHROPIC_API_KEY: 'ak-video' });
  const agent = (await h.call('POST', '/agents', { name: 'Director', model: 'anthropic/claude-sonnet-4-5', tools: ['video_gen'] })).body;
  const ev = events((await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Make me a video of a steaming mug' })).body);
  const result = ev.find((e) => e.type === 'tool_result');
  expect(result).toMatchObject({ status: 'success', result: { object: 'job', type: QUEUE, status: 'queued' } });
  expect(api.requests[0]).toMatchObject({ method: 'POST', path: '/v1/videos', fields: { prompt: 'A mug steaming' } });
  await work(h);
  expect((await h.call('GET', `/videos/${result.result.id}`)).body).toMatchObject({ status: 'completed', media: { content_type: 'video/mp4' } });
});
