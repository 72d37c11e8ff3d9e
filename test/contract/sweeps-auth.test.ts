/**
 * Convention sweep: authentication and authorization (SPEC 5.1, 7; OWASP API2, API5), over every
 * registered REST route and MCP tool.
 * - A missing, malformed, unknown, revoked or expired credential is 401 invalid_api_key in the
 *   envelope; on the admin API a missing or wrong token is 401 and a store's API key 403.
 * - A key holding every scope but the route's is 403 insufficient_scope naming the scope it needs;
 *   a key holding only that scope runs the action's example to success, over REST and MCP (write
 *   paths included: a cross-plugin call the wrong way round is a 403 here).
 * - A key on another store's URL is 403 store_mismatch (param store_id).
 * - MCP: /agent/mcp answers 401 to the same credentials, also for a session whose key is revoked or
 *   has expired since it opened; a tool outside the key's scopes is not listed, and calling it is a
 *   tool error naming the scope.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createKey } from '../../core/keys';
import notes from '../fixtures/notes';
import { freshWorld, type World } from '../kit/examples';
import { mcpClient } from '../kit/mcp';
import { setup, type Harness } from '../kit/setup';
import {
  adminHeaders,
  allBut,
  call,
  callTool,
  credentialFor,
  envelopeProblems,
  exampleOr,
  fakeModel,
  keyHeaders,
  listToolNames,
  narrowest,
  report,
  send,
  sweepRoutes,
  sweepTools,
  toolErrorProblems,
  type SweepRoute,
} from '../kit/sweep';

const model = fakeModel();
let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: [notes], env: model.env });
});
afterAll(() => model.stop());

/** Random ids for the path: authentication comes before anything looks at them. */
const anyInput = (route: SweepRoute) => Object.fromEntries(route.params.map((p) => [p, crypto.randomUUID()]));
const isStoreCredentialRoute = (r: SweepRoute) => r.auth.includes('api_key') || r.auth.includes('user');

/** Keys of one store that no longer work: revoked (through the admin API) and expired. */
async function deadKeys(storeId: string) {
  const revoked = await createKey(h.db, h.clock, { storeId, scopes: [...h.registry.scopes], livemode: false });
  const r = await send(h, 'DELETE', `/v1/stores/${storeId}/api-keys/${revoked.id}`, undefined, adminHeaders);
  expect(r.status).toBe(200);
  const expired = await createKey(h.db, h.clock, {
    storeId,
    scopes: [...h.registry.scopes],
    livemode: false,
    expiresAt: new Date(h.clock.now().getTime() - 1000),
  });
  return { revoked: revoked.key!, expired: expired.key! };
}

describe('sweep: authentication and scopes', () => {
  test('REST: every route refuses a missing, malformed, unknown, revoked or expired credential with 401', async () => {
    const w = await freshWorld(h);
    const dead = await deadKeys(w.store.id);
    const keyCases: Record<string, Record<string, string>> = {
      missing: {},
      'empty x-api-key': { 'x-api-key': '' },
      malformed: { 'x-api-key': 'hello' },
      'malformed bearer': { authorization: 'Bearer svc_test_!!' },
      unknown: { 'x-api-key': `svc_test_${'A'.repeat(32)}` },
      'unknown bearer': { authorization: `Bearer svc_live_${'B'.repeat(32)}` },
      revoked: { 'x-api-key': dead.revoked },
      expired: { 'x-api-key': dead.expired },
    };
    const adminCases: Record<string, Record<string, string>> = {
      missing: {},
      'wrong token': { authorization: `Bearer ${'x'.repeat(adminHeaders.authorization.length - 7)}` },
      malformed: { authorization: 'Bearer' },
      'revoked key': { authorization: `Bearer ${dead.revoked}` },
    };
    const problems: string[] = [];
    let routes = 0;
    let requests = 0;
    for (const route of sweepRoutes(h.registry)) {
      if (route.auth.includes('public')) continue;
      routes++;
      const cases = isStoreCredentialRoute(route) ? keyCases : adminCases;
      for (const [name, headers] of Object.entries(cases)) {
        const res = await call(h, route, w.store.id, anyInput(route), headers);
        requests++;
        const issues = envelopeProblems(res, { status: 401, code: 'invalid_api_key' });
        if (issues.length) problems.push(`${route.method} ${route.path}, ${name} credential: ${issues.join('; ')}`);
      }
    }
    report('auth (401)', { routes, requests });
    expect(problems).toEqual([]);
  }, 120_000);

  test("REST: a store's API key on an admin route is 403 insufficient_scope (SPEC 7: admin-only endpoint)", async () => {
    const w = await freshWorld(h);
    const problems: string[] = [];
    const admin = sweepRoutes(h.registry).filter((r) => r.auth.length === 1 && r.auth[0] === 'admin');
    for (const route of admin) {
      const res = await call(h, route, w.store.id, anyInput(route), keyHeaders(w.key));
      const issues = envelopeProblems(res, { status: 403, code: 'insufficient_scope' });
      if (issues.length) problems.push(`${route.method} ${route.path}: ${issues.join('; ')}`);
    }
    report('auth (admin routes)', { routes: admin.length });
    expect(admin.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 60_000);

  test('REST: every route needs its scope: without it 403 insufficient_scope naming it; with only it, its example succeeds', async () => {
    const w = await freshWorld(h);
    const problems: string[] = [];
    const uncovered = new Set<string>();
    const keys = new Map<string, string>();
    const keyFor = async (scopes: string[], world: World = w) => {
      const id = `${world.store.id} ${scopes.join(' ')}`;
      if (!keys.has(id)) keys.set(id, (await createKey(h.db, h.clock, { storeId: world.store.id, scopes, livemode: false })).key!);
      return keys.get(id)!;
    };
    let routes = 0;
    let succeeded = 0;
    for (const route of sweepRoutes(h.registry).filter(isStoreCredentialRoute)) {
      routes++;
      const accepted = route.plugin.scopes[route.action.kind === 'read' ? 'read' : 'write'];
      if (!accepted.length) {
        problems.push(`${route.name}: declares no scope`);
        continue;
      }
      const denied = await call(h, route, w.store.id, anyInput(route), keyHeaders(await keyFor(allBut(h.registry, accepted))));
      const issues = envelopeProblems(denied, { status: 403, code: 'insufficient_scope' });
      if (denied.body?.error?.message && !accepted.some((s) => denied.body.error.message.includes(s)))
        issues.push(`message names no accepted scope: ${denied.body.error.message}`);
      if (issues.length) problems.push(`${route.method} ${route.path} without ${accepted.join('|')}: ${issues.join('; ')}`);
      // The real call, write paths included: the example (made with an all-scopes key in a fresh
      // store) sent with a key holding only the route's narrowest scope must do what it declares.
      // An action that calls another plugin it does not `requires` fails here: that call is held
      // to the caller's scopes.
      const own = await freshWorld(h);
      const input = await exampleOr(own, route, problems, uncovered);
      if (!input) continue;
      const allowed = await call(h, route, own.store.id, input, keyHeaders(await keyFor([narrowest(accepted)], own)));
      if (allowed.status !== route.status)
        problems.push(`${route.method} ${route.path} with only ${narrowest(accepted)}: ${allowed.status} ${allowed.text.slice(0, 200)}`);
      else succeeded++;
    }
    report('auth (scopes)', { routes, keys: keys.size, 'examples run with a narrow key': succeeded }, [...uncovered]);
    expect(problems).toEqual([]);
  }, 120_000);

  test("REST: a key on another store's URL is 403 store_mismatch; the operator on a store that does not exist, 404", async () => {
    const a = await freshWorld(h);
    const b = await freshWorld(h);
    const problems: string[] = [];
    let routes = 0;
    for (const route of sweepRoutes(h.registry)) {
      if (route.scope !== 'store') continue;
      routes++;
      // Store credentials meet another store's URL; the operator and the public, a store that does not exist.
      const [res, expected] = isStoreCredentialRoute(route)
        ? [await call(h, route, b.store.id, anyInput(route), keyHeaders(a.key)), { status: 403, code: 'store_mismatch', param: 'store_id' }]
        : [
            await call(h, route, crypto.randomUUID(), anyInput(route), credentialFor(route, a)),
            { status: 404, code: 'resource_missing', param: 'store_id' },
          ];
      const issues = envelopeProblems(res, expected);
      if (res.body?.error && res.body.error.param !== expected.param) issues.push(`param ${res.body.error.param}, expected ${expected.param}`);
      if (issues.length) problems.push(`${route.method} ${route.path}: ${issues.join('; ')}`);
    }
    report('auth (store mismatch)', { routes });
    expect(problems).toEqual([]);
  }, 60_000);
});

const ACCEPT = 'application/json, text/event-stream';
const rpc = (method: string, params: object = {}, id = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const mcpPost = (body: string, headers: Record<string, string>) =>
  send(h, 'POST', '/agent/mcp', body, { accept: ACCEPT, 'mcp-protocol-version': '2025-11-25', ...headers });
const INIT = rpc('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sweep', version: '1' } });

describe('sweep: MCP authentication and scopes', () => {
  test('/agent/mcp answers 401 to a missing, malformed, unknown, revoked or expired key, also mid-session on every tool', async () => {
    const w = await freshWorld(h);
    const dead = await deadKeys(w.store.id);
    const problems: string[] = [];
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      malformed: { 'x-api-key': 'hello' },
      unknown: { authorization: `Bearer svc_test_${'A'.repeat(32)}` },
      revoked: { 'x-api-key': dead.revoked },
      expired: { 'x-api-key': dead.expired },
    };
    for (const [name, headers] of Object.entries(cases)) {
      const res = await mcpPost(INIT, headers);
      if (res.status !== 401 || !res.headers.get('www-authenticate')?.startsWith('Bearer'))
        problems.push(`initialize with a ${name} key: ${res.status} ${res.text.slice(0, 200)}`);
    }
    // Sessions are not credentials: a key revoked, or expired, after its session opened is refused on every call.
    const tools = sweepTools(h.registry);
    const soon = new Date(h.clock.now().getTime() + 3600_000);
    for (const ending of ['revoked', 'expired'] as const) {
      const k = await createKey(h.db, h.clock, { storeId: w.store.id, scopes: [...h.registry.scopes], livemode: false, expiresAt: soon });
      const opened = await mcpPost(INIT, keyHeaders(k.key!));
      const sid = opened.headers.get('mcp-session-id');
      if (opened.status !== 200 || !sid) throw new Error(`initialize failed: ${opened.status} ${opened.text}`);
      const session = { ...keyHeaders(k.key!), 'mcp-session-id': sid };
      await mcpPost(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), session);
      if (ending === 'revoked')
        expect((await send(h, 'DELETE', `/v1/stores/${w.store.id}/api-keys/${k.id}`, undefined, adminHeaders)).status).toBe(200);
      else h.clock.advance(2 * 3600_000);
      try {
        for (const tool of tools) {
          const res = await mcpPost(rpc('tools/call', { name: tool.name, arguments: {} }, 2), session);
          if (res.status !== 401) problems.push(`${tool.name} on a session whose key was ${ending}: ${res.status} ${res.text.slice(0, 200)}`);
        }
      } finally {
        if (ending === 'expired') h.clock.advance(-2 * 3600_000);
      }
    }
    report('auth (MCP 401)', { tools: tools.length, 'credential cases': Object.keys(cases).length + 2 });
    expect(problems).toEqual([]);
  }, 120_000);

  test("a tool outside the key's scopes is not listed, and calling it is an insufficient_scope tool error naming the scope", async () => {
    const w = await freshWorld(h);
    const problems: string[] = [];
    const tools = sweepTools(h.registry);
    // Tools sharing their accepted scopes share one connection.
    const byScopes = Map.groupBy(tools, (t) => t.accepted.join(' '));
    for (const [, group] of byScopes) {
      const accepted = group[0].accepted;
      const key = (await createKey(h.db, h.clock, { storeId: w.store.id, scopes: allBut(h.registry, accepted), livemode: false })).key!;
      const { client } = await mcpClient(h, { key, query: '?tools=flat' });
      try {
        const listed = new Set(await listToolNames(client));
        for (const tool of group) {
          if (listed.has(tool.name)) problems.push(`${tool.name} is listed to a key without ${accepted.join('|')}`);
          const answer = await callTool(
            client,
            tool.name,
            Object.fromEntries(
              Object.keys((tool.action.input as any).properties ?? {})
                .filter((k) => k === 'id')
                .map((k) => [k, crypto.randomUUID()]),
            ),
          );
          const issues = toolErrorProblems(answer, 'insufficient_scope');
          if (!accepted.some((s) => answer.text.includes(s))) issues.push(`names no accepted scope: ${answer.text.slice(0, 200)}`);
          if (issues.length) problems.push(`${tool.name} without ${accepted.join('|')}: ${issues.join('; ')}`);
        }
      } finally {
        await client.close();
      }
    }
    report('auth (MCP scopes)', { tools: tools.length, 'scope sets': byScopes.size });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['notes_list_notes', 'notes_create_note']));
    expect(problems).toEqual([]);
  }, 120_000);

  test('MCP: every tool runs its example for a key holding only its narrowest scope', async () => {
    const problems: string[] = [];
    const uncovered = new Set<string>();
    const tools = sweepTools(h.registry);
    let ok = 0;
    for (const tool of tools) {
      const w = await freshWorld(h);
      const input = await exampleOr(w, tool, problems, uncovered);
      if (!input) continue;
      const scope = narrowest(tool.accepted);
      const key = (await createKey(h.db, h.clock, { storeId: w.store.id, scopes: [scope], livemode: false })).key!;
      const { client } = await mcpClient(h, { key, query: '?tools=flat' });
      try {
        const answer = await callTool(client, tool.name, input);
        if (answer.isError) problems.push(`${tool.name} with only ${scope}: ${answer.text.slice(0, 300)}`);
        else ok++;
      } finally {
        await client.close();
      }
    }
    report('auth (MCP narrow keys)', { tools: tools.length, 'examples run with a narrow key': ok }, [...uncovered]);
    expect(problems).toEqual([]);
  }, 300_000);
});
