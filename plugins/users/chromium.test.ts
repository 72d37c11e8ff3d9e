import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import { setup, type Harness } from '../../test/kit/setup';
import { addUser, PASSWORD, uniqueIp } from '../../test/kit/users';

/**
 * The same flow with a real browser: headless Chromium signs in and consents on the server-rendered
 * pages (no JavaScript on them), and lands on the client's loopback redirect.
 */
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`NOTICE: ${CHROMIUM} is absent: the headless Chromium sign-in test is skipped.`);

let h: Harness;
let server: { stop: () => void; port: number };
let callback: ReturnType<typeof Bun.serve>;
let landed: URL | undefined;
beforeAll(async () => {
  if (!available) return;
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } }); // the browser signs in from an address of its own
  const listening = h.app.listen({ port: 0, hostname: '127.0.0.1' });
  server = { port: listening.server!.port!, stop: () => listening.stop() };
  callback = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (r) => {
      const u = new URL(r.url);
      if (u.pathname === '/callback') landed = u; // not the browser's favicon request
      return new Response('You can close this window.');
    },
  });
}, 120_000);
afterAll(() => {
  server?.stop();
  callback?.stop(true);
});

test.skipIf(!available)(
  'headless Chromium signs in and consents; the client gets tokens that work',
  async () => {
    const { chromium } = await import('playwright-core');
    const owner = await addUser(h, 'owner');
    const base = `http://127.0.0.1:${server.port}`;
    const opts = { [oauth.allowInsecureRequests]: true } as const;
    const denied = await fetch(`${base}/agent/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(denied.status).toBe(401);
    const rs = await oauth.processResourceDiscoveryResponse(
      new URL(`${base}/agent/mcp`),
      await oauth.resourceDiscoveryRequest(new URL(`${base}/agent/mcp`), opts),
    );
    const issuer = new URL(rs.authorization_servers![0]);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oauth2' }));
    const redirectUri = `http://127.0.0.1:${callback.port}/callback`;
    const client = (await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris: [redirectUri], client_name: 'Chromium Client', token_endpoint_auth_method: 'none' },
        opts,
      ),
    )) as oauth.Client;
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'products:read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: `${base}/agent/mcp`,
    }))
      url.searchParams.set(k, v);

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      // From an address of its own (trusted proxy header): sign-in throttling counts per address in
      // the shared test database, and other files sign in from 127.0.0.1.
      const page = await browser.newPage({ extraHTTPHeaders: { 'x-forwarded-for': uniqueIp() } });
      await page.goto(url.toString());
      await page.fill('#email', owner.email);
      await page.fill('#password', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Chromium Client');
      await page.click('button[value=allow]');
      await page.waitForURL((u) => u.toString().startsWith(redirectUri));
    } finally {
      await browser.close();
    }
    const params = oauth.validateAuthResponse(as, client, landed!, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, opts),
    );
    const res = await fetch(`${base}/v1/stores/${h.store.id}/products`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(200);
  },
  120_000,
);
