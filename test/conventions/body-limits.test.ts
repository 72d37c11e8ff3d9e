/**
 * Issue 36: every request-body limit is enforced while the body is read. A client streaming more
 * than a route takes is cut off at the limit (the server never reads, nor keeps, the rest) and
 * answered 413; the whole server's memory stays flat when 20 clients each send 100 MiB.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import { createApp } from '../../core/http/app';
import { BODY_LIMITS, SERVER_BODY_CAP } from '../../core/http/limits';
import { action, definePlugin } from '../../core/plugins/contract';
import { product, setup, type Harness } from '../kit/setup';

const MiB = 1024 * 1024;

/** A route taking a multipart upload (no plugin has one yet): answers the sizes of its files. */
const uploads = definePlugin({
  name: 'uploads',
  category: 'platform',
  scopes: { read: ['products', 'products:read'], write: ['products', 'products:write'] },
  actions: {
    upload: action({
      kind: 'write',
      description: 'Takes files, answers their sizes.',
      input: Type.Object({ form: Type.Optional(Type.Any()) }, { additionalProperties: true }),
      output: Type.Object({ sizes: Type.Array(Type.Number()) }),
      rest: { method: 'POST', path: '/uploads', body: 'multipart' },
      handler: async (_ctx, input) => ({ sizes: [...(input.form as FormData).values()].map((v) => (v as unknown as File).size) }),
    }),
  },
});

let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: [uploads] });
}, 120_000);

/** A body of `total` bytes that arrives in chunks, with no Content-Length; counts what was pulled. */
function streamed(total: number, prefix = '') {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  const pulled = { bytes: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (pulled.bytes >= total) return c.close();
      const next = pulled.bytes === 0 && prefix ? new TextEncoder().encode(prefix) : chunk;
      pulled.bytes += next.byteLength;
      c.enqueue(next);
    },
  });
  return { body, pulled };
}

const post = (path: string, body: BodyInit, headers: Record<string, string>) =>
  h.app.handle(
    new Request(`http://svc.test${path}`, { method: 'POST', body, headers: { 'x-api-key': h.key, ...headers }, duplex: 'half' } as RequestInit),
  );

async function expectTooLarge(res: Response, limitText: string) {
  expect(res.status).toBe(413);
  const body = (await res.json()) as any;
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large', message: `The request body exceeds ${limitText}.` });
  expect(body.error.request_id).toBe(res.headers.get('x-request-id')!);
}

describe('each limit is enforced while reading', () => {
  test('a chunked JSON body is cut off at 1 MiB: 413 envelope, the rest never read', async () => {
    const s = streamed(100 * MiB, '{"name":"');
    await expectTooLarge(await post(`${h.base}/products`, s.body, { 'content-type': 'application/json' }), '1 MiB');
    expect(s.pulled.bytes).toBeLessThan(BODY_LIMITS.json + 256 * 1024);
    // One under the limit, in many chunks, still arrives whole.
    const text = JSON.stringify(product({ description: 'x'.repeat(4000) }));
    const pieces = text.match(/[\s\S]{1,100}/g)!;
    const chunks = new ReadableStream({ pull: (c) => (pieces.length ? c.enqueue(new TextEncoder().encode(pieces.shift()!)) : c.close()) });
    const ok = await post(`${h.base}/products`, chunks, { 'content-type': 'application/json' });
    expect(ok.status).toBe(201);
  });

  test('forms (sign-in, OAuth) and raw bodies get the same 413 envelope, not a 400', async () => {
    const form = streamed(3 * MiB, 'email=');
    await expectTooLarge(await post('/auth/login', form.body, { 'content-type': 'application/x-www-form-urlencoded' }), '1 MiB');
    expect(form.pulled.bytes).toBeLessThan(BODY_LIMITS.form + 256 * 1024);
    const raw = streamed(3 * MiB, 'grant_type=');
    await expectTooLarge(await post('/v1/auth/token', raw.body, { 'content-type': 'application/x-www-form-urlencoded' }), '1 MiB');
    expect(raw.pulled.bytes).toBeLessThan(BODY_LIMITS.raw + 256 * 1024);
  });

  test('multipart uploads have a limit (10 MiB); under it the files arrive whole', async () => {
    const small = new FormData();
    small.append('file', new Blob([new Uint8Array(2 * MiB)]), 'a.bin');
    const ok = await post(`${h.base}/uploads`, small, {});
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ sizes: [2 * MiB] });
    const big = new FormData();
    big.append('file', new Blob([new Uint8Array(11 * MiB)]), 'b.bin');
    await expectTooLarge(await post(`${h.base}/uploads`, big, {}), '10 MiB');
  });

  test('an MCP message is cut off at 4 MiB while reading (413, JSON-RPC error)', async () => {
    const s = streamed(100 * MiB, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"');
    const res = await post('/agent/mcp', s.body, { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error.message).toContain('4 MiB');
    expect(s.pulled.bytes).toBeLessThan(BODY_LIMITS.mcp + 256 * 1024);
  });
});

describe('over a socket', () => {
  let server: ReturnType<ReturnType<typeof createApp>['listen']>;
  let url = '';
  beforeAll(() => {
    server = createApp(h.svc).listen({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: SERVER_BODY_CAP });
    url = `http://127.0.0.1:${server.server!.port}`;
  });
  afterAll(() => server.stop(true));

  const send = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    fetch(url + path, {
      method: 'POST',
      body,
      headers: { 'x-api-key': h.key, 'content-type': 'application/json', ...headers },
      duplex: 'half',
    } as RequestInit)
      .then(async (r) => ({ status: r.status, text: await r.text() }))
      .catch((e: Error) => ({ status: 0, text: e.message }));

  test('a declared Content-Length over the limit is refused unread, with the envelope however large the body', async () => {
    // 11 MiB is over every limit (Bun's default cap would answer it with a bare 413), 200 MiB over Bun's default cap.
    for (const size of [2 * MiB, 11 * MiB, 200 * MiB]) {
      const res = await send(`${h.base}/products`, new Uint8Array(size));
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text).error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
    }
    const mcp = await send('/agent/mcp', new Uint8Array(11 * MiB), { accept: 'application/json, text/event-stream' });
    expect(mcp.status).toBe(413);
    expect(JSON.parse(mcp.text).error.message).toContain('4 MiB');
  });

  test('20 clients each sending 100 MiB: every one gets 413 and memory stays flat', async () => {
    const rss = () => process.memoryUsage.rss();
    Bun.gc(true);
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
    // The clients run in their own process: what grows here is the server's memory alone.
    const paths = Array.from({ length: 20 }, (_, i) => (i % 4 === 3 ? '/agent/mcp' : `${h.base}/products`));
    const flood = Bun.spawn([process.execPath, join(import.meta.dir, '..', 'kit', 'body-flood.ts'), url, h.key, ...paths], { stdout: 'pipe' });
    const statuses = JSON.parse(await new Response(flood.stdout).text());
    clearInterval(sampler);
    peak = Math.max(peak, rss());
    const grew = (peak - before) / MiB;
    console.log(
      `body-limits: server RSS before ${(before / MiB).toFixed(0)} MiB, peak while 20 clients sent 100 MiB each ${(peak / MiB).toFixed(0)} MiB (+${grew.toFixed(0)} MiB)`,
    );
    expect(statuses).toEqual(Array(20).fill(413));
    // Reading the bodies whole would add up to 2,000 MiB; the limits bound it to the in-flight chunks.
    expect(grew).toBeLessThan(150);
  }, 60_000);
});
