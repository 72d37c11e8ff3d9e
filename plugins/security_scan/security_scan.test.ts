import { afterEach, beforeAll, expect, test } from 'bun:test';
import { createServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setup } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { testCerts } from '../../test/kit/webhook-receiver';
import { events, fakeServer, openai } from '../../test/kit/fake-models';

/** security_scan against sites served on 127.0.0.1 over http and https (issue 47). */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
const allow = process.env.SVC_EGRESS_ALLOW;
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
  if (allow === undefined) delete process.env.SVC_EGRESS_ALLOW;
  else process.env.SVC_EGRESS_ALLOW = allow;
});

async function harness(now?: string, env?: Record<string, string>) {
  process.env.SVC_EGRESS_ALLOW = '127.0.0.1,localhost';
  const h = await setup({ ...(now ? { now } : {}), ...(env ? { env } : {}) });
  const key = await h.newKey([...h.registry.grantable]);
  const call = (path: string) => h.call('GET', path, undefined, { 'x-api-key': key });
  return { h, key, call };
}

const GIT_HEAD = 'ref: refs/heads/secret-branch-7f3a\n';
const GOOD = {
  'content-security-policy': "default-src 'self'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

/** An http site on 127.0.0.1: path -> [status, headers, body]; anything else is 404. */
function site(pages: Record<string, [number, Record<string, string>, string?]>) {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const p = pages[new URL(req.url).pathname];
      if (!p) return new Response('<html>not found</html>', { status: 404, headers: { 'content-type': 'text/html' } });
      return new Response(p[2] ?? '<html>ok</html>', { status: p[0], headers: p[1] });
    },
  });
  stops.push(() => server.stop(true));
  return `http://127.0.0.1:${server.port}`;
}

const q = (url: string) => `?url=${encodeURIComponent(url)}`;

test('check_headers: a site with good headers has nothing missing; one without them lists each with its remediation', async () => {
  const { call } = await harness();
  const good = site({ '/': [200, { ...GOOD, 'content-type': 'text/html' }] });
  const r = await call(`/security-scan/headers${q(good + '/')}`);
  expect(r.status).toBe(200);
  expect(r.body.status).toBe(200);
  expect(r.body.missing).toEqual([]);
  expect(r.body.headers.map((h: any) => h.name)).toEqual([
    'Content-Security-Policy',
    'Strict-Transport-Security',
    'X-Content-Type-Options',
    'Content-Security-Policy frame-ancestors',
    'Referrer-Policy',
  ]);
  expect(r.body.headers.every((h: any) => h.present && h.remediation === null && h.severity === 'info')).toBe(true);

  const bare = site({ '/': [200, { 'content-type': 'text/html', 'x-content-type-options': 'sniff-away' }] });
  const b = await call(`/security-scan/headers${q(bare + '/')}`);
  expect(b.status).toBe(200);
  expect(b.body.missing).toEqual(['Content-Security-Policy', 'Strict-Transport-Security', 'X-Frame-Options', 'Referrer-Policy']);
  const byName = Object.fromEntries(b.body.headers.map((h: any) => [h.name, h]));
  expect(byName['Content-Security-Policy']).toMatchObject({ present: false, value: null, severity: 'high' });
  expect(byName['X-Content-Type-Options']).toMatchObject({ present: true, value: 'sniff-away', severity: 'medium' });
  expect(byName['X-Frame-Options'].remediation).toContain('frame-ancestors');
});

test('scan_url: an exposed /.git/HEAD is a critical finding whose content never appears; cookie flags are judged', async () => {
  const { call } = await harness();
  const base = site({
    '/': [200, { 'content-type': 'text/html', 'set-cookie': 'sid=abc; Path=/', 'x-frame-options': 'DENY' }],
    '/.git/HEAD': [200, { 'content-type': 'text/plain' }, GIT_HEAD],
    // A catch-all page answering 200 for /.env is not plausible content: not an exposure.
    '/.env': [200, { 'content-type': 'text/html' }, '<html><body>Welcome</body></html>'],
  });
  const r = await call(`/security-scan/scan${q(base + '/')}`);
  expect(r.status).toBe(200);
  expect(JSON.stringify(r.body)).not.toContain('secret-branch');
  expect(r.body.tls).toBeNull();
  expect(r.body.https_redirect).toBe(false);
  expect(r.body.exposures).toEqual([
    { path: '/.git/HEAD', status: 200, exposed: true },
    { path: '/.env', status: 200, exposed: false },
    { path: '/.DS_Store', status: 404, exposed: false },
    { path: '/server-status', status: 404, exposed: false },
  ]);
  expect(r.body.cookies).toEqual([{ name: 'sid', secure: false, http_only: false, same_site: null }]);
  const ids = r.body.findings.map((f: any) => f.id);
  expect(ids).toContain('exposure:/.git/HEAD');
  expect(ids).toContain('https');
  expect(ids).toContain('cookie:sid');
  expect(ids).not.toContain('header:X-Frame-Options');

  const rep = await call(`/security-scan/report${q(base + '/')}`);
  expect(rep.status).toBe(200);
  expect(JSON.stringify(rep.body)).not.toContain('secret-branch');
  expect(rep.body.groups[0].severity).toBe('critical');
  expect(rep.body.groups[0].findings.map((f: any) => f.id)).toEqual(['exposure:/.git/HEAD']);
  expect(rep.body.groups.map((g: any) => g.severity)).toEqual(['critical', 'high', 'medium', 'low']);
  expect(rep.body.total).toBe(r.body.findings.length);
  expect(rep.body.groups.every((g: any) => g.findings.every((f: any) => f.remediation.length > 10))).toBe(true);
});

test('scan_url over https: TLS version, expiry and chain, an untrusted certificate reported; http redirects to https', async () => {
  // The test certificate lasts 2 days from now: the store's clock is set to now to see it expire soon.
  const { call } = await harness(new Date().toISOString());
  const { dir } = testCerts();
  const tlsServer = createServer({ key: readFileSync(join(dir, 'leaf.key')), cert: readFileSync(join(dir, 'leaf.pem')) }, (_, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html>secure</html>');
  });
  await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
  stops.push(() => (tlsServer.close(), tlsServer.closeAllConnections()));
  const port = (tlsServer.address() as { port: number }).port;
  const r = await call(`/security-scan/scan${q(`https://localhost:${port}/`)}`);
  expect(r.status).toBe(200);
  expect(r.body.tls.version).toMatch(/^TLSv1\.[23]$/);
  expect(r.body.tls.trusted).toBe(false); // the test CA is not in the system store
  expect(r.body.tls.chain[0]).toMatchObject({ subject: 'localhost', issuer: 'svc egress test CA' });
  expect(r.body.tls.days_left).toBeLessThanOrEqual(2);
  const ids = r.body.findings.map((f: any) => f.id);
  expect(ids).toContain('tls:untrusted');
  expect(ids).toContain('tls:expiry');

  // The http site answers every request with a redirect to the https one.
  const redirecting = site({ '/': [301, { location: `https://localhost:${port}/` }] });
  const s = await call(`/security-scan/scan${q(redirecting + '/')}`);
  expect(s.status).toBe(200);
  expect(s.body.https_redirect).toBe(true);
  expect(s.body.findings.map((f: any) => f.id)).not.toContain('https');
});

test('a private address is refused without SVC_EGRESS_ALLOW', async () => {
  const { call } = await harness();
  const base = site({ '/': [200, GOOD] });
  process.env.SVC_EGRESS_ALLOW = '';
  for (const path of ['headers', 'scan', 'report']) {
    const r = await call(`/security-scan/${path}${q(base + '/')}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('egress_blocked');
  }
});

test('over MCP: the security_scan tool checks headers', async () => {
  const { h, key } = await harness();
  const { 'referrer-policy': _, ...noReferrer } = GOOD;
  const base = site({ '/': [200, noReferrer] });
  const { client } = await mcpClient(h, { key });
  try {
    const r: any = await client.callTool({ name: 'security_scan', arguments: { action: 'check_headers', url: base + '/' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.missing).toEqual(['Referrer-Policy']);
  } finally {
    await client.close();
  }
});

test('through agent chat: the model asks security_scan to check headers and sees the missing one', async () => {
  const { 'content-security-policy': _, ...noCsp } = GOOD;
  const base = site({ '/': [200, noCsp] });
  const model = fakeServer([
    openai.tools({ name: 'security_scan', input: { action: 'check_headers', url: base + '/' } }),
    openai.text('Add a Content-Security-Policy.'),
  ]);
  stops.push(() => model.stop());
  const { h, key } = await harness(undefined, { OPENAI_BASE_URL: `${model.url}/v1` });
  const agent = (await h.call('POST', '/agents', { name: 'Auditor', model: 'openai/gpt-test', tools: ['security_scan'] })).body;
  const chat = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Are my headers fine?' }, { 'x-api-key': key });
  expect(chat.status).toBe(200);
  const result = events(chat.body).find((e) => e.type === 'tool_result');
  expect(result).toMatchObject({ status: 'success', result: { object: 'header_check', missing: ['Content-Security-Policy', 'X-Frame-Options'] } });
});
