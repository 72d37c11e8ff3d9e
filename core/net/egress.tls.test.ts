/**
 * HTTPS through the egress guard: the socket goes to the checked IP while SNI and the
 * certificate check use the URL's host name. Servers listen on 127.0.0.1 only; the
 * certificate is made by openssl for a throwaway CA (testkit.makeTestCa).
 */
import { afterAll, afterEach, beforeAll, describe, expect, spyOn, test } from 'bun:test';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { egressFetch } from './egress';
import { LOCAL, fixed, makeTestCa, refusal, runChild } from '../../test/kit/egress';

let fetchSpy: ReturnType<typeof spyOn<typeof globalThis, 'fetch'>>;
const fetched = () => fetchSpy.mock.calls.map((c) => new URL(String(c[0])).hostname);
beforeAll(() => {
  fetchSpy = spyOn(globalThis, 'fetch');
});
afterEach(() => fetchSpy.mockClear());
afterAll(() => fetchSpy.mockRestore());

describe('HTTPS: connect to the checked IP, verify the certificate against the name', () => {
  let dir: string;
  let ca: string;
  let tlsServer: HttpsServer;
  let tlsPort: number;
  const seen: Array<{ sni: string | undefined; host: string | undefined }> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'egress-tls-'));
    // The leaf is valid for receiver.test ONLY (no IP SAN), so a check against 127.0.0.1 would fail.
    makeTestCa(dir, 'receiver.test');
    ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    tlsServer = createHttpsServer({ key: readFileSync(join(dir, 'leaf.key')), cert: readFileSync(join(dir, 'leaf.pem')) }, (req, res) => {
      seen.push({ sni: (req.socket as { servername?: string }).servername, host: req.headers.host });
      if (req.url === '/to-http') res.writeHead(302, { location: 'http://127.0.0.1:9/echo' }).end();
      else res.end('secure hello');
    });
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    tlsPort = (tlsServer.address() as { port: number }).port;
  });
  afterAll(() => {
    tlsServer.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const receiver = () => `https://receiver.test:${tlsPort}/`;

  test('succeeds with the CA trusted; SNI and Host carry the name while the socket goes to 127.0.0.1', async () => {
    const r = await egressFetch(receiver(), { ca, resolver: fixed('127.0.0.1'), allow: LOCAL });
    expect(r.text()).toBe('secure hello');
    expect(r.remoteAddress).toBe('127.0.0.1');
    expect(seen.at(-1)).toEqual({ sni: 'receiver.test', host: `receiver.test:${tlsPort}` });
    expect(fetched()).toEqual(['127.0.0.1']);
  });

  test('fails certificate verification without the CA (the system store does not trust it)', async () => {
    const e = await refusal(egressFetch(receiver(), { resolver: fixed('127.0.0.1'), allow: LOCAL }));
    expect(e.code).toBe('egress_failed');
    expect(e.message).toContain('TLS certificate not trusted');
  });

  test('fails for another name on the same IP: the name, not the IP, is what gets verified', async () => {
    const e = await refusal(egressFetch(`https://other.test:${tlsPort}/`, { ca, resolver: fixed('127.0.0.1'), allow: LOCAL }));
    expect(e.code).toBe('egress_failed');
    expect(e.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  test('a kept-alive connection verified for one name never carries a request for another name on that address', async () => {
    // Connections are reused (no checkServerIdentity callback), so reuse must stay per name.
    const ok = await egressFetch(receiver(), { ca, resolver: fixed('127.0.0.1'), allow: LOCAL });
    expect(ok.status).toBe(200);
    const e = await refusal(egressFetch(`https://other.test:${tlsPort}/`, { ca, resolver: fixed('127.0.0.1'), allow: LOCAL }));
    expect(e.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  test('httpsOnly refuses a redirect from https down to http', async () => {
    const e = await refusal(
      egressFetch(`${receiver()}to-http`, { ca, resolver: fixed('127.0.0.1'), allow: LOCAL, httpsOnly: true, purpose: 'webhook' }),
    );
    expect(e.code).toBe('egress_invalid_url');
    expect(e.message).toBe('webhook redirect URL must use https, not http.');
    expect(fetched()).toEqual(['127.0.0.1']);
  });

  test('an IP-literal URL is verified against the IP (this cert has no IP SAN, so it fails)', async () => {
    const e = await refusal(egressFetch(`https://127.0.0.1:${tlsPort}/`, { ca, allow: LOCAL }));
    expect(e.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  // Production trust: no `ca` option, so the system store plus NODE_EXTRA_CA_CERTS,
  // which Bun reads only at process start; hence a child process.
  const child = (extraCa: string) =>
    runChild(
      `const { egressFetch } = await import(${JSON.stringify(join(import.meta.dir, 'egress.ts'))});
       const r = await egressFetch(${JSON.stringify(receiver())}, { resolver: async () => ['127.0.0.1'], allow: ['127.0.0.1'] })
         .then((r) => ({ ok: true, text: r.text() }), (e) => ({ ok: false, code: e.code, message: e.message }));
       console.log(JSON.stringify(r));`,
      { NODE_EXTRA_CA_CERTS: extraCa },
    );

  test('with NODE_EXTRA_CA_CERTS naming the CA and no ca option, a child bun process succeeds', async () => {
    expect(await child(join(dir, 'ca.pem'))).toEqual({ ok: true, text: 'secure hello' });
  });

  test('the same child without that CA fails verification', async () => {
    const r = (await child('/etc/ssl/certs/ca-certificates.crt')) as { ok: boolean; code: string };
    expect(r.ok).toBe(false);
    expect(r.code).toBe('egress_failed');
  });
});

describe('with HTTP_PROXY set', () => {
  test("Bun's fetch goes through the proxy, which is asked for the checked IP, never the name", async () => {
    const asked: string[] = [];
    const proxy: HttpServer = createHttpServer((req, res) => {
      asked.push(req.url!);
      res.end('via proxy');
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const out = await runChild(
        `const { egressFetch } = await import(${JSON.stringify(join(import.meta.dir, 'egress.ts'))});
         const r = await egressFetch('http://named.test:8080/x', { resolver: async () => ['127.0.0.1'], allow: ['127.0.0.1'] });
         console.log(JSON.stringify({ ok: true, text: r.text() }));`,
        { HTTP_PROXY: proxyUrl, http_proxy: proxyUrl, NO_PROXY: '', no_proxy: '' },
      );
      expect(out).toEqual({ ok: true, text: 'via proxy' });
      expect(asked).toEqual(['http://127.0.0.1:8080/x']);
    } finally {
      proxy.close();
    }
  });
});
