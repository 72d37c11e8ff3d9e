import { beforeAll, describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { ADMIN_TOKEN, setup, type Harness } from '../../test/kit/setup';
import { authorize, discover, exchange, register } from '../../test/kit/oauth';
import { addUser, browser, uniqueIp } from '../../test/kit/users';

/** Issue 11, "Keys managed by their owners": STORE/api-keys and the MCP tool api_keys. */
let h: Harness;
beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
}, 120_000);

const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-api-key': '' });
const withKey = (k: string) => ({ 'x-api-key': k });

async function tokenFor(role: string, scope: string) {
  const user = await addUser(h, role);
  const { as } = await discover(h);
  const client = await register(h, as);
  const a = await authorize(h, as, client, browser(h, { ip: uniqueIp() }), user.email, { scope, storeId: h.store.id });
  return (await exchange(h, as, client, a.callback!, a.verifier, a.state)).access_token;
}

describe("owners manage the store's keys with their token", () => {
  test('create shows the secret once; list shows prefixes only; revoke stops the key (401)', async () => {
    const t = await tokenFor('owner', 'platform products:read products:write');
    const created = await h.call('POST', '/api-keys', { scopes: ['products:read'] }, bearer(t));
    expect(created).toMatchObject({ status: 201, body: { object: 'api_key', scopes: ['products:read'], livemode: false } });
    const secret = created.body.key as string;
    expect(secret).toStartWith('svc_test_');
    expect((await h.call('GET', '/products', undefined, withKey(secret))).status).toBe(200);

    const list = await h.call('GET', '/api-keys', undefined, bearer(t));
    expect(list.status).toBe(200);
    const mine = list.body.data.find((k: any) => k.id === created.body.id);
    expect(mine).toMatchObject({ key_prefix: secret.slice(0, 14), scopes: ['products:read'] });
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(list.body.data.every((k: any) => k.key === undefined)).toBe(true);

    const revoked = await h.call('DELETE', `/api-keys/${created.body.id}`, undefined, bearer(t));
    expect(revoked).toMatchObject({ status: 200, body: { id: created.body.id, revoked: true } });
    const after = await h.call('GET', '/products', undefined, withKey(secret));
    expect(after).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    expect((await h.call('GET', '/api-keys', undefined, bearer(t))).body.data.some((k: any) => k.id === created.body.id)).toBe(false);
    // Revoking again: the key is gone (404).
    expect((await h.call('DELETE', `/api-keys/${created.body.id}`, undefined, bearer(t))).status).toBe(404);
  }, 30_000);

  test('a token or key can never make a key with more scopes than it holds: 403 naming the scope', async () => {
    const t = await tokenFor('admin', 'platform:write products:read');
    const tooMuch = await h.call('POST', '/api-keys', { scopes: ['products:read', 'orders:write'] }, bearer(t));
    expect(tooMuch).toMatchObject({ status: 403, body: { error: { code: 'insufficient_scope', param: 'scopes[1]' } } });
    expect(tooMuch.body.error.message).toContain('orders:write');
    // Left out, the scopes are the caller's own.
    const own = await h.call('POST', '/api-keys', {}, bearer(t));
    expect(own.status).toBe(201);
    expect(own.body.scopes.sort()).toEqual(['platform:write', 'products:read']);

    // The same rule for a key: platform:write lets it manage keys, not widen them.
    const manager = await h.newKey(['platform:write', 'products:read']);
    expect((await h.call('POST', '/api-keys', { scopes: ['products:read'] }, withKey(manager))).status).toBe(201);
    const bare = await h.call('POST', '/api-keys', { scopes: ['products'] }, withKey(manager));
    expect(bare).toMatchObject({ status: 403, body: { error: { code: 'insufficient_scope', param: 'scopes[0]' } } });
    const live = await h.call('POST', '/api-keys', { scopes: ['products:read'], livemode: true }, withKey(manager));
    expect(live).toMatchObject({ status: 403, body: { error: { code: 'insufficient_scope', param: 'livemode' } } });
    // Rolling a wider key would hand out its secret: refused the same way.
    const wide = await h.newKey(['orders:read']);
    const [{ id: wideId }] = await h.db.query('SELECT id FROM api_keys WHERE key_prefix = $1', [wide.slice(0, 14)]);
    const roll = await h.call('POST', `/api-keys/${wideId}/roll`, {}, withKey(manager));
    expect(roll).toMatchObject({ status: 403, body: { error: { code: 'insufficient_scope' } } });
    expect((await h.call('GET', '/orders', undefined, withKey(wide))).status).toBe(200);
  }, 30_000);

  test('roles without platform scopes cannot touch keys; a key without them neither', async () => {
    const staff = await tokenFor('staff', 'products:read platform:read');
    expect((await h.call('GET', '/api-keys', undefined, bearer(staff))).body.error.code).toBe('insufficient_scope');
    const reader = await h.newKey(['products:read', 'platform:read']);
    expect((await h.call('POST', '/api-keys', { scopes: ['products:read'] }, withKey(reader))).status).toBe(403);
    // An API key of another store cannot list this one's.
    const other = await h.raw('POST', '/v1/stores', { name: 'Other' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect((await h.call('GET', '/api-keys', undefined, withKey(other.body.api_key.key))).body.error.code).toBe('store_mismatch');
  }, 30_000);
});

describe('roll', () => {
  test('a new secret now; the old one works until its expiry (default 24 h), then 401', async () => {
    const manager = await h.newKey(['platform:write', 'products:read']);
    const old = (await h.call('POST', '/api-keys', { scopes: ['products:read'] }, withKey(manager))).body;
    const rolled = await h.call('POST', `/api-keys/${old.id}/roll`, {}, withKey(manager));
    expect(rolled.status).toBe(200);
    expect(rolled.body.key).toStartWith('svc_test_');
    expect(rolled.body.key).not.toBe(old.key);
    expect(rolled.body.scopes).toEqual(['products:read']);
    const start = h.clock.now().getTime();
    expect(new Date(rolled.body.rolled.expires_at).getTime()).toBe(start + 24 * 3600 * 1000);
    expect((await h.call('GET', '/products', undefined, withKey(old.key))).status).toBe(200);
    expect((await h.call('GET', '/products', undefined, withKey(rolled.body.key))).status).toBe(200);
    const listed = (await h.call('GET', '/api-keys', undefined, withKey(manager))).body.data.find((k: any) => k.id === old.id);
    expect(listed.expires_at).toBe(rolled.body.rolled.expires_at);
    // Rolling the old key again is refused once its time is up; before that it may be rolled again.
    h.clock.advance(24 * 3600 * 1000);
    try {
      const late = await h.call('GET', '/products', undefined, withKey(old.key));
      expect(late).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
      expect((await h.call('GET', '/products', undefined, withKey(rolled.body.key))).status).toBe(200);
      expect((await h.call('POST', `/api-keys/${old.id}/roll`, {}, withKey(rolled.body.key))).status).toBe(403);
      expect((await h.call('POST', `/api-keys/${old.id}/roll`, {}, withKey(manager))).body.error.param).toBe('key_id');
    } finally {
      h.clock.set(new Date(start));
    }
  });

  test('expires_in 0 ends the old secret at once; a chosen expires_at is kept; bad input is 400', async () => {
    const manager = await h.newKey(['platform:write', 'products:read']);
    const a = (await h.call('POST', '/api-keys', { scopes: ['products:read'] }, withKey(manager))).body;
    // Warm the key cache first: the roll must still take effect at once.
    expect((await h.call('GET', '/products', undefined, withKey(a.key))).status).toBe(200);
    const now = await h.call('POST', `/api-keys/${a.id}/roll`, { expires_in: 0 }, withKey(manager));
    expect(now.status).toBe(200);
    expect((await h.call('GET', '/products', undefined, withKey(a.key))).status).toBe(401);

    const b = (await h.call('POST', '/api-keys', { scopes: ['products:read'] }, withKey(manager))).body;
    const at = new Date(h.clock.now().getTime() + 3600_000).toISOString();
    const chosen = await h.call('POST', `/api-keys/${b.id}/roll`, { expires_at: at }, withKey(manager));
    expect(chosen.body.rolled).toEqual({ id: b.id, expires_at: at });
    const both = await h.call('POST', `/api-keys/${b.id}/roll`, { expires_at: at, expires_in: 5 }, withKey(manager));
    expect(both).toMatchObject({ status: 400, body: { error: { code: 'validation_failed' } } });
    const past = await h.call('POST', `/api-keys/${b.id}/roll`, { expires_at: '2020-01-01T00:00:00Z' }, withKey(manager));
    expect(past.body.error.param).toBe('expires_at');
    expect((await h.call('POST', `/api-keys/${crypto.randomUUID()}/roll`, {}, withKey(manager))).status).toBe(404);
  });
});

describe('the operator keeps the bootstrap routes', () => {
  test("the admin token creates and revokes keys on the same routes, even beside a client's x-api-key", async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const created = await h.call('POST', '/api-keys', { scopes: ['products'] }, admin);
    expect(created).toMatchObject({ status: 201, body: { scopes: ['products'] } });
    expect((await h.call('GET', '/api-keys', undefined, admin)).status).toBe(200);
    expect((await h.call('DELETE', `/api-keys/${created.body.id}`, undefined, admin)).status).toBe(200);
  });
});

describe('the MCP tool api_keys', () => {
  test('list_keys, create_key (never wider than the key), revoke_key', async () => {
    const manager = await h.newKey(['platform:write', 'products:read']);
    const { client } = await mcpClient(h, { key: manager });
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('api_keys');
    const made: any = await client.callTool({ name: 'api_keys', arguments: { action: 'create_key', scopes: ['products:read'] } });
    expect(made.isError).toBeFalsy();
    const key = JSON.parse(made.content[0].text);
    expect(key.key).toStartWith('svc_test_');
    // The secret is the caller's alone: the audit trail of tool calls keeps only a placeholder.
    const [audit] = await h.db.query(
      "SELECT output FROM tool_execution_log() WHERE store_id = $1 AND tool = 'api_keys' AND action = 'create_key' ORDER BY created_at DESC LIMIT 1",
      [h.store.id],
    );
    expect(JSON.stringify(audit?.output)).toContain('[redacted]');
    expect(JSON.stringify(audit?.output)).not.toContain(key.key);
    const wider: any = await client.callTool({ name: 'api_keys', arguments: { action: 'create_key', scopes: ['orders:read'] } });
    expect(wider.isError).toBe(true);
    expect(wider.content[0].text).toContain('orders:read');
    const list: any = await client.callTool({ name: 'api_keys', arguments: { action: 'list_keys' } });
    expect(list.content[0].text).toContain(key.id);
    expect(list.content[0].text).not.toContain(key.key);
    const gone: any = await client.callTool({ name: 'api_keys', arguments: { action: 'revoke_key', key_id: key.id } });
    expect(gone.isError).toBeFalsy();
    expect((await h.call('GET', '/products', undefined, withKey(key.key))).status).toBe(401);
    await client.close();
    // A key without platform scopes is not offered the tool.
    const plain = await mcpClient(h, { key: await h.newKey(['products:read']) });
    expect((await plain.client.listTools()).tools.map((t) => t.name)).not.toContain('api_keys');
    await plain.client.close();
  });
});
