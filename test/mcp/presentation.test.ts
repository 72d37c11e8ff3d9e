/**
 * Titles, icons and annotations on every tool and action, and scope step-up for OAuth clients
 * (issue 51), through the SDK's own client (its OAuth client for the step-up).
 */
import { beforeAll, setDefaultTimeout, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { product, setup, type Harness } from '../kit/setup';
import { mcpClient } from '../kit/mcp';
import { sharedDb } from '../kit/db';
import { addUser, browser } from '../kit/users';
import { answerAuthorization, MCP_URL, REDIRECT } from '../kit/oauth';

// The first test of a file pays for a store's set-up, slow on a loaded machine.
setDefaultTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  await sharedDb();
  h = await setup();
}, 60_000);

test('every tool has a title, one SVG icon under 8 KiB and truthful annotations, in both listing modes', async () => {
  for (const mode of ['grouped', 'flat']) {
    const { client } = await mcpClient(h, { query: `?tools=${mode}` });
    const { tools } = await client.listTools();
    for (const t of tools) {
      expect(t.title).toBeString();
      expect(t.annotations).toMatchObject({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
      });
      if (t.name === 'discover_tools') continue;
      expect(t.icons).toHaveLength(1);
      const [icon] = t.icons!;
      expect(icon.mimeType).toBe('image/svg+xml');
      expect(icon.src).toStartWith('data:image/svg+xml;base64,');
      expect(icon.src.length).toBeLessThan(8192);
      expect(Buffer.from(icon.src.split(',')[1], 'base64').toString()).toStartWith('<svg');
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    if (mode === 'grouped') {
      expect(byName.get('products')!.title).toBe('Products');
      expect(byName.get('api_keys')!.title).toBe('API keys');
      expect(byName.get('products')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
      expect(byName.get('analytics')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    } else {
      expect(byName.get('products_get_product')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
      expect(byName.get('products_create_product')!.annotations).toMatchObject({
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
      });
      expect(byName.get('products_update_product')!.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
      expect(byName.get('products_delete_product')!.annotations).toMatchObject({ destructiveHint: true });
      expect(byName.get('orders_cancel_order')!.annotations).toMatchObject({ destructiveHint: true });
      expect(byName.get('api_keys_revoke_key')!.annotations).toMatchObject({ destructiveHint: true });
      expect(byName.get('products_get_product')!.title).toBe('Products: get product');
    }
    await client.close();
  }
  // Each action of a category carries its own annotations in discover_tools.
  const { client } = await mcpClient(h);
  const found: any = await client.callTool({ name: 'discover_tools', arguments: { tool_name: 'orders' } });
  const actions = new Map<string, any>(found.structuredContent.actions.map((a: any) => [a.action, a]));
  expect(found.structuredContent.title).toBe('Orders');
  expect(actions.get('list_orders').annotations.readOnlyHint).toBe(true);
  expect(actions.get('cancel_order').annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  expect(actions.get('create_order').annotations.idempotentHint).toBe(false);
  await client.close();
});

/** An OAuthClientProvider kept in memory whose "browser" is the test's. */
class Provider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  asked: URL[] = [];
  redirectUrl = REDIRECT;
  clientMetadata = {
    redirect_uris: [REDIRECT],
    client_name: 'SDK step-up client',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code'],
  };
  clientInformation = () => this.info;
  saveClientInformation = (i: OAuthClientInformationMixed) => void (this.info = i);
  tokens = () => this.saved;
  // No refresh token kept: a refresh cannot widen a grant (RFC 6749 6), so the SDK's step-up must
  // go to the authorization page rather than refresh the same scopes.
  saveTokens = (t: OAuthTokens) => void (this.saved = { ...t, refresh_token: undefined });
  redirectToAuthorization = (url: URL) => void this.asked.push(url);
  saveCodeVerifier = (v: string) => void (this.verifier = v);
  codeVerifier = () => this.verifier;
}

test('an OAuth token lacking a scope steps up: 403 insufficient_scope naming it, the SDK re-authorizes and the call goes through', async () => {
  const user = await addUser(h, 'owner');
  const b = browser(h);
  const provider = new Provider();
  const refused: Response[] = [];
  const fetchVia = (async (input: string | URL | Request, init?: RequestInit) => {
    const res = await h.app.handle(new Request(input, init));
    if (res.status === 403) refused.push(res);
    return res;
  }) as typeof fetch;
  const connect = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider, fetch: fetchVia });
    const client = new Client({ name: 'step-up', version: '1' });
    return { transport, client, connected: client.connect(transport) };
  };
  /** Answers the last authorization page the SDK opened, and hands the code to the transport. */
  const consent = async (transport: StreamableHTTPClientTransport) => {
    const { callback } = await answerAuthorization(b, provider.asked.at(-1)!.toString(), user.email);
    await transport.finishAuth(callback!.searchParams.get('code')!);
  };

  // The first 401 names what to ask for: the SDK asks for exactly that (every tool's read scope).
  const first = await connect();
  await expect(first.connected).rejects.toBeInstanceOf(UnauthorizedError);
  const firstScope = provider.asked[0].searchParams.get('scope')!.split(' ');
  expect(firstScope).toContain('products:read');
  expect(firstScope).not.toContain('products:write');
  await consent(first.transport);

  const { client, transport, connected } = await connect();
  await connected;
  const r: any = await client.callTool({ name: 'products_list_products', arguments: { limit: 1 } });
  expect(r.isError).toBeUndefined();

  // A write: 403 with the scope to add; the SDK opens the authorization page asking for it.
  await expect(client.callTool({ name: 'products_create_product', arguments: product({ name: 'Stepped' }) })).rejects.toBeInstanceOf(
    UnauthorizedError,
  );
  const stepped = provider.asked.at(-1)!.searchParams.get('scope')!.split(' ');
  expect(refused).toHaveLength(1);
  expect(refused[0].headers.get('www-authenticate')).toMatch(
    /^Bearer error="insufficient_scope", scope="[^"]*products:write[^"]*", resource_metadata="http:\/\/svc\.test\/\.well-known\/oauth-protected-resource\/agent\/mcp"$/,
  );
  expect(stepped).toContain('products:write');
  expect(stepped).toContain('products:read');
  await consent(transport);
  const made: any = await client.callTool({ name: 'products_create_product', arguments: product({ name: 'Stepped' }) });
  expect(made.structuredContent.name).toBe('Stepped');
  await client.close();
});

test('API keys cannot step up and keep the tool error; the first 401 names a starting scope', async () => {
  // An API key cannot step up: SPEC's tool error, as before.
  const key = await h.newKey(['products:read']);
  const { client } = await mcpClient(h, { key });
  const r: any = await client.callTool({ name: 'products_create_product', arguments: product() });
  expect(r.isError).toBe(true);
  expect(JSON.parse(r.content[0].text).error.code).toBe('insufficient_scope');
  await client.close();
  // The unauthenticated 401 names a starting scope beside the metadata.
  const denied = await h.app.handle(
    new Request(MCP_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    }),
  );
  expect(denied.status).toBe(401);
  expect(denied.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+", scope="[^"]*products:read[^"]*"/);
});
