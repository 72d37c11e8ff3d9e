import { beforeAll, describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpClient } from '../../test/kit/mcp';
import { ADMIN_TOKEN, setup, type Harness } from '../../test/kit/setup';
import { authorize, discover, exchange, MCP_URL, register } from '../../test/kit/oauth';
import { addUser, browser, uniqueIp } from '../../test/kit/users';

/** Issue 11: the MCP tool svc_stores (list_stores, get_current, switch_store). */
let h: Harness;
let other: { id: string; name: string };
let user: { id: string; email: string };
beforeAll(async () => {
  h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
  const made = await h.raw('POST', '/v1/stores', { name: 'Second shop' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
  other = made.body.store;
  user = await addUser(h, 'owner');
  await addUser(h, 'staff', { email: user.email, storeId: other.id });
}, 120_000);

const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-api-key': '' });

async function tokens(scope: string) {
  const { as } = await discover(h);
  const client = await register(h, as);
  const a = await authorize(h, as, client, browser(h, { ip: uniqueIp() }), user.email, { scope, storeId: h.store.id });
  return exchange(h, as, client, a.callback!, a.verifier, a.state);
}

async function mcpWith(token: string) {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    fetch: ((u: any, i: any) => h.app.handle(new Request(u, i))) as typeof fetch,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'stores-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const call = async (client: Client, args: Record<string, unknown>) => {
  const r: any = await client.callTool({ name: 'svc_stores', arguments: args });
  return { isError: Boolean(r.isError), body: JSON.parse(r.content[0].text) };
};

describe("svc_stores over MCP with a user's token", () => {
  test('list_stores and get_current; switch_store moves the session with scopes for the new role', async () => {
    const t = await tokens('platform:read products:read products:write orders:write');
    const mcp = await mcpWith(t.access_token);
    const listed = await call(mcp, { action: 'list_stores' });
    expect(listed.isError).toBe(false);
    const byId = Object.fromEntries(listed.body.data.map((s: any) => [s.id, s]));
    expect(byId[h.store.id]).toMatchObject({ role: 'owner', current: true });
    expect(byId[other.id]).toMatchObject({ role: 'staff', current: false, name: 'Second shop' });
    const current = await call(mcp, { action: 'get_current' });
    expect(current.body).toMatchObject({ store: { id: h.store.id }, credential: 'user', user_id: user.id, role: 'owner' });

    const switched = await call(mcp, { action: 'switch_store', store_id: other.id });
    expect(switched.isError).toBe(false);
    expect(switched.body).toMatchObject({ object: 'store_session', store: { id: other.id, role: 'staff' }, token_type: 'Bearer' });
    // Recomputed for the staff role there, within what the session was granted (never more).
    expect(switched.body.scope.split(' ').sort()).toEqual(['orders:write', 'platform:read', 'products:read', 'products:write']);
    await mcp.close();

    // The old session is over; the new token acts on the other store only.
    expect((await h.call('GET', '/products', undefined, bearer(t.access_token))).status).toBe(401);
    const next = switched.body.access_token;
    expect((await h.raw('GET', `/v1/stores/${other.id}/products`, undefined, bearer(next))).status).toBe(200);
    expect((await h.call('GET', '/products', undefined, bearer(next))).body.error.code).toBe('store_mismatch');
    const again = await mcpWith(next);
    expect((await call(again, { action: 'get_current' })).body).toMatchObject({ store: { id: other.id }, role: 'staff' });
    // A store the user is not a member of: a clear error, and the session stays where it is.
    const stranger = await h.raw('POST', '/v1/stores', { name: 'Not mine' }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    const refused = await call(again, { action: 'switch_store', store_id: stranger.body.store.id });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.body)).toContain('not_a_member');
    expect((await call(again, { action: 'get_current' })).body.store.id).toBe(other.id);
    await again.close();
    // The new refresh token works at the token endpoint (it belongs to the same client).
    expect(switched.body.refresh_token).toStartWith('svc_rt_');
  }, 60_000);

  test("a role that allows none of the session's scopes in the other store is refused", async () => {
    const t = await tokens('platform');
    const r = await h.call('POST', '/stores/switch', { store_id: other.id }, bearer(t.access_token));
    expect(r).toMatchObject({ status: 403, body: { error: { code: 'not_a_member', param: 'store_id' } } });
    // Still good where it was.
    expect((await h.call('GET', '/stores/current', undefined, bearer(t.access_token))).status).toBe(200);
  }, 60_000);
});

describe('verified tokens are remembered briefly, never past their expiry', () => {
  test('a token used a moment ago is still refused once it expires', async () => {
    const t = await tokens('platform:read');
    expect((await h.call('GET', '/stores/current', undefined, bearer(t.access_token))).status).toBe(200);
    const start = h.clock.now();
    h.clock.advance(3601_000);
    try {
      const late = await h.call('GET', '/stores/current', undefined, bearer(t.access_token));
      expect(late).toMatchObject({ status: 401, body: { error: { code: 'invalid_api_key' } } });
    } finally {
      h.clock.set(start);
    }
  }, 60_000);
});

describe('svc_stores with an API key', () => {
  test('lists its one store; switch_store is a clear error', async () => {
    const { client } = await mcpClient(h);
    const listed = await call(client, { action: 'list_stores' });
    expect(listed.body.data).toEqual([{ object: 'store', id: h.store.id, name: 'Test store', plan: 'pro', role: null, current: true }]);
    const refused = await call(client, { action: 'switch_store', store_id: other.id });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.body)).toContain('store_switch_unavailable');
    await client.close();
    const rest = await h.call('POST', '/stores/switch', { store_id: other.id });
    expect(rest).toMatchObject({ status: 400, body: { error: { code: 'store_switch_unavailable' } } });
  });
});
