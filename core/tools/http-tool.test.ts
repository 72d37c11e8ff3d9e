/**
 * HTTP tools against a real HTTPS server on 127.0.0.1 (allowed explicitly: loopback is blocked by
 * default), with a throwaway CA's certificate for localhost.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { localTls, serveTls } from '../../test/kit/tool-egress';
import { testCerts } from '../../test/kit/webhook-receiver';
import { fillSecrets, runHttpTool, secretRefs, type HttpToolConfig, type RunOptions } from './http-tool';

let LOCAL: RunOptions;
const TOKEN = 'tok_9f8e7d6c5b4a';
const KEY = 'k3y/with spaces';

// What the server saw on its last request.
let seen: { method: string; path: string; query: Record<string, string[]>; headers: Record<string, string>; body: string } | null = null;
let server: ReturnType<typeof serveTls>;
let base: string;

beforeAll(() => void testCerts(), 60_000); // openssl takes a few seconds
beforeAll(() => {
  LOCAL = localTls();
  server = serveTls(async (req) => {
    const u = new URL(req.url);
    const query: Record<string, string[]> = {};
    for (const k of new Set(u.searchParams.keys())) query[k] = u.searchParams.getAll(k);
    seen = { method: req.method, path: u.pathname, query, headers: Object.fromEntries(req.headers), body: await req.text() };
    switch (u.pathname) {
      case '/json':
        return Response.json({ ok: true, got: seen.body ? JSON.parse(seen.body) : null });
      case '/echo-headers': // an endpoint that reflects the request, secrets included
        return Response.json({ headers: seen.headers, query, note: `auth was ${seen.headers.authorization}` });
      case '/fail':
        return new Response(`upstream broke (auth ${req.headers.get('authorization')}) ` + 'x'.repeat(500), { status: 502 });
      case '/slow':
        await Bun.sleep(2000);
        return Response.json({ late: true });
      case '/big':
        return new Response('y'.repeat(1024 * 1024 + 10));
      case '/text':
        return new Response(`plain ${TOKEN}`, { headers: { 'content-type': 'text/plain' } });
      case '/empty':
        return new Response(null, { status: 204 });
      case '/redirect':
        return new Response(null, { status: 302, headers: { location: '/json' } });
    }
    return new Response('no route', { status: 404 });
  });
  base = server.url;
});
afterAll(() => server.server.stop(true));

const run = (cfg: Partial<HttpToolConfig>, input: unknown = { q: 1 }, secrets: Record<string, string> = {}) =>
  runHttpTool({ url: `${base}/json`, ...cfg }, input, secrets, LOCAL);

describe('templates', () => {
  test('bare and prefixed references, spaces allowed, single pass', () => {
    const s = { A: 'x', B_2: '{{A}}' };
    expect(fillSecrets('{{A}}-{{ B_2 }}', s)).toBe('x-{{A}}');
    expect(fillSecrets('{{secrets.A}}/{{ secrets.B_2 }}/{{A}}', s)).toBe('x/{{A}}/x');
    expect(secretRefs('{{A}} {{secrets.B}} {{ A }} {{C}}')).toEqual(['A', 'B', 'C']);
  });

  test('a missing secret names it', () => {
    expect(() => fillSecrets('Bearer {{API_TOKEN}}', { OTHER: 'v' })).toThrow("Secret 'API_TOKEN' is not set for this tool");
    expect(() => fillSecrets('{{secrets.toString}}', {})).toThrow("'toString'");
  });
});

describe('runHttpTool', () => {
  test('POSTs the input as JSON and returns the JSON answer', async () => {
    const input = { sku: 'A-1', qty: 2, nested: { ok: [1, 'two'] } };
    const out = await run({}, input);
    expect(out).toEqual({ status: 'success', result: { ok: true, got: input } });
    expect(seen!.method).toBe('POST');
    expect(JSON.parse(seen!.body)).toEqual(input);
    expect(seen!.headers['content-type']).toBe('application/json');
    expect(seen!.headers.accept).toBe('application/json');
    expect(seen!.headers['user-agent']).toBe('svc-tools/1');
  });

  test('secrets are injected into headers and URL (both styles)', async () => {
    const secrets = { API_TOKEN: TOKEN, KEY };
    const out = await run({ url: `${base}/json?key={{KEY}}`, headers: { Authorization: 'Bearer {{ API_TOKEN }}' } }, {}, secrets);
    expect(out.status).toBe('success');
    expect(seen!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // Filled in as written (not percent-encoded), so a secret may also hold a URL part.
    expect(seen!.query.key).toEqual([KEY]);
    await run({ url: `${base}/json?t={{secrets.API_TOKEN}}`, headers: { 'X-Api-Key': '{{secrets.API_TOKEN}}' } }, {}, secrets);
    expect(seen!.headers['x-api-key']).toBe(TOKEN);
    expect(seen!.query.t).toEqual([TOKEN]);
  });

  test('GET puts top-level scalars in the query, after the configured ones, with no body', async () => {
    const out = await run(
      { url: `${base}/json?t={{T}}#frag`, method: 'get' },
      { t: 'model', n: 3, ok: true, obj: { a: 1 }, nil: null },
      { T: TOKEN },
    );
    expect(out).toEqual({ status: 'success', result: { ok: true, got: null } });
    expect(seen!.method).toBe('GET');
    expect(seen!.query).toEqual({ t: [TOKEN, 'model'], n: ['3'], ok: ['true'] });
  });

  test('a missing secret is an error naming it, and nothing is sent', async () => {
    seen = null;
    const out = await run({ headers: { Authorization: 'Bearer {{API_TOKEN}}' } });
    expect(out).toEqual({ status: 'error', message: expect.stringContaining("Secret 'API_TOKEN' is not set") });
    expect(seen).toBeNull();
  });

  test('non-2xx: error with the status and the start of the body, secret redacted', async () => {
    const out = await run({ url: `${base}/fail`, headers: { Authorization: '{{T}}' } }, {}, { T: TOKEN });
    expect(out.status).toBe('error');
    const msg = (out as { message: string }).message;
    expect(msg).toStartWith('HTTP 502 from the tool endpoint: upstream broke (auth [redacted]) xxx');
    expect(msg).not.toContain(TOKEN);
    expect(msg.length).toBeLessThan(260);
    expect(await run({ url: `${base}/nope` })).toEqual({ status: 'error', message: 'HTTP 404 from the tool endpoint: no route' });
  });

  test('redirects are reported, not followed (a header secret must not go to another host)', async () => {
    expect(await run({ url: `${base}/redirect` })).toEqual({ status: 'error', message: 'HTTP 302 from the tool endpoint.' });
  });

  test('timeout_ms: a slow endpoint is a timeout, quickly', async () => {
    const started = performance.now();
    const out = await run({ url: `${base}/slow`, timeout_ms: 300 });
    const elapsed = performance.now() - started;
    expect(out).toEqual({ status: 'timeout', message: expect.stringContaining('300 ms') });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1000);
  });

  test('a loopback address is blocked unless allowed, and the message hides a secret in the URL', async () => {
    const out = await runHttpTool({ url: `${base}/json?k={{K}}` }, {}, { K: TOKEN });
    expect(out).toEqual({ status: 'error', message: expect.stringContaining('SVC_EGRESS_ALLOW') });
    const host = await runHttpTool(
      { url: 'https://{{H}}/x' },
      {},
      { H: 'Tenant-Secret-Host.invalid' },
      {
        resolver: async () => ['10.0.0.1'],
      },
    );
    expect(host.status).toBe('error');
    expect((host as { message: string }).message).toContain('[redacted]');
    expect((host as { message: string }).message.toLowerCase()).not.toContain('tenant-secret-host');
  });

  test('an endpoint echoing secrets gets them redacted in the result', async () => {
    const secrets = { T: TOKEN, K: KEY };
    const out = await run({ url: `${base}/echo-headers?k={{K}}`, headers: { Authorization: 'Bearer {{T}}', 'X-Key': '{{K}}' } }, {}, secrets);
    expect(out.status).toBe('success');
    const text = JSON.stringify(out);
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('k3y');
    expect((out as { result: { note: string } }).result.note).toBe('auth was Bearer [redacted]');
    const plain = await run({ url: `${base}/text` }, {}, secrets);
    expect(plain).toEqual({ status: 'success', result: { text: 'plain [redacted]' } });
  });

  test('empty body is null; a body over 1 MiB is an error', async () => {
    expect(await run({ url: `${base}/empty` })).toEqual({ status: 'success', result: null });
    expect(await run({ url: `${base}/big` })).toEqual({ status: 'error', message: expect.stringContaining('larger than 1 MiB') });
  });

  test('invalid URL and unsupported method are errors', async () => {
    const scheme = await run({ url: '{{S}}://host/x' }, {}, { S: 'SchemeSecret' });
    expect(scheme).toEqual({ status: 'error', message: 'tool URL must use https, not [redacted].' });
    // Plain http is refused at run time too (a tool saved before the https rule): headers carry secrets.
    expect(await run({ url: base.replace('https:', 'http:') })).toEqual({ status: 'error', message: 'tool URL must use https, not http.' });
    expect(await run({ url: 'not a url' })).toEqual({ status: 'error', message: 'tool URL is not a valid absolute URL.' });
    expect(await run({ method: 'TRACE' })).toEqual({ status: 'error', message: expect.stringContaining("Unsupported HTTP method 'TRACE'") });
  });
});
