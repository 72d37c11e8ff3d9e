import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { setup, type Harness } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { encodeImage } from './codecs';

/**
 * media in an S3-compatible bucket (issue 47): the bytes go to the bucket, never to the data
 * directory; URLs stay svc's; a bucket that does not answer loses nothing and writes no row. The
 * bucket is s3rver, a local server speaking S3's REST protocol, on 127.0.0.1.
 */
const bucketDir = mkdtempSync(join(tmpdir(), 'svc-s3rver-'));
const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: bucketDir, configureBuckets: [{ name: 'svc-media', configs: [] }] });
let endpoint = '';
beforeAll(async () => {
  await sharedDb();
  const info = (await s3.run()) as { port: number };
  endpoint = `http://127.0.0.1:${info.port}`;
}, 60_000);
afterAll(async () => {
  await s3.close();
  rmSync(bucketDir, { recursive: true, force: true });
});

const bucket = () => new Bun.S3Client({ bucket: 'svc-media', endpoint, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
const s3Env = (at = endpoint) => ({
  SVC_S3_BUCKET: 'svc-media',
  SVC_S3_ENDPOINT: at,
  SVC_S3_REGION: 'us-east-1',
  SVC_S3_ACCESS_KEY_ID: 'S3RVER',
  SVC_S3_SECRET_ACCESS_KEY: 'S3RVER',
});

async function picture(width = 8, height = 6) {
  const data = new Uint8ClampedArray(width * height * 4).fill(200);
  return encodeImage('png', { data, width, height }, 90);
}

async function fetchUrl(h: Harness, url: string) {
  const u = new URL(url);
  const res = await h.app.handle(new Request(`http://svc.test${u.pathname}${u.search}`));
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

test('upload, serve, transform and delete with the bytes in the bucket, none in the data directory', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-media-'));
  const h = await setup({ env: { SVC_DATA_DIR: dataDir, ...s3Env() } });
  const png = await picture();
  const up = await h.call('POST', '/media', { data: Buffer.from(png).toString('base64'), filename: 'shirt.png', visibility: 'private' });
  expect(up.status).toBe(201);
  const key = `media/${h.store.id}/${up.body.id}`;
  expect(Buffer.from(await bucket().file(key).bytes()).equals(Buffer.from(png))).toBe(true);
  expect(existsSync(join(dataDir, 'media'))).toBe(false);
  // The URL is svc's, signed; the bucket itself is never handed out.
  expect(up.body.url).toContain(`/media/${h.store.id}/${up.body.id}/shirt.png?expires=`);
  const got = await fetchUrl(h, up.body.url);
  expect(got.status).toBe(200);
  expect(Buffer.from(got.bytes).equals(Buffer.from(png))).toBe(true);

  const small = await h.call('POST', `/media/${up.body.id}/transform`, { width: 4, format: 'jpeg' });
  expect(small.status).toBe(201);
  expect(small.body).toMatchObject({ width: 4, height: 3, content_type: 'image/jpeg', filename: 'shirt-4x3.jpg' });
  expect(await bucket().file(`media/${h.store.id}/${small.body.id}`).exists()).toBe(true);

  const del = await h.call('DELETE', `/media/${up.body.id}`);
  expect(del.status).toBe(200);
  // The asset and its transform leave the bucket with their rows.
  expect(await bucket().file(key).exists()).toBe(false);
  expect(await bucket().file(`media/${h.store.id}/${small.body.id}`).exists()).toBe(false);
  expect((await fetchUrl(h, up.body.url)).status).toBe(404);
});

test('a bucket that does not answer: 502 provider_error naming it, and no asset is recorded', async () => {
  // A port nothing listens on: the connection is refused at once.
  const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const deadEndpoint = `http://127.0.0.1:${closed.port}`;
  closed.stop(true);
  const h = await setup({ env: { SVC_DATA_DIR: mkdtempSync(join(tmpdir(), 'svc-media-')), ...s3Env(deadEndpoint) } });
  const r = await h.call('POST', '/media', { data: Buffer.from(await picture()).toString('base64') });
  expect(r.status).toBe(502);
  expect(r.body.error.code).toBe('provider_error');
  expect(r.body.error.message).toContain("'svc-media'");
  expect((await h.call('GET', '/media')).body.data).toEqual([]);
});
