import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { product, setup, type Harness } from '../../test/kit/setup';
import { localTls, serveTls } from '../../test/kit/tool-egress';
import { setMetadataEgress } from './client-metadata';
import { answerAuthorization, MCP_URL, REDIRECT } from '../../test/kit/oauth';
import { addUser, browser as openBrowser, uniqueIp } from '../../test/kit/users';

/**
 * The MCP SDK's own OAuth client (`StreamableHTTPClientTransport` with an `authProvider`) connects
 * to /agent/mcp from nothing: 401 -> protected resource metadata -> server metadata -> dynamic
 * registration -> authorization URL (a browser signs in and consents) -> finishAuth(code) ->
 * token -> tools/call; then the access token expires (the test clock) and the SDK refreshes it by
 * itself. Runs on both backends (DATABASE_URL selects PostgreSQL).
 */
let h: Harness;
/** A browser from an address of its own: sign-in throttling (shared by the test files of one database) never sees another's clock. */
const browser = () => openBrowser(h, { ip: uniqueIp() });
let owner: { id: string; email: string };
beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
  owner = await addUser(h, 'owner');
}, 120_000);

/** An OAuthClientProvider that keeps everything in memory and records what the SDK asked of it. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrls: URL[] = [];
  tokenSaves = 0;
  constructor(readonly clientMetadataUrl?: string) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK Client',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'sdk-state';
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    this.tokenSaves++;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const inProcess = ((u: string | URL | Request, i?: RequestInit) => h.app.handle(new Request(u, i))) as typeof fetch;
const transportFor = (authProvider: OAuthClientProvider) => new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider, fetch: inProcess });

describe("the MCP SDK's client auth against our server", () => {
  test('from nothing to tools/call, then a refresh the SDK does by itself', async () => {
    const created = await h.call('POST', '/products', product());
    expect(created.status).toBe(201);
    const provider = new MemoryProvider();

    // 1. The first connect meets a 401; the SDK discovers, registers and asks for a browser.
    const first = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await expect(first.connect(transportFor(provider))).rejects.toThrow(/Unauthorized/);
    expect(provider.info?.client_id).toStartWith('svc_client_');
    expect(provider.authorizationUrls).toHaveLength(1);
    const url = provider.authorizationUrls[0];
    expect(url.origin + url.pathname).toBe('http://svc.test/auth/authorize');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: provider.info!.client_id,
      response_type: 'code',
      code_challenge_method: 'S256',
      redirect_uri: REDIRECT,
      state: 'sdk-state',
      resource: MCP_URL,
    });

    // 2. The user signs in and consents; the browser lands on the client's redirect URI.
    const a = await answerAuthorization(browser(), url.toString(), owner.email);
    expect(a.consent).toContain('SDK Client');
    expect(a.callback?.searchParams.get('state')).toBe('sdk-state');
    const code = a.callback?.searchParams.get('code');
    expect(code).toBeString();

    // 3. finishAuth exchanges the code (PKCE, resource) for tokens.
    const transport = transportFor(provider);
    await transport.finishAuth(code!);
    // (Field by field: bun 1.4.5's toMatchObject writes asymmetric matchers into the object it checks.)
    expect(provider.saved!.token_type.toLowerCase()).toBe('bearer');
    expect(provider.saved!.refresh_token).toStartWith('svc_rt_');
    const claims = JSON.parse(Buffer.from(provider.saved!.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: owner.id, store: h.store.id, aud: MCP_URL, client_id: provider.info!.client_id });

    // 4. Connected: tools/call works with the token.
    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await client.connect(transport);
    const got: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: created.body.id } });
    expect(got.isError).toBeFalsy();
    expect(JSON.parse(got.content[0].text).id).toBe(created.body.id);

    // 5. The access token expires; the next call gets a 401, the SDK refreshes and retries.
    const before = provider.saved!;
    h.clock.advance(3601_000);
    const again: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: created.body.id } });
    expect(again.isError).toBeFalsy();
    expect(JSON.parse(again.content[0].text).id).toBe(created.body.id);
    expect(provider.saved!.access_token).not.toBe(before.access_token);
    expect(provider.saved!.refresh_token).not.toBe(before.refresh_token);
    expect(provider.authorizationUrls).toHaveLength(1); // no new browser trip
    await client.close();
  });
});

describe('the SDK with a Client ID Metadata Document (clientMetadataUrl)', () => {
  let server: ReturnType<typeof serveTls>;
  let restore: ReturnType<typeof setMetadataEgress>;
  beforeAll(() => {
    restore = setMetadataEgress(localTls());
    server = serveTls((req) =>
      Response.json({
        client_id: req.url, // the URL it is served at: https://localhost:<port>/sdk-client.json
        client_name: 'SDK Client by document',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  afterAll(() => {
    setMetadataEgress(restore);
    server?.server.stop(true);
  });

  test('our metadata makes the SDK use its URL as client_id instead of registering; the flow completes', async () => {
    const created = await h.call('POST', '/products', product());
    const provider = new MemoryProvider(`${server.url}/sdk-client.json`);
    await expect(new Client({ name: 'sdk-cimd', version: '1.0.0' }).connect(transportFor(provider))).rejects.toThrow(/Unauthorized/);
    expect(provider.info?.client_id).toBe(`${server.url}/sdk-client.json`);
    const [{ n }] = await h.db.query("SELECT count(*)::int AS n FROM oauth_clients WHERE name = 'SDK Client'");
    const a = await answerAuthorization(browser(), provider.authorizationUrls[0].toString(), owner.email);
    expect(a.consent).toContain('SDK Client by document');
    expect(a.consent).toContain(`<code>localhost:${server.server.port}</code>`);
    const transport = transportFor(provider);
    await transport.finishAuth(a.callback!.searchParams.get('code')!);
    const client = new Client({ name: 'sdk-cimd', version: '1.0.0' });
    await client.connect(transport);
    const got: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: created.body.id } });
    expect(JSON.parse(got.content[0].text).id).toBe(created.body.id);
    await client.close();
    // No dynamic registration happened on the way.
    expect((await h.db.query("SELECT count(*)::int AS n FROM oauth_clients WHERE name = 'SDK Client'"))[0].n).toBe(n);
  });
});
