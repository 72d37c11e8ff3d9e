import { beforeAll, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { browserLogin, readSession, saveSession, sessionCredential } from '../../core/mcp/oauth-login';
import { addUser, browser, formFields, uniqueIp } from '../kit/users';
import { product, setup, type Harness } from '../kit/setup';

/** Issue 11: `svc login --url URL` without a key (browser, loopback redirect, PKCE), and its refresh. */
let h: Harness;
let user: { email: string };
beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
  user = await addUser(h, 'owner');
}, 120_000);

/** The svc server is in process; the CLI's loopback listener is real (127.0.0.1). */
const viaApp = ((input: string | URL | Request, init?: RequestInit) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  return url.hostname === 'svc.test' ? h.app.handle(new Request(input, init)) : fetch(input, init);
}) as typeof fetch;

test('browser sign-in: the printed URL, consent, the loopback redirect, tokens kept 0600 and refreshed by themselves', async () => {
  let shown = '';
  const human = browser(h, { ip: uniqueIp() });
  await human.signIn(user.email);
  const done = browserLogin('http://svc.test', {
    fetch: viaApp,
    scope: 'products:read',
    show: (url) => {
      shown = url;
      // The human opens the URL, consents, and the browser follows the redirect to the CLI.
      void (async () => {
        const page = await human.get(url);
        const decided = await human.post('/auth/authorize', { ...formFields(page.text, '/auth/authorize'), store_id: h.store.id, decision: 'allow' });
        expect(decided.location).toStartWith('http://127.0.0.1:');
        await fetch(decided.location!);
      })();
    },
  });
  const session = await done;
  const auth = new URL(shown);
  expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
  expect(auth.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  expect(session).toMatchObject({ scope: 'products:read', store_id: h.store.id });
  expect((await h.call('GET', '/products', undefined, { authorization: `Bearer ${session.access_token}`, 'x-api-key': '' })).status).toBe(200);

  const file = join(mkdtempSync(join(tmpdir(), 'svc-session-')), '.svc', 'session.json');
  saveSession(file, { url: 'http://svc.test', oauth: session });
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const credential = sessionCredential(file, viaApp);
  expect(await credential()).toBe(session.access_token);
  // About to expire: one refresh, shared by concurrent callers, the rotated pair saved.
  saveSession(file, { url: 'http://svc.test', oauth: { ...session, expires_at: Date.now() } });
  const [a, b] = await Promise.all([credential(), credential()]);
  expect(a).toBe(b);
  const saved = readSession(file)!.oauth!;
  expect(saved.refresh_token).not.toBe(session.refresh_token);
  expect(saved.access_token).toBe(a);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  expect((await h.call('GET', '/products', undefined, { authorization: `Bearer ${a}`, 'x-api-key': '' })).status).toBe(200);
}, 60_000);

test('a denied consent or a forged answer ends the login with a clear error', async () => {
  const human = browser(h, { ip: uniqueIp() });
  await human.signIn(user.email);
  const denied = browserLogin('http://svc.test', {
    fetch: viaApp,
    show: (url) =>
      void (async () => {
        const page = await human.get(url);
        const decided = await human.post('/auth/authorize', { ...formFields(page.text, '/auth/authorize'), decision: 'deny' });
        await fetch(decided.location!).catch(() => {});
      })(),
  });
  await expect(denied).rejects.toThrow(/access_denied/);
  const forged = browserLogin('http://svc.test', {
    fetch: viaApp,
    show: (url) => void fetch(`${new URL(url).searchParams.get('redirect_uri')}?code=stolen&state=wrong`).catch(() => {}),
  });
  await expect(forged).rejects.toThrow(/state differs/);
}, 60_000);

/** `svc login` against the server at `url`, a person signing in and allowing products:read for the store. */
async function signedIn(url: string) {
  const human = browser(h, { ip: uniqueIp(), origin: url });
  await human.signIn(user.email);
  return browserLogin(url, {
    scope: 'products:read',
    show: (u) =>
      void (async () => {
        const page = await human.get(u);
        const decided = await human.post('/auth/authorize', { ...formFields(page.text, '/auth/authorize'), store_id: h.store.id, decision: 'allow' });
        await fetch(decided.location!).catch(() => {});
      })(),
  });
}

test('svc mcp uses the signed-in session: its store by default, the token refreshed when due', async () => {
  // A real listener this time: the stdio bridge is another process.
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => h.app.handle(r) });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const session = await signedIn(url);
    const home = mkdtempSync(join(tmpdir(), 'svc-home-'));
    // Saved as already expiring: the bridge must refresh before its first request.
    saveSession(join(home, '.svc', 'session.json'), { url, oauth: { ...session, expires_at: Date.now() } });
    const p = await h.call('POST', '/products', product({ name: 'Signed-in mug' }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(import.meta.dir, '..', '..', 'core', 'cli.ts'), 'mcp'],
      env: { PATH: process.env.PATH ?? '', HOME: home },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'session-test', version: '1' });
    await client.connect(transport);
    const r: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: p.body.id } });
    expect(r.structuredContent?.name).toBe('Signed-in mug');
    await client.close();
    const saved = readSession(join(home, '.svc', 'session.json'))!.oauth!;
    expect(saved.refresh_token).not.toBe(session.refresh_token);
    expect(saved.expires_at).toBeGreaterThan(Date.now());
  } finally {
    server.stop(true);
  }
}, 60_000);

test("the legacy SSE bridge (svc mcp --transport sse) takes a user's access token as its Bearer credential", async () => {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => h.app.handle(r) });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const url = `http://127.0.0.1:${server.port}`;
  const bridge = Bun.spawn(
    [
      process.execPath,
      join(import.meta.dir, '..', '..', 'core', 'cli.ts'),
      'mcp',
      '--transport',
      'sse',
      '--port',
      String(port),
      '--store',
      h.store.id,
      '--url',
      url,
    ],
    {
      env: { ...process.env, HOME: mkdtempSync(join(tmpdir(), 'svc-home-')) },
      stderr: 'pipe',
    },
  );
  try {
    const session = await signedIn(url);
    const base = `http://127.0.0.1:${port}`;
    for (
      let i = 0;
      i < 100 &&
      !(await fetch(`${base}/sse`).then(
        () => true,
        () => false,
      ));
      i++
    )
      await Bun.sleep(100);
    const p = await h.call('POST', '/products', product({ name: 'Bridged mug' }));
    const auth = { Authorization: `Bearer ${session.access_token}` };
    const transport = new SSEClientTransport(new URL(`${base}/sse`), {
      eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as any), ...auth } }) },
      requestInit: { headers: auth },
    });
    const client = new Client({ name: 'sse-user-test', version: '1' });
    await client.connect(transport);
    const r: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: p.body.id } });
    expect(r.structuredContent?.name).toBe('Bridged mug');
    // The token holds products:read only: a write is refused as for any credential without the scope.
    const denied: any = await client.callTool({ name: 'products', arguments: { action: 'create_product', name: 'Nope' } });
    expect(denied.isError).toBe(true);
    expect(denied.content[0].text).toContain('insufficient_scope');
    await client.close();
  } finally {
    bridge.kill();
    await bridge.exited;
    server.stop(true);
  }
}, 60_000);
