/**
 * Behaviour of the egress guard against real servers on 127.0.0.1 only. Every
 * "private address" case must be refused before fetch is called: a spy on
 * globalThis.fetch records every URL the guard hands to Bun, and those must all be
 * 127.0.0.1 (nothing else may ever be contacted on this machine).
 */
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from 'bun:test';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { egressFetch, systemResolver, type EgressInit } from './egress';
import { LOCAL, fixed, refusal } from '../../test/kit/egress';

let fetchSpy: ReturnType<typeof spyOn<typeof globalThis, 'fetch'>>;
const fetched = () => fetchSpy.mock.calls.map((c) => new URL(String(c[0])).hostname);
afterEach(() => fetchSpy.mockClear());

// Plain HTTP server with the routes the tests need.
let http: ReturnType<typeof Bun.serve>;
let base: string;
let port: number;
// Accepts connections and never answers.
let silent: NetServer;
let silentPort: number;
const silentSockets: Socket[] = [];

beforeAll(async () => {
  fetchSpy = spyOn(globalThis, 'fetch');
  http = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const redirect = (status: number, location: string) => new Response(null, { status, headers: { location } });
      switch (u.pathname) {
        case '/echo':
          return Response.json({
            method: req.method,
            body: await req.text(),
            host: req.headers.get('host'),
            auth: req.headers.get('authorization'),
            type: req.headers.get('content-type'),
          });
        case '/to-private':
          return redirect(302, 'http://10.0.0.1/');
        case '/to-metadata-name':
          return redirect(302, 'http://evil.example/latest/meta-data/');
        case '/to-echo':
          return redirect(Number(u.searchParams.get('status')), '/echo');
        case '/to-other-origin':
          return redirect(302, `http://other.test:${port}/echo`);
        case '/loop':
          return redirect(302, '/loop');
        case '/to-ftp':
          return redirect(302, 'ftp://files.example/');
        case '/big':
          return new Response(new Uint8Array(Number(u.searchParams.get('n'))).fill(120));
        case '/endless':
          // Never ends: the guard must stop reading at the cap and cancel.
          return new Response(
            new ReadableStream({
              pull: async (c) => {
                await Bun.sleep(1);
                c.enqueue(new Uint8Array(16 * 1024).fill(121));
              },
            }),
          );
        case '/stall-body':
          return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('partial')) }));
        default:
          return new Response('ok');
      }
    },
  });
  port = http.port!;
  base = `http://127.0.0.1:${port}`;
  silent = createNetServer((s) => silentSockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentPort = (silent.address() as { port: number }).port;
});

afterAll(() => {
  fetchSpy.mockRestore();
  http.stop(true);
  for (const s of silentSockets) s.destroy();
  silent.close();
});

describe('addresses are checked after DNS resolution, before any connect', () => {
  test.each([
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['fd00:ec2::254', 'cloud metadata'],
    ['100.64.1.1', 'shared (CGNAT)'],
  ])('a public-looking name resolving to %s is refused', async (addr, why) => {
    const e = await refusal(egressFetch('https://evil.example/hook', { resolver: fixed(addr), allow: [], purpose: 'webhook' }));
    expect(e.code).toBe('egress_blocked');
    expect(e.host).toBe('evil.example');
    expect(e.message).toStartWith('webhook URL host evil.example resolves to ');
    expect(e.message).toBe(`webhook URL host evil.example resolves to ${e.address}, a ${why} address; allow it with SVC_EGRESS_ALLOW.`);
    expect(fetched()).toEqual([]);
  });

  test('a name with one public and one private address is refused (no address is tried)', async () => {
    const e = await refusal(egressFetch('https://mixed.example/', { resolver: fixed('93.184.216.34', '10.0.0.5'), allow: [] }));
    expect(e.code).toBe('egress_blocked');
    expect(e.address).toBe('10.0.0.5');
    expect(fetched()).toEqual([]);
  });

  test('an answer that is not an IP address is refused', async () => {
    const e = await refusal(egressFetch('http://odd.example/', { resolver: fixed('fe80::1%eth0'), allow: [] }));
    expect(e.code).toBe('egress_blocked');
    expect(fetched()).toEqual([]);
  });

  test('a name that does not resolve fails as egress_failed', async () => {
    const resolver = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    const e = await refusal(egressFetch('http://nx.example/', { resolver, allow: [] }));
    expect(e.code).toBe('egress_failed');
    expect(e.message).toBe('Could not resolve nx.example (ENOTFOUND).');
  });

  test('the default resolver is node:dns lookup (localhost is loopback, refused unless allowed)', async () => {
    expect(await systemResolver('localhost')).toContain('127.0.0.1');
    const e = await refusal(egressFetch(`http://localhost:${port}/`, { allow: [] }));
    expect(e.code).toBe('egress_blocked');
    expect(fetched()).toEqual([]);
  });
});

describe('the allow list', () => {
  test('SVC_EGRESS_ALLOW=127.0.0.1 lets a local server answer', async () => {
    const saved = process.env.SVC_EGRESS_ALLOW;
    process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
    try {
      const r = await egressFetch(`${base}/hello`);
      expect(r.status).toBe(200);
      expect(r.text()).toBe('ok');
      expect(r.remoteAddress).toBe('127.0.0.1');
      process.env.SVC_EGRESS_ALLOW = '';
      expect((await refusal(egressFetch(`${base}/hello`))).code).toBe('egress_blocked');
    } finally {
      process.env.SVC_EGRESS_ALLOW = saved;
    }
  });

  test('the allow option takes CIDRs and host names', async () => {
    expect((await egressFetch(`${base}/`, { allow: ['127.0.0.0/8'] })).status).toBe(200);
    const r = await egressFetch(`http://Internal.Test:${port}/`, { allow: ['internal.test'], resolver: fixed('127.0.0.1') });
    expect(r.status).toBe(200);
  });
});

describe('the connection goes to the address that was checked', () => {
  test('the resolver is asked once and fetch receives the checked IP with the original Host header', async () => {
    let calls = 0;
    // A rebinding DNS server: harmless first, private afterwards.
    const resolver = async () => (++calls === 1 ? ['127.0.0.1'] : ['10.9.9.9']);
    const r = await egressFetch(`http://rebind.test:${port}/echo`, { resolver, allow: LOCAL });
    expect(calls).toBe(1);
    expect(r.remoteAddress).toBe('127.0.0.1');
    expect(JSON.parse(r.text()).host).toBe(`rebind.test:${port}`);
    expect(r.url).toBe(`http://rebind.test:${port}/echo`);
    // Bun never saw the name, so it had nothing to resolve again.
    expect(fetched()).toEqual(['127.0.0.1']);
  });

  test('if connecting to one checked address fails, the next checked address is tried', async () => {
    const r = await egressFetch(`http://two.test:${port}/`, { resolver: fixed('::1', '127.0.0.1'), allow: ['::1', '127.0.0.1'] });
    expect(r.remoteAddress).toBe('127.0.0.1');
    expect(fetched()).toEqual(['[::1]', '127.0.0.1']);
  });
});

describe('redirects are followed by hand and every hop is checked', () => {
  test('a redirect to a private IP is refused before anything connects to it', async () => {
    const e = await refusal(egressFetch(`${base}/to-private`, { allow: LOCAL, purpose: 'webhook' }));
    expect(e.code).toBe('egress_blocked');
    expect(e.address).toBe('10.0.0.1');
    expect(e.message).toBe('webhook redirect URL host 10.0.0.1 is a private address; allow it with SVC_EGRESS_ALLOW.');
    expect(fetched()).toEqual(['127.0.0.1']);
  });

  test('a redirect to a name that resolves to the metadata address is refused', async () => {
    const resolver = async (h: string) => (h === 'evil.example' ? ['169.254.169.254'] : ['127.0.0.1']);
    const e = await refusal(egressFetch(`${base}/to-metadata-name`, { allow: LOCAL, resolver }));
    expect(e.code).toBe('egress_blocked');
    expect(e.message).toBe('URL redirect target evil.example resolves to 169.254.169.254, a cloud metadata address; allow it with SVC_EGRESS_ALLOW.');
    expect(fetched()).toEqual(['127.0.0.1']);
  });

  test('each hop resolves again, so a name that rebinds between hops is refused', async () => {
    let calls = 0;
    const resolver = async () => (++calls === 1 ? ['127.0.0.1'] : ['192.168.1.1']);
    const e = await refusal(egressFetch(`http://rebind.test:${port}/to-echo?status=302`, { resolver, allow: LOCAL }));
    expect(e.address).toBe('192.168.1.1');
    expect(calls).toBe(2);
  });

  test.each([
    [301, 'GET', ''],
    [302, 'GET', ''],
    [303, 'GET', ''],
    [307, 'POST', '{"a":1}'],
    [308, 'POST', '{"a":1}'],
  ])('a POST answered by %i arrives as %s', async (status, method, body) => {
    const r = await egressFetch(`${base}/to-echo?status=${status}`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
      allow: LOCAL,
    });
    const echo = JSON.parse(r.text());
    expect(echo.method).toBe(method);
    expect(echo.body).toBe(body);
    expect(echo.type).toBe(body ? 'application/json' : null);
    expect(r.redirects).toBe(1);
    expect(r.url).toBe(`${base}/echo`);
  });

  test('Authorization is dropped on a cross-origin redirect and kept on a same-origin one', async () => {
    const init: EgressInit = { headers: { authorization: 'Bearer s3cret' }, allow: LOCAL, resolver: fixed('127.0.0.1') };
    expect(JSON.parse((await egressFetch(`${base}/to-echo?status=302`, init)).text()).auth).toBe('Bearer s3cret');
    const cross = JSON.parse((await egressFetch(`${base}/to-other-origin`, init)).text());
    expect(cross.auth).toBeNull();
    expect(cross.host).toBe(`other.test:${port}`);
  });

  test('more than 5 redirects fail', async () => {
    const e = await refusal(egressFetch(`${base}/loop`, { allow: LOCAL }));
    expect(e.code).toBe('egress_failed');
    expect(e.message).toBe('URL redirected more than 5 times.');
    expect(fetched().length).toBe(6);
  });

  test('a redirect to a non-http scheme is refused', async () => {
    expect((await refusal(egressFetch(`${base}/to-ftp`, { allow: LOCAL }))).code).toBe('egress_invalid_url');
  });
});

describe('response size cap', () => {
  test('a body over maxBytes is cut and marked truncated', async () => {
    const r = await egressFetch(`${base}/big?n=5000`, { allow: LOCAL, maxBytes: 1000 });
    expect(r.body.byteLength).toBe(1000);
    expect(r.truncated).toBe(true);
  });
  test('the default cap is 1 MiB', async () => {
    const r = await egressFetch(`${base}/big?n=${1.5 * 1024 * 1024}`, { allow: LOCAL });
    expect(r.body.byteLength).toBe(1024 * 1024);
    expect(r.truncated).toBe(true);
  });
  test('a body under the cap is whole', async () => {
    const r = await egressFetch(`${base}/big?n=10`, { allow: LOCAL, maxBytes: 10 });
    expect(r.text()).toBe('xxxxxxxxxx');
    expect(r.truncated).toBe(false);
  });
  test('an endless body stops at the cap instead of waiting for the end', async () => {
    const r = await egressFetch(`${base}/endless`, { allow: LOCAL, maxBytes: 100_000, timeoutMs: 5000 });
    expect(r.body.byteLength).toBe(100_000);
    expect(r.truncated).toBe(true);
  });
});

describe('timeout', () => {
  test('a server that accepts and never answers times out', async () => {
    const t0 = performance.now();
    const e = await refusal(egressFetch(`http://127.0.0.1:${silentPort}/`, { allow: LOCAL, timeoutMs: 300 }));
    expect(e.code).toBe('egress_timeout');
    expect(e.retryable).toBe(true);
    expect(e.message).toBe('URL 127.0.0.1 did not answer within 300 ms.');
    expect(performance.now() - t0).toBeLessThan(2000);
  });
  test('a body that stops arriving times out (the budget covers the read)', async () => {
    const e = await refusal(egressFetch(`${base}/stall-body`, { allow: LOCAL, timeoutMs: 300 }));
    expect(e.code).toBe('egress_timeout');
  });
  test('a resolver that never answers times out', async () => {
    const e = await refusal(egressFetch('http://slow.example/', { allow: LOCAL, timeoutMs: 200, resolver: () => new Promise(() => {}) }));
    expect(e.code).toBe('egress_timeout');
  });
});
