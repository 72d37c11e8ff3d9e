import { afterEach, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, type Harness } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { anthropic, events, fakeServer } from '../../test/kit/fake-models';
import { b64Images, failure, fakeImages, imageBody, type ImageReply } from '../../test/kit/fake-images';
import { encodeImage } from '../media/codecs';

/** image_gen (issue 47) against local fakes of OpenAI's /images/* and Stability's upscale. */
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

const png = (w: number, h: number, v = 128) => encodeImage('png', { data: new Uint8ClampedArray(w * h * 4).fill(v), width: w, height: h }, 90);
const harness = (env: Record<string, string> = {}) => setup({ env: { SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-imggen-')), ...env } });
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

async function served(h: Harness, url: string) {
  const u = new URL(url);
  const res = await h.app.handle(new Request(`http://svc.test${u.pathname}${u.search}`));
  return new Uint8Array(await res.arrayBuffer());
}

const usage = (h: Harness) =>
  h.db.query<{ provider: string; model: string; requests: number; images: number }>(
    'SELECT provider, model, requests::int AS requests, images::int AS images FROM provider_usage WHERE store_id = $1 ORDER BY provider',
    [h.store.id],
  );

test('unset providers: 400 provider_not_configured naming the setting, nothing written', async () => {
  const h = await harness();
  const up = (await h.call('POST', '/media', { data: b64(await png(4, 4)) })).body;
  const gen = await h.call('POST', '/images/generate', { prompt: 'a red apron' });
  expect(gen.status).toBe(400);
  expect(gen.body.error.code).toBe('provider_not_configured');
  expect(gen.body.error.message).toContain('OPENAI_BASE_URL');
  const edit = await h.call('POST', '/images/edit', { media_id: up.id, prompt: 'bluer' });
  expect(edit.body.error.message).toContain('OPENAI_BASE_URL');
  const upscale = await h.call('POST', '/images/upscale', { media_id: up.id });
  expect(upscale.status).toBe(400);
  expect(upscale.body.error.message).toContain('SVC_STABILITY_API_KEY');
  expect((await h.call('GET', '/media')).body.data).toHaveLength(1);
  expect(await usage(h)).toEqual([]);
});

test('generate_image: the model draws, each picture becomes a media asset, images are metered', async () => {
  const [a, b] = [await png(4, 4, 10), await png(4, 4, 200)];
  const openai = fake([b64Images(a, b)]);
  const h = await harness({ OPENAI_BASE_URL: `${openai.url}/v1`, OPENAI_API_KEY: 'sk-img' });
  const r = await h.call('POST', '/images/generate', { prompt: 'two aprons', n: 2, size: '1024x1024' });
  expect(r.status).toBe(201);
  expect(openai.requests[0]).toMatchObject({
    path: '/v1/images/generations',
    headers: { authorization: 'Bearer sk-img' },
    json: { model: 'gpt-image-1', prompt: 'two aprons', n: 2, size: '1024x1024' },
  });
  expect(r.body.data.map((x: any) => [x.content_type, x.filename, x.width])).toEqual([
    ['image/png', 'generated-1.png', 4],
    ['image/png', 'generated-2.png', 4],
  ]);
  expect(Buffer.from(await served(h, r.body.data[1].url)).equals(Buffer.from(b))).toBe(true);
  expect(await usage(h)).toEqual([{ provider: 'openai', model: 'gpt-image-1', requests: 1, images: 2 }]);
});

test('edit_image sends the stored picture as multipart; upscale asks Stability for an image; another store’s media is 404', async () => {
  const src = await png(4, 4);
  const edited = await png(4, 4, 30);
  const big = await png(16, 16);
  const openai = fake([b64Images(edited)]);
  const stability = fake([imageBody(big)]);
  const h = await harness({ OPENAI_BASE_URL: `${openai.url}/v1`, SVC_STABILITY_API_KEY: 'sk-stab', SVC_STABILITY_URL: stability.url });
  const other = await harness({ OPENAI_BASE_URL: `${openai.url}/v1`, SVC_STABILITY_API_KEY: 'sk-stab', SVC_STABILITY_URL: stability.url });
  const up = (await h.call('POST', '/media', { data: b64(src), filename: 'apron.png', visibility: 'private' })).body;

  const e = await h.call('POST', '/images/edit', { media_id: up.id, prompt: 'make it blue', model: 'gpt-image-1' });
  expect(e.status).toBe(201);
  const sent = openai.requests[0];
  expect(sent.path).toBe('/v1/images/edits');
  expect(sent.fields).toMatchObject({ model: 'gpt-image-1', prompt: 'make it blue' });
  expect(Buffer.from(sent.files!.image.bytes).equals(Buffer.from(src))).toBe(true);
  expect(e.body.data[0]).toMatchObject({ filename: 'edited-1.png', visibility: 'private' });

  const u = await h.call('POST', '/images/upscale', { media_id: up.id });
  expect(u.status).toBe(201);
  expect(stability.requests[0]).toMatchObject({
    path: '/v2beta/stable-image/upscale/fast',
    headers: { authorization: 'Bearer sk-stab', accept: 'image/*' },
  });
  expect(Buffer.from(stability.requests[0].files!.image.bytes).equals(Buffer.from(src))).toBe(true);
  expect(u.body).toMatchObject({ filename: 'apron-upscaled.png', width: 16, height: 16, content_type: 'image/png' });
  expect((await usage(h)).map((x) => [x.provider, x.images])).toEqual([
    ['openai', 1],
    ['stability', 1],
  ]);

  for (const [path, body] of [
    ['/images/edit', { media_id: up.id, prompt: 'x' }],
    ['/images/upscale', { media_id: up.id }],
  ] as const) {
    const r = await other.call('POST', path, body);
    expect(r.status).toBe(404);
    expect(r.body.error.param).toBe('media_id');
  }
  expect(openai.requests).toHaveLength(1);
});

test('provider failures: 5xx after the retries is 502 naming the provider, 429 keeps Retry-After, a malformed answer 502; nothing stored', async () => {
  const openai = fake([
    failure(503, 'down', 0),
    failure(503, 'down', 0),
    failure(503, 'down', 0),
    failure(503, 'down', 0),
    { status: 200, body: '{"data": []}', headers: { 'content-type': 'application/json' } },
    failure(429, 'slow down', 0),
    failure(429, 'slow down', 0),
    failure(429, 'slow down', 0),
    failure(429, 'slow down', 7),
  ]);
  const stability = fake([{ status: 200, body: 'not an image', headers: { 'content-type': 'text/plain' } }]);
  const h = await harness({ OPENAI_BASE_URL: `${openai.url}/v1`, SVC_STABILITY_API_KEY: 'k', SVC_STABILITY_URL: stability.url });
  const down = await h.call('POST', '/images/generate', { prompt: 'x' });
  expect(down.status).toBe(502);
  expect(down.body.error).toMatchObject({ code: 'provider_error' });
  expect(down.body.error.message).toContain('openai answered HTTP 503');
  const empty = await h.call('POST', '/images/generate', { prompt: 'x' });
  expect(empty.status).toBe(502);
  expect(empty.body.error.message).toContain('malformed');
  const limited = await h.call('POST', '/images/generate', { prompt: 'x' });
  expect(limited.status).toBe(429);
  expect(limited.body.error.code).toBe('rate_limit_exceeded');
  expect(limited.headers.get('retry-after')).toBe('7');
  const up = (await h.call('POST', '/media', { data: b64(await png(2, 2)) })).body;
  const bad = await h.call('POST', '/images/upscale', { media_id: up.id });
  expect(bad.status).toBe(502);
  expect(bad.body.error.message).toContain('stability');
  expect((await h.call('GET', '/media')).body.data).toHaveLength(1);
  expect(await usage(h)).toEqual([]);
});

test('every image_gen action over MCP', async () => {
  const openai = fake([b64Images(await png(2, 2)), b64Images(await png(2, 2))]);
  const stability = fake([imageBody(await png(8, 8))]);
  const h = await harness({ OPENAI_BASE_URL: `${openai.url}/v1`, SVC_STABILITY_API_KEY: 'k', SVC_STABILITY_URL: stability.url });
  const { client } = await mcpClient(h);
  const call = async (args: Record<string, unknown>) => {
    const r: any = await client.callTool({ name: 'image_gen', arguments: args });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    return r.structuredContent;
  };
  try {
    const g = await call({ action: 'generate_image', prompt: 'an apron' });
    expect(g.data).toHaveLength(1);
    const e = await call({ action: 'edit_image', media_id: g.data[0].id, prompt: 'bluer' });
    expect(e.data[0].content_type).toBe('image/png');
    const u = await call({ action: 'upscale', media_id: e.data[0].id });
    expect(u).toMatchObject({ width: 8, height: 8 });
  } finally {
    await client.close();
  }
});

test('through agent chat: the model asks image_gen for a picture and gets a media asset', async () => {
  const pic = await png(4, 4, 60);
  const images = fake([b64Images(pic)]);
  // The agent's own model speaks Anthropic's wire (the Images API has the OpenAI base URL to itself here).
  const model = fakeServer([
    anthropic.tools({ name: 'image_gen', input: { action: 'generate_image', prompt: 'a linen apron' } }),
    anthropic.text('Here is your apron.'),
  ]);
  stops.push(model.stop);
  const h = await harness({ OPENAI_BASE_URL: `${images.url}/v1`, ANTHROPIC_BASE_URL: `${model.url}/v1`, ANTHROPIC_API_KEY: 'ak-img' });
  const agent = (await h.call('POST', '/agents', { name: 'Painter', model: 'anthropic/claude-sonnet-4-5', tools: ['image_gen'] })).body;
  const chat = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Draw a linen apron' });
  expect(chat.status).toBe(200);
  const result: any = events(chat.body).find((e) => e.type === 'tool_result');
  expect(result.status).toBe('success');
  expect(result.result.data).toHaveLength(1);
  expect(result.result.data[0]).toMatchObject({ content_type: 'image/png', filename: 'generated-1.png', width: 4 });
  expect(images.requests[0]).toMatchObject({ path: '/v1/images/generations', json: { prompt: 'a linen apron' } });
  expect(Buffer.from(await served(h, result.result.data[0].url)).equals(Buffer.from(pic))).toBe(true);
});
