import { beforeAll, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
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
  // Found through the MCP endpoint's protected resource metadata (RFC 9728), which names the server.
  expect(session.discovery).toMatchObject({
    resourceMetadata: { resource: 'http://svc.test/agent/mcp', authorization_servers: ['http://svc.test'] },
    authorizationServerUrl: 'http://svc.test',
  });
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

test('a session saved by the earlier hand-written client (no issuer, no discovery) still refreshes, and is upgraded', async () => {
  const session = await browserLogin('http://svc.test', {
    fetch: viaApp,
    scope: 'products:read',
    show: (u) => void consent('http://svc.test', u).then((back) => fetch(back).catch(() => {})),
  });
  const file = join(mkdtempSync(join(tmpdir(), 'svc-session-')), '.svc', 'session.json');
  const { client_id, access_token, refresh_token, scope, store_id } = session;
  const old = { client_id, token_endpoint: 'http://svc.test/v1/auth/token', access_token, refresh_token, expires_at: Date.now(), scope, store_id };
  saveSession(file, { url: 'http://svc.test', oauth: old as any });
  const token = await sessionCredential(file, viaApp)();
  expect(token).not.toBe(access_token);
  expect((await h.call('GET', '/products', undefined, { authorization: `Bearer ${token}`, 'x-api-key': '' })).status).toBe(200);
  const saved = readSession(file)!.oauth!;
  expect(saved).toMatchObject({ access_token: token, client_id, store_id: h.store.id, issuer: expect.stringContaining('svc.test') });
  expect(saved.discovery?.authorizationServerMetadata?.issuer).toBe('http://svc.test');
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

/** A person signing in and allowing the authorization URL `u` for the store; returns where the browser is sent back. */
async function consent(origin: string, u: string) {
  const human = browser(h, { ip: uniqueIp(), origin });
  await human.signIn(user.email);
  const page = await human.get(u);
  const decided = await human.post('/auth/authorize', { ...formFields(page.text, '/auth/authorize'), store_id: h.store.id, decision: 'allow' });
  return decided.location!;
}

/** `svc login` against the server at `url`, a person signing in and allowing products:read for the store. */
async function signedIn(url: string) {
  return browserLogin(url, {
    scope: 'products:read',
    show: (u) => void consent(url, u).then((back) => fetch(back).catch(() => {})),
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

/** A stdio bridge (`svc mcp`), another process, using the session in `home`. */
async function bridge(home: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(import.meta.dir, '..', '..', 'core', 'cli.ts'), 'mcp'],
    env: { PATH: process.env.PATH ?? '', HOME: home },
    stderr: 'pipe',
  });
  let said = '';
  transport.stderr?.on('data', (d) => (said += d));
  const client = new Client({ name: 'shared-session-test', version: '1' });
  await client.connect(transport).catch((e) => {
    throw new Error(`svc mcp did not start: ${e.message}\n${said}`);
  });
  return client;
}

/** Issue 36: what two bridges on one sign-in, a refused token and the login's own checks do. */
test('two svc mcp bridges sharing one session, refreshing at the same moment, both keep working', async () => {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => h.app.handle(r) });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const session = await signedIn(url);
    const home = mkdtempSync(join(tmpdir(), 'svc-home-'));
    const file = join(home, '.svc', 'session.json');
    saveSession(file, { url, oauth: session });
    const p = await h.call('POST', '/products', product({ name: 'Shared mug' }));
    const [a, b] = await Promise.all([bridge(home), bridge(home)]);
    const get = (c: Client) => c.callTool({ name: 'products', arguments: { action: 'get_product', id: p.body.id } }) as Promise<any>;
    let before = session;
    // Twice: each time the token is due, and both bridges find it so with their next call, at once.
    for (let round = 0; round < 2; round++) {
      saveSession(file, { url, oauth: { ...before, expires_at: Date.now() } });
      const results = await Promise.all([get(a), get(b)]);
      for (const r of results) expect(r.structuredContent?.name).toBe('Shared mug');
      const after = readSession(file)!.oauth!;
      expect(after.refresh_token).not.toBe(before.refresh_token);
      before = after;
    }
    // The sign-in was never revoked (a refresh token used twice would have): both still answer.
    for (const r of await Promise.all([get(a), get(b)])) expect(r.structuredContent?.name).toBe('Shared mug');
    await Promise.all([a.close(), b.close()]);
  } finally {
    server.stop(true);
  }
}, 90_000);

test('a token the server refuses (401) is refreshed and the call sent again, though it had not expired here', async () => {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => h.app.handle(r) });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const session = await signedIn(url);
    const home = mkdtempSync(join(tmpdir(), 'svc-home-'));
    const file = join(home, '.svc', 'session.json');
    // Valid for an hour by the local clock, refused by the server (as a revoked token is).
    saveSession(file, { url, oauth: { ...session, access_token: 'eyJhbGciOiJub25lIn0.e30.', expires_at: Date.now() + 3_600_000 } });
    const p = await h.call('POST', '/products', product({ name: 'Refused mug' }));
    const client = await bridge(home);
    const r: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: p.body.id } });
    expect(r.structuredContent?.name).toBe('Refused mug');
    await client.close();
    expect(readSession(file)!.oauth!.refresh_token).not.toBe(session.refresh_token);
  } finally {
    server.stop(true);
  }
}, 60_000);

test('a sign-in the server ended (its refresh token refused) is an error saying to sign in again; the next call says so too', async () => {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => h.app.handle(r) });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const session = await signedIn(url);
    const home = mkdtempSync(join(tmpdir(), 'svc-home-'));
    saveSession(join(home, '.svc', 'session.json'), { url, oauth: { ...session, refresh_token: 'revoked', expires_at: Date.now() } });
    const client = await bridge(home);
    for (let i = 0; i < 2; i++)
      await expect(client.listTools()).rejects.toThrow(/^MCP error -32600: The sign-in session has ended .*run svc login --url URL again/);
    await client.close();
  } finally {
    server.stop(true);
  }
}, 60_000);

test('the login refuses an answer from another server (RFC 9207 iss) and metadata naming another issuer', async () => {
  // The browser comes back with the right state and code but another issuer's iss, or none.
  for (const iss of ['http://other.test', null]) {
    const mixedUp = browserLogin('http://svc.test', {
      fetch: viaApp,
      show: (u) =>
        void consent('http://svc.test', u).then((back) => {
          const tampered = new URL(back);
          if (iss) tampered.searchParams.set('iss', iss);
          else tampered.searchParams.delete('iss');
          return fetch(tampered).catch(() => {});
        }),
    });
    await expect(mixedUp).rejects.toThrow(iss ? /comes from http:\/\/other\.test/ : /comes from an unnamed server/);
  }
  // Authorization server metadata whose issuer is not the server it was fetched from.
  const lying = (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await viaApp(input, init);
    if (!new URL(input instanceof Request ? input.url : String(input)).pathname.endsWith('/oauth-authorization-server')) return res;
    return Response.json({ ...(await res.json()), issuer: 'http://evil.test' });
  }) as typeof fetch;
  let shown = false;
  const refused = browserLogin('http://svc.test', { fetch: lying, show: () => (shown = true) });
  await expect(refused).rejects.toThrow(/names another issuer \(http:\/\/evil\.test\)/);
  expect(shown).toBe(false);
}, 60_000);

test("svc login --scope 'a b' asks for exactly those scopes and keeps the session they were granted", async () => {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => h.app.handle(r) });
  try {
    const url = `http://127.0.0.1:${server.port}`;
    const home = mkdtempSync(join(tmpdir(), 'svc-home-'));
    const proc = Bun.spawn(
      [process.execPath, join(import.meta.dir, '..', '..', 'core', 'cli.ts'), 'login', '--url', url, '--scope', 'products:read orders:read'],
      {
        env: { PATH: process.env.PATH ?? '', HOME: home },
        stdout: 'pipe',
        stderr: 'pipe',
      },
    );
    // The CLI prints the authorization URL on stderr; the person opens it and allows.
    let printed = '';
    const reader = proc.stderr.getReader();
    while (!/\n\s+(http\S+)\n/.test(printed)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`svc login ended early: ${printed}`);
      printed += new TextDecoder().decode(value);
    }
    const authUrl = new URL(printed.match(/\n\s+(http\S+)\n/)![1]);
    expect(authUrl.searchParams.get('scope')).toBe('products:read orders:read');
    await fetch(await consent(url, authUrl.toString()));
    expect(await proc.exited).toBe(0);
    const saved = readSession(join(home, '.svc', 'session.json'))!;
    expect(saved.url).toBe(url);
    expect(saved.oauth!.scope.split(' ').sort()).toEqual(['orders:read', 'products:read']);
    expect(saved.oauth!.store_id).toBe(h.store.id);
  } finally {
    server.stop(true);
  }
}, 60_000);
