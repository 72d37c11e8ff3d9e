/**
 * Two rules a client meets when it gets a request wrong (issue 26):
 * - another store's id in the path is 404 first, whatever the body: ownership is decided before
 *   the body is judged, on every route whose path names a resource;
 * - a refused input names the first wrong field of the document as sent (a field sent wrong
 *   before a field left out), the same over REST and MCP.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { restRoutes } from '../../core/http/rest';
import { callTool } from '../kit/sweep';
import { mcpClient } from '../kit/mcp';
import { authorize, discover, exchange, register } from '../kit/oauth';
import { ADMIN_TOKEN, product, setup, type Harness } from '../kit/setup';
import { addUser, browser, uniqueIp } from '../kit/users';

const tee = () => ({
  name: 'Tee',
  type: 'variable',
  pricing_data: { retail: 20 },
  options: [{ name: 'size', values: ['S', 'M'] }],
});

let h: Harness;
let other: Harness;
let mine: any;
let theirs: any;
let theirVariant: string;
let myMember: { id: string; email: string };
let theirMember: { id: string; email: string };
let owner: { id: string; email: string };
// The first setup of a run opens and migrates the database: slow on a busy machine.
beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } }); // its sign-in counts against an address of its own
  other = await setup();
  mine = (await h.call('POST', '/products', tee())).body;
  theirs = (await other.call('POST', '/products', tee())).body;
  theirVariant = theirs.variants[0].id;
  myMember = await addUser(h, 'viewer');
  theirMember = await addUser(other, 'viewer');
  owner = await addUser(h, 'owner');
}, 60_000);

const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' };
const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-api-key': '' });

/** The owner's access token for this store, through the real sign-in (once: it costs a password hash). */
let token: Promise<string> | undefined;
const ownerToken = () =>
  (token ??= (async () => {
    const { as } = await discover(h);
    const client = await register(h, as);
    // From an address of its own: sign-in throttling counts per address in the shared test database.
    const a = await authorize(h, as, client, browser(h, { ip: uniqueIp() }), owner.email, { scope: 'platform', storeId: h.store.id });
    return (await exchange(h, as, client, a.callback!, a.verifier, a.state)).access_token;
  })());

const expect404 = (r: { status: number; body: any }) => {
  expect(r.status).toBe(404);
  expect(r.body.error.code).toBe('resource_missing');
  expect(r.body.error.param).toBe('id');
};

describe("another store's id is 404 whatever the body", () => {
  test('POST .../products/{id}/variants with an invalid body', async () => {
    expect404(await h.call('POST', `/products/${theirs.id}/variants`, { options: 'not an object', price: 'free' }));
    expect404(await h.call('POST', `/products/${theirs.id}/variants`, '{not json'));
    // The same body on this store's own product is the 400 it deserves.
    const own = await h.call('POST', `/products/${mine.id}/variants`, { options: 'not an object', price: 'free' });
    expect(own.status).toBe(400);
  });

  test('PATCH of a product and of a variant, and a variant read with a bad query', async () => {
    expect404(await h.call('PATCH', `/products/${theirs.id}`, { name: 42 }));
    expect404(await h.call('PATCH', `/products/${theirs.id}/variants/${theirVariant}`, { price: 'free' }));
    expect(theirs.variants.length).toBeGreaterThan(0);
    expect((await h.call('PATCH', `/products/${mine.id}`, { name: 42 })).status).toBe(400);
  });

  test("the rule is the pipeline's: every store route whose path names a resource with a GET asks it", () => {
    const routes = restRoutes(h.registry).filter((r) => r.scope === 'store' && r.method !== 'GET' && /\/:(?!storeId)/.test(r.path));
    const without = routes.filter((r) => !r.owner).map((r) => `${r.method} ${r.path}`);
    expect(routes.length).toBeGreaterThan(10);
    expect(without).toEqual([]);
  });
});

describe("members and API keys: another store's or an unknown id is 404 whatever the body", () => {
  const notFound = (r: { status: number; body: any }, param: string) => {
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'resource_missing', param });
  };

  test('PATCH and DELETE .../members/{user_id}', async () => {
    const owner = bearer(await ownerToken());
    for (const user_id of [theirMember.id, crypto.randomUUID()]) {
      notFound(await h.call('PATCH', `/members/${user_id}`, { role: 'emperor' }, owner), 'user_id');
      notFound(await h.call('PATCH', `/members/${user_id}`, '{not json', owner), 'user_id');
      notFound(await h.call('DELETE', `/members/${user_id}?force=yes`, undefined, owner), 'user_id');
    }
    // On this store's own member the same requests are the 400s they deserve, and change nothing.
    expect((await h.call('PATCH', `/members/${myMember.id}`, { role: 'emperor' }, owner)).status).toBe(400);
    expect((await h.call('DELETE', `/members/${myMember.id}?force=yes`, undefined, owner)).status).toBe(400);
    expect((await h.call('GET', `/members/${myMember.id}`)).body.role).toBe('viewer');
  });

  test('DELETE .../api-keys/{key_id} and POST .../api-keys/{key_id}/roll', async () => {
    const theirKey = (await other.call('POST', '/api-keys', {}, admin)).body.id;
    const myKey = (await h.call('POST', '/api-keys', {}, admin)).body.id;
    for (const key_id of [theirKey, crypto.randomUUID()]) {
      notFound(await h.call('DELETE', `/api-keys/${key_id}?force=yes`), 'key_id');
      notFound(await h.call('POST', `/api-keys/${key_id}/roll`, { expires_in: 'soon' }), 'key_id');
      notFound(await h.call('POST', `/api-keys/${key_id}/roll`, { expires_in: 60, expires_at: '2030-01-01T00:00:00Z' }), 'key_id');
    }
    expect((await h.call('DELETE', `/api-keys/${myKey}?force=yes`)).status).toBe(400);
    expect((await h.call('POST', `/api-keys/${myKey}/roll`, { expires_in: 'soon' })).status).toBe(400);
    // Their key was neither revoked nor rolled.
    expect((await other.call('GET', '/api-keys')).body.data.filter((k: any) => k.id === theirKey)).toHaveLength(1);
  });
});

describe('GET of one member and of one API key (the owners the routes above ask)', () => {
  test("a member as the list shows it; another store's or an unknown user is 404; scopes as for the list", async () => {
    const listed = (await h.call('GET', '/members')).body.data.find((m: any) => m.user_id === myMember.id);
    const one = await h.call('GET', `/members/${myMember.id}`);
    expect(one).toMatchObject({ status: 200, body: listed });
    expect(one.body).toMatchObject({ object: 'member', email: myMember.email, role: 'viewer' });
    for (const user_id of [theirMember.id, crypto.randomUUID()])
      expect((await h.call('GET', `/members/${user_id}`)).body.error).toMatchObject({ code: 'resource_missing', param: 'user_id' });
    expect((await h.call('GET', `/members/${myMember.id}`, undefined, { 'x-api-key': await h.newKey(['users:read']) })).status).toBe(200);
    expect((await h.call('GET', `/members/${myMember.id}`, undefined, { 'x-api-key': await h.newKey(['products:read']) })).status).toBe(403);
    expect((await h.call('GET', `/members/${myMember.id}`, undefined, { 'x-api-key': '' })).status).toBe(401);
    expect((await h.call('GET', `/members/${myMember.id}`, undefined, bearer(await ownerToken()))).body).toEqual(listed);
  });

  test("a key as the list shows it, never its secret; revoked, another store's or unknown is 404; owners and the operator only", async () => {
    const made = (await h.call('POST', '/api-keys', { scopes: ['products:read'] }, admin)).body;
    const listed = (await h.call('GET', '/api-keys')).body.data.find((k: any) => k.id === made.id);
    const one = await h.call('GET', `/api-keys/${made.id}`);
    expect(one).toMatchObject({ status: 200, body: listed });
    expect(one.body.key).toBeUndefined();
    expect(JSON.stringify(one.body)).not.toContain(made.key);
    expect((await h.call('GET', `/api-keys/${made.id}`, undefined, admin)).body).toEqual(listed);
    expect((await h.call('GET', `/api-keys/${made.id}`, undefined, bearer(await ownerToken()))).body).toEqual(listed);
    // A key or token that may not manage keys may not read one either (platform:read is not enough, as for the list).
    expect((await h.call('GET', `/api-keys/${made.id}`, undefined, { 'x-api-key': await h.newKey(['platform:read']) })).status).toBe(403);
    expect((await h.call('GET', `/api-keys/${made.id}`, undefined, { 'x-api-key': '' })).status).toBe(401);
    const theirKey = (await other.call('POST', '/api-keys', {}, admin)).body.id;
    expect((await h.call('DELETE', `/api-keys/${made.id}`)).status).toBe(200);
    for (const key_id of [made.id, theirKey, crypto.randomUUID()])
      expect((await h.call('GET', `/api-keys/${key_id}`)).body.error).toMatchObject({ code: 'resource_missing', param: 'key_id' });
  });
});

describe('a refused input names the first wrong field as sent', () => {
  test('a variant whose sku has the wrong type is param sku, not the options it left out', async () => {
    const r = await h.call('POST', `/products/${mine.id}/variants`, { sku: 7, price: 21 });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('sku');
    // Document order, not the schema's: price sent first and wrong is named first.
    const r2 = await h.call('POST', `/products/${mine.id}/variants`, { price: 'free', sku: 7, options: { size: 'M' } });
    expect(r2.body.error.param).toBe('price');
    // Nothing else wrong: the missing field is named.
    const r3 = await h.call('POST', `/products/${mine.id}/variants`, { sku: 'NEW-1' });
    expect(r3.body.error.param).toBe('options');
  });

  test('the same on another route and over MCP', async () => {
    const r = await h.call('POST', '/products', { sku: 7 });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('sku');
    const { client } = await mcpClient(h, { query: '?tools=flat' });
    try {
      const answer = await callTool(client, 'products_create_variant', { id: mine.id, sku: 7 });
      expect(answer.isError).toBe(true);
      expect(answer.text).toContain('sku');
      expect(answer.text).not.toContain('options');
      const created = await callTool(client, 'products_create_product', product({ sku: 7, name: undefined }));
      expect(created.text).toContain('sku');
    } finally {
      await client.close();
    }
  });
});
