import { beforeAll, describe, expect, test } from 'bun:test';
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createStore } from '../../core/keys';
import { product, setup, type Harness } from '../../test/kit/setup';
import { authorize, clientOptions, discover, exchange, MCP_URL, REDIRECT, register, tokenRequest } from '../../test/kit/oauth';
import { addUser, browser } from '../../test/kit/users';

/**
 * Issue 11, "Done when": an independent OAuth client (oauth4webapi) connects from nothing, and
 * the negative cases. Runs on both backends (DATABASE_URL selects PostgreSQL).
 */
let h: Harness;
let owner: { id: string; email: string };
beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } }); // each browser() signs in from an address of its own
  owner = await addUser(h, 'owner');
}, 120_000);

const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-api-key': '' });

async function mcpWith(token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: ((u: any, i: any) => h.app.handle(new Request(u, i))) as typeof fetch,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function fullGrant(scope = 'products orders:read') {
  const { as } = await discover(h);
  const client = await register(h, as);
  const b = browser(h);
  const a = await authorize(h, as, client, b, owner.email, { scope, storeId: h.store.id });
  const tokens = await exchange(h, as, client, a.callback!, a.verifier, a.state);
  return { as, client, b, tokens };
}

describe('an MCP client connects from nothing', () => {
  test('401 -> metadata -> registration -> sign-in and consent -> token -> REST and MCP tools/call -> refresh', async () => {
    const { as, rs, prm } = await discover(h);
    expect(prm).toBe('http://svc.test/.well-known/oauth-protected-resource/agent/mcp');
    expect(rs).toMatchObject({ resource: MCP_URL, authorization_servers: ['http://svc.test'] });
    expect(as).toMatchObject({
      issuer: 'http://svc.test',
      code_challenge_methods_supported: ['S256'],
      token_endpoint: 'http://svc.test/v1/auth/token',
    });
    // SPEC 4.10: the same metadata under the MCP base.
    const underMcp = await h.raw('GET', '/agent/.well-known/oauth-authorization-server', undefined, { 'x-api-key': '' });
    expect(underMcp.body).toEqual(JSON.parse(JSON.stringify(as)));

    const client = await register(h, as);
    expect(client.client_id).toStartWith('svc_client_');
    expect(client.client_secret).toBeUndefined();

    const b = browser(h);
    const a = await authorize(h, as, client, b, owner.email, { scope: 'products orders:read' });
    expect(a.consent).toContain('Test MCP Client');
    expect(a.consent).toContain('view and change products');
    expect(a.consent).toContain('view orders');
    const tokens = await exchange(h, as, client, a.callback!, a.verifier, a.state);
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'products orders:read' });
    expect(tokens.refresh_token).toStartWith('svc_rt_');

    // The token is a JWT for this user and store, checkable with the published keys.
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ sub: owner.id, store: h.store.id, scope: 'products orders:read', aud: MCP_URL, iss: 'http://svc.test' });
    const jwks = await h.raw('GET', '/.well-known/jwks.json', undefined, { 'x-api-key': '' });
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(jwks.body.keys[0].d).toBeUndefined();

    // REST with the JWT: what the scopes allow, and nothing else.
    const created = await h.call('POST', '/products', product(), bearer(tokens.access_token));
    expect(created.status).toBe(201);
    expect((await h.call('GET', '/orders', undefined, bearer(tokens.access_token))).status).toBe(200);
    expect((await h.call('GET', '/customers', undefined, bearer(tokens.access_token))).body.error.code).toBe('insufficient_scope');

    // MCP tools/call with the JWT.
    const mcp = await mcpWith(tokens.access_token);
    const r: any = await mcp.callTool({ name: 'products', arguments: { action: 'get_product', id: created.body.id } });
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.content[0].text).id).toBe(created.body.id);
    await mcp.close();

    // Refresh: a new pair; the old refresh token is spent.
    const res = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, clientOptions(h));
    const next = await oauth.processRefreshTokenResponse(as, client, res);
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect((await h.call('GET', '/products', undefined, bearer(next.access_token))).status).toBe(200);
  });

  test('the token endpoint takes JSON bodies too, and answers RFC 6749 errors', async () => {
    const bad = await tokenRequest(h, { grant_type: 'password', client_id: 'nope' }, true);
    expect(bad).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const { client } = await fullGrant();
    const unsupported = await tokenRequest(h, { grant_type: 'password', client_id: client.client_id }, true);
    expect(unsupported).toMatchObject({ status: 400, body: { error: 'unsupported_grant_type', error_description: expect.any(String) } });
    expect(unsupported.headers.get('cache-control')).toBe('no-store');
  });

  test('confidential clients authenticate with their secret (Basic)', async () => {
    const { as } = await discover(h);
    const client = await register(h, as, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(client.client_secret).toStartWith('svc_cs_');
    const a = await authorize(h, as, client, browser(h), owner.email);
    const params = oauth.validateAuthResponse(as, client, a.callback!, a.state);
    const wrong = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic('svc_cs_wrong'),
      params,
      REDIRECT,
      a.verifier,
      clientOptions(h),
    );
    expect(wrong.status).toBe(401);
    const a2 = await authorize(h, as, client, browser(h), owner.email);
    const params2 = oauth.validateAuthResponse(as, client, a2.callback!, a2.state);
    const ok = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(client.client_secret as string),
      params2,
      REDIRECT,
      a2.verifier,
      clientOptions(h),
    );
    expect((await oauth.processAuthorizationCodeResponse(as, client, ok)).access_token).toBeString();
  });
});

describe('negative cases', () => {
  test('a wrong redirect_uri is refused on a page, never redirected to', async () => {
    const { as } = await discover(h);
    const client = await register(h, as);
    const b = browser(h);
    await b.signIn(owner.email);
    const a = await authorize(h, as, client, b, owner.email, { redirectUri: 'https://evil.example/cb' });
    expect(a.callback).toBeUndefined();
    expect(a.page.status).toBe(400);
    expect(a.page.text).toContain('redirect_uri is not one this application registered');
    // A loopback redirect may use any port (RFC 8252), same path.
    const port = await authorize(h, as, client, b, owner.email, { redirectUri: 'http://127.0.0.1:50123/callback' });
    expect(port.callback?.searchParams.get('code')).toBeString();
    const otherPath = await authorize(h, as, client, b, owner.email, { redirectUri: 'http://127.0.0.1:50123/other' });
    expect(otherPath.page.status).toBe(400);
  });

  test('a PKCE mismatch is invalid_grant', async () => {
    const { as } = await discover(h);
    const client = await register(h, as);
    const a = await authorize(h, as, client, browser(h), owner.email);
    const params = oauth.validateAuthResponse(as, client, a.callback!, a.state);
    const res = await tokenRequest(h, {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code: params.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: oauth.generateRandomCodeVerifier(),
    });
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('PKCE') } });
  });

  test('a public client without PKCE is refused', async () => {
    const { as } = await discover(h);
    const client = await register(h, as);
    const b = browser(h);
    await b.signIn(owner.email);
    const r = await b.get(`/auth/authorize?client_id=${client.client_id}&redirect_uri=${encodeURIComponent(REDIRECT)}&response_type=code&state=s1`);
    const back = new URL(r.location!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('s1');
  });

  test('a replayed code revokes the grant: the tokens it gave stop working', async () => {
    const { as } = await discover(h);
    const client = await register(h, as);
    const a = await authorize(h, as, client, browser(h), owner.email);
    const tokens = await exchange(h, as, client, a.callback!, a.verifier, a.state);
    expect((await h.call('GET', '/products', undefined, bearer(tokens.access_token))).status).toBe(200);
    const code = a.callback!.searchParams.get('code')!;
    const replay = await tokenRequest(h, {
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code,
      redirect_uri: REDIRECT,
      code_verifier: a.verifier,
    });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await h.call('GET', '/products', undefined, bearer(tokens.access_token))).status).toBe(401);
    const refresh = await tokenRequest(h, { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: tokens.refresh_token! });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('a replayed refresh token revokes the grant, the rotated one included', async () => {
    const { client, tokens } = await fullGrant();
    const first = await tokenRequest(h, { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: tokens.refresh_token! });
    expect(first.status).toBe(200);
    const replay = await tokenRequest(h, { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: tokens.refresh_token! });
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const rotated = await tokenRequest(h, { grant_type: 'refresh_token', client_id: client.client_id, refresh_token: first.body.refresh_token });
    expect(rotated).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await h.call('GET', '/products', undefined, bearer(first.body.access_token))).status).toBe(401);
  });

  test('an expired code is invalid_grant', async () => {
    const { as } = await discover(h);
    const client = await register(h, as);
    const a = await authorize(h, as, client, browser(h), owner.email);
    h.clock.advance(61_000);
    try {
      const params = oauth.validateAuthResponse(as, client, a.callback!, a.state);
      const res = await tokenRequest(h, {
        grant_type: 'authorization_code',
        client_id: client.client_id,
        code: params.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: a.verifier,
      });
      expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant', error_description: expect.stringContaining('expired') } });
    } finally {
      h.clock.advance(-61_000);
    }
  });

  test('consent denied: error=access_denied with the state', async () => {
    const { as } = await discover(h);
    const client = await register(h, as);
    const a = await authorize(h, as, client, browser(h), owner.email, { decision: 'deny', state: 'st-9' });
    expect(a.callback!.origin + a.callback!.pathname).toBe(REDIRECT);
    expect(a.callback!.searchParams.get('error')).toBe('access_denied');
    expect(a.callback!.searchParams.get('state')).toBe('st-9');
    expect(a.callback!.searchParams.get('code')).toBeNull();
  });

  test('a user who is not a member of the store gets no code for it', async () => {
    const other = await createStore(h.db, h.clock, { name: 'Not yours', plan: 'pro' });
    const { as } = await discover(h);
    const client = await register(h, as);
    const a = await authorize(h, as, client, browser(h), owner.email, { storeId: other.id });
    expect(a.callback!.searchParams.get('error')).toBe('access_denied');
    // Someone with no store at all is told so and never redirected.
    const loner = await addUser(h, 'viewer');
    await h.db.query('DELETE FROM store_memberships WHERE user_id = $1', [loner.id]);
    const none = await authorize(h, as, client, browser(h), loner.email);
    expect(none.page.status).toBe(403);
    expect(none.callback).toBeUndefined();
  });

  test('a token used on another store is 403 store_mismatch', async () => {
    const other = await createStore(h.db, h.clock, { name: 'Elsewhere', plan: 'pro' });
    await addUser(h, 'owner', { email: owner.email, storeId: other.id }).catch(() => {});
    const { tokens } = await fullGrant();
    expect((await h.call('GET', '/products', undefined, bearer(tokens.access_token))).status).toBe(200);
    const res = await h.raw('GET', `/v1/stores/${other.id}/products`, undefined, bearer(tokens.access_token));
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('store_mismatch');
  });

  test('revocation (RFC 7009) ends the grant', async () => {
    const { as, client, tokens } = await fullGrant();
    const res = await oauth.revocationRequest(as, client, oauth.None(), tokens.refresh_token!, clientOptions(h));
    await oauth.processRevocationResponse(res);
    expect((await h.call('GET', '/products', undefined, bearer(tokens.access_token))).status).toBe(401);
  });

  test('a forged or tampered token is 401 on REST and MCP', async () => {
    const { tokens } = await fullGrant();
    const [head, body, sig] = tokens.access_token.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = [head, Buffer.from(JSON.stringify({ ...claims, scope: 'platform' })).toString('base64url'), sig].join('.');
    expect((await h.call('GET', '/products', undefined, bearer(forged))).status).toBe(401);
    const mcp = await h.raw('POST', '/agent/mcp', {}, { ...bearer(forged), accept: 'application/json, text/event-stream' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});
