import { afterEach, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup, type Harness } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { events, fakeServer, openai } from '../../test/kit/fake-models';
import { decodeImage, encodeImage } from './codecs';

/** media (issue 47): files under the data directory, served by svc, private ones signed, images transformed by WebAssembly codecs. */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
const allow = process.env.SVC_EGRESS_ALLOW;
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
  if (allow === undefined) delete process.env.SVC_EGRESS_ALLOW;
  else process.env.SVC_EGRESS_ALLOW = allow;
});

const dataDir = () => mkdtempSync(join(tmpdir(), 'svc-media-'));
const harness = (env: Record<string, string> = {}, plan?: string) =>
  setup({ env: { SVC_DATA_DIR: dataDir(), ...env }, ...(plan ? { plan: plan as 'free' } : {}) });

/** An 8x6 picture: the left half red, the right half blue. */
async function picture(format: 'png' | 'jpeg' | 'webp' = 'png', width = 8, height = 6) {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) data.set(i % width < width / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], i * 4);
  return encodeImage(format, { data, width, height }, 90);
}

/** A multipart upload through the app, as a browser form would send it. */
async function multipart(h: Harness, bytes: Uint8Array, name: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(bytes)]), name);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await h.app.handle(new Request(`http://svc.test${h.base}/media`, { method: 'POST', headers: { 'x-api-key': h.key }, body: form }));
  return { status: res.status, body: (await res.json()) as any };
}

/** GET of an asset's URL, without any credential. */
async function fetchUrl(h: Harness, url: string) {
  const u = new URL(url);
  const res = await h.app.handle(new Request(`http://svc.test${u.pathname}${u.search}`));
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

test('multipart upload: the type is sniffed from the bytes, the URL serves them to anyone, list_media shows it', async () => {
  const h = await harness();
  const png = await picture();
  const up = await multipart(h, png, 'photo.jpg');
  expect(up.status).toBe(201);
  expect(up.body).toMatchObject({
    object: 'media',
    filename: 'photo.jpg',
    content_type: 'image/png',
    size: png.length,
    width: 8,
    height: 6,
    visibility: 'public',
    url_expires_at: null,
  });
  expect(up.body.url).toEndWith(`/media/${h.store.id}/${up.body.id}/photo.jpg`);
  const got = await fetchUrl(h, up.body.url);
  expect(got.status).toBe(200);
  expect(got.headers.get('content-type')).toBe('image/png');
  expect(Buffer.from(got.bytes).equals(Buffer.from(png))).toBe(true);
  const list = await h.call('GET', '/media');
  expect(list.body.data.map((a: any) => a.id)).toEqual([up.body.id]);
  // A name with a path in it keeps only its last part.
  const sneaky = await h.call('POST', '/media', { data: b64(new TextEncoder().encode('<svg onload="alert(1)"/>')), filename: '../../etc/x.svg' });
  expect(sneaky.status).toBe(201);
  expect(sneaky.body).toMatchObject({ filename: 'x.svg', content_type: 'image/svg+xml' });
  const svg = await fetchUrl(h, sneaky.body.url);
  expect(svg.headers.get('content-disposition')).toStartWith('attachment');
  expect(svg.headers.get('content-security-policy')).toContain('sandbox');
});

test('base64 data and source_url (through the egress guard); bad input is 400', async () => {
  const h = await harness();
  const jpeg = await picture('jpeg');
  const a = await h.call('POST', '/media', { data: b64(jpeg) });
  expect(a.status).toBe(201);
  expect(a.body).toMatchObject({ content_type: 'image/jpeg', filename: 'file.jpg', width: 8, height: 6 });
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(jpeg, { headers: { 'content-type': 'text/plain' } }) });
  stops.push(() => server.stop(true));
  const src = `http://127.0.0.1:${server.port}/pics/shoe.jpeg`;
  const refused = await h.call('POST', '/media', { source_url: src });
  expect(refused.status).toBe(400);
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
  const b = await h.call('POST', '/media', { source_url: src });
  expect(b.status).toBe(201);
  expect(b.body).toMatchObject({ filename: 'shoe.jpeg', content_type: 'image/jpeg', size: jpeg.length });
  for (const body of [{}, { data: b64(jpeg), source_url: src }, { data: '***' }, { data: '' }, { data: b64(jpeg), visibility: 'secret' }]) {
    const r = await h.call('POST', '/media', body);
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe('invalid_request_error');
  }
});

test('private assets: served only with a valid, unexpired signature; get_media gives a fresh URL', async () => {
  const h = await harness({ SVC_MEDIA_SIGNED_URL_TTL_S: '600' });
  const up = await multipart(h, await picture(), 'secret.png', { visibility: 'private', expires_in: '60' });
  expect(up.status).toBe(201);
  expect(up.body.visibility).toBe('private');
  const url = new URL(up.body.url);
  expect(url.searchParams.get('expires')).toBe(String(Math.floor(h.clock.now().getTime() / 1000) + 60));
  expect((await fetchUrl(h, up.body.url)).status).toBe(200);
  const bare = `${url.origin}${url.pathname}`;
  const forged = up.body.url.replace(/signature=./, (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A'));
  const later = up.body.url.replace(/expires=\d+/, `expires=${Number(url.searchParams.get('expires')) + 1000}`);
  for (const u of [bare, forged, later]) {
    const r = await fetchUrl(h, u);
    expect(r.status).toBe(403);
    expect(JSON.parse(new TextDecoder().decode(r.bytes)).error.code).toBe('media_signature_invalid');
  }
  h.clock.advance(61_000);
  expect((await fetchUrl(h, up.body.url)).status).toBe(403);
  const fresh = await h.call('GET', `/media/${up.body.id}`);
  expect(fresh.body.url_expires_at).toBe(new Date(Math.floor(h.clock.now().getTime() / 1000) * 1000 + 600_000).toISOString());
  expect((await fetchUrl(h, fresh.body.url)).status).toBe(200);
  const short = await h.call('GET', `/media/${up.body.id}?expires_in=5`);
  expect(new URL(short.body.url).searchParams.get('expires')).toBe(String(Math.floor(h.clock.now().getTime() / 1000) + 5));
  expect((await h.call('GET', `/media/${up.body.id}?expires_in=604801`)).status).toBe(400);
});

test('plan limits: an upload over the plan is 413, a full store 403 media_quota_exceeded; get_plan shows them', async () => {
  // free: 1 KiB uploads (0.001 MiB ~ 1048 bytes), 2,147 bytes of storage.
  const h = await harness({ SVC_MEDIA_LIMITS: 'starter=5:5,free=0.001:0.000002' }, 'free');
  const big = await h.call('POST', '/media', { data: b64(new Uint8Array(1100).fill(65)) });
  expect(big.status).toBe(413);
  expect(big.body.error.code).toBe('request_too_large');
  for (let i = 0; i < 2; i++) expect((await h.call('POST', '/media', { data: b64(new Uint8Array(1000).fill(65)) })).status).toBe(201);
  const full = await h.call('POST', '/media', { data: b64(new Uint8Array(1000).fill(65)) });
  expect(full.status).toBe(403);
  expect(full.body.error.code).toBe('media_quota_exceeded');
  expect((await h.call('GET', '/media')).body.data).toHaveLength(2);
  const plan = (await h.call('GET', '/plan')).body;
  expect(plan.limits).toMatchObject({ media_upload_bytes: 10 * 1024 * 1024, media_storage_bytes: 1024 ** 3 });
});

test('transform: resize, fit, crop and format with the WebAssembly codecs; the same parameters answer the cached copy', async () => {
  const h = await harness();
  const src = (await multipart(h, await picture('png', 8, 6), 'shoe.png')).body;
  const t = await h.call('POST', `/media/${src.id}/transform`, { width: 4, format: 'webp', quality: 70 });
  expect(t.status).toBe(201);
  expect(t.body).toMatchObject({ content_type: 'image/webp', width: null, source_id: src.id, filename: 'shoe-4x3.webp', cached: false });
  const served = await fetchUrl(h, t.body.url);
  const px = await decodeImage('webp', served.bytes);
  expect([px.width, px.height]).toEqual([4, 3]);
  // Left red, right blue, still.
  expect(px.data[0]).toBeGreaterThan(200);
  expect(px.data[(4 * 1 + 3) * 4 + 2]).toBeGreaterThan(200);
  const again = await h.call('POST', `/media/${src.id}/transform`, { format: 'webp', width: 4, quality: 70 });
  expect(again.body).toMatchObject({ id: t.body.id, cached: true });

  const cover = await h.call('POST', `/media/${src.id}/transform`, { width: 4, height: 4, fit: 'cover', format: 'jpeg' });
  expect(cover.body).toMatchObject({ content_type: 'image/jpeg', width: 4, height: 4 });
  const contain = await h.call('POST', `/media/${src.id}/transform`, { width: 8, height: 8, fit: 'contain' });
  expect(contain.body).toMatchObject({ content_type: 'image/png', width: 8, height: 8 });
  const inside = await h.call('POST', `/media/${src.id}/transform`, { width: 4, height: 4 });
  expect(inside.body).toMatchObject({ width: 4, height: 3 });
  // Crop the blue right half only.
  const crop = await h.call('POST', `/media/${src.id}/transform`, { crop: { x: 4, y: 0, width: 4, height: 6 } });
  const cpx = await decodeImage('png', (await fetchUrl(h, crop.body.url)).bytes);
  expect([cpx.width, cpx.height, cpx.data[0], cpx.data[2]]).toEqual([4, 6, 0, 255]);

  expect((await h.call('POST', `/media/${src.id}/transform`, { crop: { x: 6, y: 0, width: 4, height: 6 } })).status).toBe(400);
  expect((await h.call('POST', `/media/${src.id}/transform`, { format: 'gif' })).status).toBe(400);
  const text = (await h.call('POST', '/media', { data: b64(new TextEncoder().encode('hello')) })).body;
  const notImage = await h.call('POST', `/media/${text.id}/transform`, { width: 10 });
  expect(notImage.status).toBe(400);
  expect(notImage.body.error.param).toBe('id');
});

test('delete removes the bytes, the URL and its transforms; another store sees 404', async () => {
  const h = await harness();
  const other = await harness();
  const src = (await multipart(h, await picture(), 'a.png')).body;
  const t = (await h.call('POST', `/media/${src.id}/transform`, { width: 2 })).body;
  expect((await other.call('GET', `/media/${src.id}`)).status).toBe(404);
  expect((await other.call('DELETE', `/media/${src.id}`)).status).toBe(404);
  expect((await other.call('POST', `/media/${src.id}/transform`, { width: 2 })).status).toBe(404);
  const del = await h.call('DELETE', `/media/${src.id}`);
  expect(del.body).toEqual({ id: src.id, object: 'media', deleted: true });
  expect((await fetchUrl(h, src.url)).status).toBe(404);
  expect((await fetchUrl(h, t.url)).status).toBe(404);
  expect((await h.call('GET', `/media/${src.id}`)).status).toBe(404);
  expect((await h.call('DELETE', `/media/${src.id}`)).status).toBe(404);
  expect((await h.call('GET', '/media')).body.data).toEqual([]);
});

test('scopes: media:read lists but cannot upload; media:write uploads', async () => {
  const h = await harness();
  const reader = await h.newKey(['media:read']);
  const writer = await h.newKey(['media:write']);
  expect((await h.call('GET', '/media', undefined, { 'x-api-key': reader })).status).toBe(200);
  expect((await h.call('POST', '/media', { data: b64(await picture()) }, { 'x-api-key': reader })).status).toBe(403);
  expect((await h.call('POST', '/media', { data: b64(await picture()) }, { 'x-api-key': writer })).status).toBe(201);
});

test('every media action over MCP: upload, list_media, get_media, transform, delete', async () => {
  const h = await harness();
  const { client } = await mcpClient(h);
  const call = async (args: Record<string, unknown>) => {
    const r: any = await client.callTool({ name: 'media', arguments: args });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    return r.structuredContent;
  };
  try {
    const up = await call({ action: 'upload', data: b64(await picture()), filename: 'm.png', visibility: 'private' });
    expect(up).toMatchObject({ content_type: 'image/png', visibility: 'private' });
    expect((await call({ action: 'list_media' })).data.map((a: any) => a.id)).toEqual([up.id]);
    const got = await call({ action: 'get_media', id: up.id, expires_in: 30 });
    expect((await fetchUrl(h, got.url)).status).toBe(200);
    const t = await call({ action: 'transform', id: up.id, width: 4, format: 'jpeg' });
    expect(t).toMatchObject({ content_type: 'image/jpeg', source_id: up.id, visibility: 'private' });
    expect(await call({ action: 'delete', id: up.id })).toMatchObject({ deleted: true });
  } finally {
    await client.close();
  }
});

test('through agent chat: the model uploads a picture with the media tool; the asset is in the store', async () => {
  const model = fakeServer([
    openai.tools({ name: 'media', input: { action: 'upload', data: b64(await picture()), filename: 'chat.png' } }),
    openai.text('Uploaded.'),
  ]);
  stops.push(() => model.stop());
  const h = await harness({ OPENAI_BASE_URL: `${model.url}/v1` });
  const everything = await h.newKey([...h.registry.grantable]);
  const agent = (await h.call('POST', '/agents', { name: 'Librarian', model: 'openai/gpt-test', tools: ['media'] })).body;
  const chat = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Upload this picture' }, { 'x-api-key': everything });
  expect(chat.status).toBe(200);
  const result: any = events(chat.body).find((e) => e.type === 'tool_result');
  expect(result).toMatchObject({
    status: 'success',
    result: { object: 'media', filename: 'chat.png', content_type: 'image/png', width: 8, height: 6 },
  });
  expect((await h.call('GET', '/media')).body.data.map((a: any) => a.id)).toEqual([result.result.id]);
  expect((await fetchUrl(h, result.result.url)).headers.get('content-type')).toBe('image/png');
});
