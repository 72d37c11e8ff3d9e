/**
 * The console's sign-in exchange (issue 27): a browser session becomes a user access token of one
 * of the user's stores, only for a request from our own page; signing out stops those tokens.
 */
import { expect, test } from 'bun:test';
import { createStore } from '../../core/keys';
import { setup } from '../../test/kit/setup';
import { addUser, browser, uniqueIp } from '../../test/kit/users';

const ORIGIN = 'http://svc.test';
const page = { origin: ORIGIN, 'x-svc-console': '1', 'content-type': 'application/json' };

async function signedIn(role = 'staff') {
  // An address of its own: sign-in throttling counts per address in the shared test database.
  const h = await setup({ env: { SVC_TRUST_PROXY: 'true' } });
  const user = await addUser(h, role);
  const b = browser(h, { ip: uniqueIp() });
  await b.signIn(user.email);
  const cookie = [...b.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = page) =>
    h.app.handle(
      new Request(`${ORIGIN}${path}`, { method, headers: { cookie, ...headers }, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
  return { h, user, send };
}

test("the session names the user's stores with their role; the token acts with that role's scopes", async () => {
  const { h, user, send } = await signedIn('staff');
  const session = await (await send('GET', '/auth/console/session')).json();
  expect(session).toMatchObject({ object: 'console_session', user: { id: user.id, email: user.email } });
  expect(session.stores).toEqual([{ id: h.store.id, name: 'Test store', role: 'staff' }]);

  const res = await send('POST', '/auth/console/token', { store_id: h.store.id });
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toContain('no-store');
  const token = await res.json();
  expect(token).toMatchObject({ token_type: 'Bearer', role: 'staff', store_id: h.store.id });
  const bearer = { authorization: `Bearer ${token.access_token}`, 'x-api-key': '' };
  expect((await h.call('GET', '/products', undefined, bearer)).status).toBe(200);
  // Staff may not manage keys (platform): the token holds no more than the role.
  expect((await h.call('POST', '/api-keys', {}, bearer)).status).toBe(403);
}, 60_000);

test("a store the user is not a member of is a 404; without a session it is a 401; another site's request a 403", async () => {
  const { h, send } = await signedIn();
  const other = await createStore(h.db, h.clock, { name: 'Not mine', plan: 'pro' });
  expect((await send('POST', '/auth/console/token', { store_id: other.id })).status).toBe(404);
  const anonymous = await h.app.handle(
    new Request(`${ORIGIN}/auth/console/token`, { method: 'POST', headers: page, body: JSON.stringify({ store_id: h.store.id }) }),
  );
  expect(anonymous.status).toBe(401);
  const forged = await send(
    'POST',
    '/auth/console/token',
    { store_id: h.store.id },
    { origin: 'https://evil.example', 'content-type': 'application/json' },
  );
  expect(forged.status).toBe(403);
  expect((await forged.json()).error.code).toBe('cross_site_request');
}, 60_000);

test("signing out ends the session and the console's tokens", async () => {
  const { h, send } = await signedIn();
  const token = (await (await send('POST', '/auth/console/token', { store_id: h.store.id })).json()).access_token;
  const bearer = { authorization: `Bearer ${token}`, 'x-api-key': '' };
  expect((await h.call('GET', '/products', undefined, bearer)).status).toBe(200);
  expect((await send('POST', '/auth/console/logout', {})).status).toBe(200);
  expect((await h.call('GET', '/products', undefined, bearer)).status).toBe(401);
  expect((await send('GET', '/auth/console/session')).status).toBe(401);
}, 60_000);

test('the token lists the operations the role may call, as the API decides them, and the roles it may give', async () => {
  const { restRoutes } = await import('../../core/http/rest');
  for (const role of ['viewer', 'staff', 'approver']) {
    const { h, send } = await signedIn(role);
    const token = await (await send('POST', '/auth/console/token', { store_id: h.store.id })).json();
    const bearer = { authorization: `Bearer ${token.access_token}`, 'x-api-key': '' };
    const listed = new Set<string>(token.operations);
    // Every store route a user's token may take, asked with this token: refused for its scope
    // exactly when the token's answer leaves it out (any other answer means the scope let it in).
    const routes = restRoutes(h.registry).filter(
      (r) => r.scope === 'store' && r.auth.includes('user') && r.action.rest?.contentType !== 'text/event-stream',
    );
    expect(routes.length).toBeGreaterThan(50);
    for (const r of routes) {
      const path = r.path.replace('/v1/stores/:storeId', '').replace(/:[a-z_]+/gi, crypto.randomUUID());
      const res = await h.call(r.method, path, r.method === 'GET' || r.method === 'DELETE' ? undefined : {}, bearer);
      const refused = res.status === 403 && res.body?.error?.code === 'insufficient_scope';
      expect({ operation: `${r.plugin.name}.${r.actionName}`, refused }).toEqual({
        operation: `${r.plugin.name}.${r.actionName}`,
        refused: !listed.has(`${r.plugin.name}.${r.actionName}`),
      });
    }
    expect(listed.has('products.list_products')).toBe(true);
    expect(listed.has('products.create_product')).toBe(role === 'staff');
    // Deciding a held call is the approver's (and owner's, admin's), not staff's, though staff write `ai`.
    expect(listed.has('tool_executions.approve_execution')).toBe(role === 'approver');
    expect(listed.has('tool_executions.reject_execution')).toBe(role === 'approver');
    expect(token.assignable_roles).toEqual([]);
  }
  for (const [role, gives] of [
    ['owner', ['owner', 'admin', 'approver', 'staff', 'viewer']],
    ['admin', ['admin', 'approver', 'staff', 'viewer']],
  ] as const) {
    const { h, send } = await signedIn(role);
    const token = await (await send('POST', '/auth/console/token', { store_id: h.store.id })).json();
    expect(token.assignable_roles).toEqual(gives);
    expect(token.operations).toContain('users.update_member');
    expect(token.operations).toContain('tool_executions.approve_execution');
  }
}, 120_000);

/** A call held for approval in h's store: a custom tool that requires approval, called as an MCP client would. */
async function heldCall(h: Awaited<ReturnType<typeof signedIn>>['h']) {
  const { callerCtx } = await import('../../core/plugins/invoke');
  const { callTool, resolveTarget } = await import('../../core/platform');
  const { createKey } = await import('../../core/keys');
  const name = `needs_a_yes_${crypto.randomUUID().slice(0, 8)}`;
  const made = await h.call('POST', '/tools', {
    name,
    description: 'Doubles a number.',
    parameters: { type: 'object', properties: { n: { type: 'number' } } },
    execution_type: 'javascript',
    execution_config: { code: 'return (params.n ?? 1) * 2;' },
    requires_approval: true,
  });
  expect(made.status).toBe(201);
  const scopes = ['ai'];
  const key = await createKey(h.db, h.clock, { storeId: h.store.id, scopes, livemode: false });
  const ctx = callerCtx(h, { kind: 'api_key', keyId: key.id, storeId: h.store.id, scopes, livemode: false }, h.store, { requestId: 'req_held' });
  const outcome = await callTool({ ...ctx, source: 'mcp' }, (await resolveTarget(h.db, h.registry, h.store.id, name, { n: 2 }))!);
  return outcome.executionId as string;
}

test("deciding a held call: a staff member's token is refused (approvals:write), an approver's decides; an API key with ai:write still may", async () => {
  const staff = await signedIn('staff');
  const staffToken = (await (await staff.send('POST', '/auth/console/token', { store_id: staff.h.store.id })).json()).access_token;
  const id = await heldCall(staff.h);
  const refused = await staff.h.call('POST', `/tool-executions/${id}/approve`, {}, { authorization: `Bearer ${staffToken}`, 'x-api-key': '' });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toMatchObject({ code: 'insufficient_scope' });
  expect(refused.body.error.message).toContain('approvals:write');
  expect((await staff.h.call('GET', `/tool-executions/${id}`)).body.status).toBe('pending_approval');
  // API keys keep the plugin's write scopes (SPEC 5.4): ai:write decides.
  const byKey = await staff.h.call('POST', `/tool-executions/${id}/approve`, {}, { 'x-api-key': await staff.h.newKey(['ai:write']) });
  expect(byKey.status).toBe(200);

  const approver = await signedIn('approver');
  const token = (await (await approver.send('POST', '/auth/console/token', { store_id: approver.h.store.id })).json()).access_token;
  const held = await heldCall(approver.h);
  const approved = await approver.h.call('POST', `/tool-executions/${held}/approve`, {}, { authorization: `Bearer ${token}`, 'x-api-key': '' });
  expect(approved.status).toBe(200);
  expect(approved.body).toMatchObject({ id: held, status: 'approved' });
}, 120_000);
