import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import * as oauth from 'oauth4webapi';
import { setup, type Harness } from '../../test/kit/setup';
import { localTls, serveTls } from '../../test/kit/tool-egress';
import { setMetadataEgress, type MetadataEgress } from './client-metadata';
import { authorize, clientOptions, discover, exchange, REDIRECT, tokenRequest } from '../../test/kit/oauth';
import { addUser, browser as openBrowser, uniqueIp } from '../../test/kit/users';

/**
 * Client ID Metadata Documents: a client_id that is an https URL, whose JSON document a local
 * https server (the throwaway test CA's `localhost`, reached through the egress guard with
 * 127.0.0.1 allowed) serves. oauth4webapi drives the flow as oauth.test.ts does. Runs on both
 * backends (DATABASE_URL selects PostgreSQL).
 */
let h: Harness;
/** A browser from an address of its own: sign-in throttling (shared by the test files of one database) never sees another's clock. */
const browser = () => openBrowser(h, { ip: uniqueIp() });
let owner: { id: string; email: string };
let server: ReturnType<typeof serveTls>;
let before: MetadataEgress;
/** Per path: the document (or a whole Response) and the cache headers it is served with. */
const docs = new Map<string, () => Response>();
const hits = new Map<string, number>();
let n = 0;

beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
  owner = await addUser(h, 'owner');
  before = setMetadataEgress(localTls());
  server = serveTls((req) => {
    const path = new URL(req.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    return docs.get(path)?.() ?? new Response('not found', { status: 404 });
  });
}, 120_000);
afterAll(() => {
  setMetadataEgress(before);
  server?.server.stop(true);
});

/** Serves a document at a fresh path; `doc` gets the URL (its client_id). */
function publish(doc: (url: string) => unknown, headers: Record<string, string> = { 'cache-control': 'max-age=60' }) {
  const path = `/clients/${++n}.json`;
  const url = `${server.url}${path}`;
  const body = typeof doc === 'function' ? doc(url) : doc;
  docs.set(path, () => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', ...headers } }));
  return { url, path, fetches: () => hits.get(path) ?? 0 };
}
const goodDoc = (url: string) => ({
  client_id: url,
  client_name: 'Metadata Client',
  redirect_uris: [REDIRECT],
  grant_types: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_method: 'none',
});
const clientOf = (url: string): oauth.Client => ({ client_id: url, token_endpoint_auth_method: 'none' });
const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-api-key': '' });

describe('a client identified by its metadata document', () => {
  test('the server metadata says so', async () => {
    const { as } = await discover(h);
    expect(as.client_id_metadata_document_supported).toBe(true);
  });

  test('authorize shows its name and host; the token endpoint takes the URL as a public client (PKCE); refresh works', async () => {
    const doc = publish(goodDoc);
    const { as } = await discover(h);
    const client = clientOf(doc.url);
    const a = await authorize(h, as, client, browser(), owner.email, { scope: 'products:read' });
    expect(a.consent).toContain('Metadata Client');
    expect(a.consent).toContain(`<code>localhost:${server.server.port}</code>`);
    const tokens = await exchange(h, as, client, a.callback!, a.verifier, a.state);
    expect(tokens.scope).toBe('products:read');
    const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString());
    expect(claims.client_id).toBe(doc.url);
    expect((await h.call('GET', '/products', undefined, bearer(tokens.access_token))).status).toBe(200);
    const next = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, clientOptions(h)),
    );
    expect((await h.call('GET', '/products', undefined, bearer(next.access_token))).status).toBe(200);
    // The code is bound to its PKCE verifier like any public client's.
    const b = await authorize(h, as, client, browser(), owner.email);
    const wrong = await tokenRequest(h, {
      grant_type: 'authorization_code',
      client_id: doc.url,
      code: b.callback!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: oauth.generateRandomCodeVerifier(),
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  test('the document is cached for its max-age, at most 24 hours; no-store fetches every time', async () => {
    const { as } = await discover(h);
    const b = browser();
    await b.signIn(owner.email);
    const cached = publish(goodDoc, { 'cache-control': 'public, max-age=60' });
    await authorize(h, as, clientOf(cached.url), b, owner.email);
    await authorize(h, as, clientOf(cached.url), b, owner.email);
    expect(cached.fetches()).toBe(1);
    h.clock.advance(61_000);
    await authorize(h, as, clientOf(cached.url), b, owner.email);
    expect(cached.fetches()).toBe(2);

    const long = publish(goodDoc, { 'cache-control': 'max-age=31536000' });
    await authorize(h, as, clientOf(long.url), b, owner.email);
    h.clock.advance(24 * 3600_000 - 1000);
    await authorize(h, as, clientOf(long.url), b, owner.email);
    expect(long.fetches()).toBe(1);
    h.clock.advance(2000);
    await authorize(h, as, clientOf(long.url), b, owner.email);
    expect(long.fetches()).toBe(2);

    const never = publish(goodDoc, { 'cache-control': 'no-store' });
    await authorize(h, as, clientOf(never.url), b, owner.email);
    const first = never.fetches();
    await authorize(h, as, clientOf(never.url), b, owner.email);
    expect(never.fetches()).toBe(first * 2);
  });

  test('a refresh after the cached document expired checks it again: a client whose document is gone gets no more tokens', async () => {
    const doc = publish(goodDoc, { 'cache-control': 'max-age=60' });
    const { as } = await discover(h);
    const client = clientOf(doc.url);
    const a = await authorize(h, as, client, browser(), owner.email, { scope: 'products:read' });
    const tokens = await exchange(h, as, client, a.callback!, a.verifier, a.state);
    const refresh = (token: string) => tokenRequest(h, { grant_type: 'refresh_token', client_id: doc.url, refresh_token: token });
    const fresh = await refresh(tokens.refresh_token!); // within max-age: the cached copy stands
    expect(fresh.status).toBe(200);
    expect(doc.fetches()).toBe(1);
    docs.delete(doc.path); // the publisher takes the client down
    h.clock.advance(61_000);
    const refused = await refresh(fresh.body.refresh_token);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
    expect(refused.body.error_description).toContain('HTTP 404');
    expect(doc.fetches()).toBe(2);
  });

  test('a changed document takes effect once the cached one expires', async () => {
    const { as } = await discover(h);
    const b = browser();
    await b.signIn(owner.email);
    const doc = publish(goodDoc, { 'cache-control': 'max-age=30' });
    expect((await authorize(h, as, clientOf(doc.url), b, owner.email)).consent).toContain('Metadata Client');
    docs.set(doc.path, () => Response.json({ ...goodDoc(doc.url), client_name: 'Renamed' }, { headers: { 'cache-control': 'max-age=30' } }));
    expect((await authorize(h, as, clientOf(doc.url), b, owner.email)).consent).toContain('Metadata Client');
    h.clock.advance(31_000);
    expect((await authorize(h, as, clientOf(doc.url), b, owner.email)).consent).toContain('Renamed');
  });
});

describe('documents that are refused: an error page, never a redirect', () => {
  async function refused(url: string, o: { redirectUri?: string } = {}) {
    const { as } = await discover(h);
    const b = browser();
    await b.signIn(owner.email);
    const a = await authorize(h, as, clientOf(url), b, owner.email, o);
    expect(a.callback).toBeUndefined();
    expect(a.page.status).toBe(400);
    expect(a.page.headers.get('location')).toBeNull();
    return a.page.text;
  }

  test('a client_id in the document that is not its URL', async () => {
    const doc = publish((url) => ({ ...goodDoc(url), client_id: `${url}?other` }));
    expect(await refused(doc.url)).toContain('not the URL it is served at');
    // Nothing was kept: the token endpoint does not know it.
    const t = await tokenRequest(h, { grant_type: 'authorization_code', client_id: doc.url, code: 'x', code_verifier: 'y' });
    expect(t).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  test('a redirect_uri the document does not list', async () => {
    const doc = publish(goodDoc);
    expect(await refused(doc.url, { redirectUri: 'https://evil.example/cb' })).toContain('redirect_uri is not one this application registered');
  });

  test('a confidential client (client_secret_* methods), or a secret in the document', async () => {
    const basic = publish((url) => ({ ...goodDoc(url), token_endpoint_auth_method: 'client_secret_basic' }));
    expect(await refused(basic.url)).toContain('only none (a public client with PKCE)');
    const post = publish((url) => ({ ...goodDoc(url), token_endpoint_auth_method: 'client_secret_post' }));
    expect(await refused(post.url)).toContain('client_secret_post');
    const secret = publish((url) => ({ ...goodDoc(url), client_secret: 'hunter2' }));
    expect(await refused(secret.url)).toContain('must not contain a client secret');
  });

  test('no redirect_uris, not JSON, too large, not found, a redirect', async () => {
    const none = publish((url) => ({ client_id: url, client_name: 'x' }));
    expect(await refused(none.url)).toContain('redirect_uris');
    const text = publish(() => 'x');
    docs.set(new URL(text.url).pathname, () => new Response('<html>hello</html>'));
    expect(await refused(text.url)).toContain('not valid JSON');
    const big = publish((url) => ({ ...goodDoc(url), client_name: 'x'.repeat(6000) }));
    expect(await refused(big.url)).toContain('larger than 5120 bytes');
    expect(await refused(`${server.url}/clients/missing.json`)).toContain('HTTP 404');
    const moved = publish(goodDoc);
    docs.set(new URL(moved.url).pathname, () => new Response(null, { status: 302, headers: { location: '/clients/1.json' } }));
    expect(await refused(moved.url)).toContain('HTTP 302');
  });

  test('URLs the draft forbids, and private addresses the egress guard refuses', async () => {
    expect(await refused(`${server.url}/`)).toContain('must have a path');
    expect(await refused(`${server.url}/clients/../clients/1.json`)).toContain('path segments');
    expect(await refused(`https://user:pw@localhost:${server.server.port}/c.json`)).toContain('user name or password');
    const doc = publish(goodDoc);
    const allowed = setMetadataEgress({ ...localTls(), allow: [] });
    try {
      expect(await refused(doc.url)).toContain('SVC_EGRESS_ALLOW');
    } finally {
      setMetadataEgress(allowed);
    }
  });
});
