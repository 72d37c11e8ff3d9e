import { describe, expect, test } from 'bun:test';
import { createApp } from '../../core/http/app';
import { LOCAL_HOSTS, makeServices } from '../../core/http/services';
import { NO_LIMITS, product, setup as setupApp, type Harness, type SetupOptions } from '../kit/setup';
import { MCP_PATHS, mcpClient } from '../kit/mcp';

const ACCEPT = 'application/json, text/event-stream';
const init = (id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw HTTP request to /agent/mcp, for the transport rules the SDK client never breaks. */
async function post(h: Harness, body: unknown, headers: Record<string, string> = {}) {
  return h.app.handle(
    new Request('http://svc.test/agent/mcp', {
      method: 'POST',
      headers: { 'x-api-key': h.key, accept: ACCEPT, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

const text = (r: any) => r.content[0].text as string;

describe.each(MCP_PATHS)('MCP Streamable HTTP at /agent/mcp (%s path)', (path) => {
  const mcpFastPath = path === 'fast';
  const setup = (o: SetupOptions = {}) => setupApp({ ...o, mcpFastPath });
  test('tools/list gives one tool per category the key may use, plus discover_tools, with truthful annotations', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['products', 'orders', 'discover_tools']));
    for (const t of tools) expect(t.name.length).toBeLessThanOrEqual(64);
    const products = tools.find((t) => t.name === 'products')!;
    expect((products.inputSchema.properties as any).action.enum).toEqual(
      expect.arrayContaining(['list_products', 'get_product', 'create_product', 'update_product', 'delete_product']),
    );
    expect(products.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    await client.close();
  });

  test('a key sees only the tools its scopes allow, and a denied call is a tool error naming the scope, with no data', async () => {
    const h = await setup();
    await h.call('POST', '/products', product());
    const key = await h.newKey(['orders:read']);
    const { client } = await mcpClient(h, { key });
    const { tools } = await client.listTools();
    // fulfillment's reads take orders:read too (issue 46: its SPEC scopes are orders and orders:write)
    expect(tools.map((t) => t.name).sort()).toEqual(['discover_tools', 'fulfillment', 'orders']);
    expect(tools.find((t) => t.name === 'orders')!.annotations).toMatchObject({ readOnlyHint: true });
    const denied: any = await client.callTool({ name: 'products', arguments: { action: 'list_products' } });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain('products:read');
    expect(text(denied)).not.toContain('Widget');
    const write: any = await client.callTool({ name: 'orders', arguments: { action: 'cancel_order', id: crypto.randomUUID() } });
    expect(write.isError).toBe(true);
    expect(text(write)).toContain('orders:write');
    await client.close();
  });

  test('grouped and flat call forms reach the same action and return structuredContent plus text', async () => {
    const h = await setup();
    const p = await h.call('POST', '/products', product({ name: 'Teapot' }));
    const { client } = await mcpClient(h);
    const grouped: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: p.body.id } });
    const flat: any = await client.callTool({ name: 'products_get_product', arguments: { id: p.body.id } });
    expect(grouped.structuredContent).toEqual(p.body);
    expect(flat.structuredContent).toEqual(p.body);
    expect(JSON.parse(text(grouped))).toEqual(p.body);
    await client.close();
  });

  test('writes through MCP change the store like REST does', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    const made: any = await client.callTool({ name: 'products', arguments: { action: 'create_product', name: 'Via MCP', stock_quantity: 4 } });
    expect(made.isError).toBeUndefined();
    const order: any = await client.callTool({
      name: 'orders_create_order',
      arguments: { line_items: [{ product_id: made.structuredContent.id, quantity: 3 }] },
    });
    expect(order.structuredContent.status).toBe('pending');
    expect((await h.call('GET', `/products/${made.structuredContent.id}`)).body.stock_quantity).toBe(1);
    await client.close();
  });

  test('invalid arguments and unknown actions are tool errors naming the field', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    const bad: any = await client.callTool({ name: 'products', arguments: { action: 'create_product', name: 5 } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(text(bad)).error.param).toBe('name');
    const unknown: any = await client.callTool({ name: 'products', arguments: { action: 'explode' } });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse(text(unknown)).error.param).toBe('action');
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  test("discover_tools returns each action's full input schema", async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    const r: any = await client.callTool({ name: 'discover_tools', arguments: { tool_name: 'products' } });
    const create = r.structuredContent.actions.find((a: any) => a.action === 'create_product');
    expect(create.input_schema.required).toContain('name');
    expect(create.input_schema.properties.pricing_data.properties.retail.type).toBe('number');
    expect(create.flat_name).toBe('products_create_product');
    await client.close();
  });

  test('read-only connections list and allow read actions only', async () => {
    const h = await setup();
    const { client } = await mcpClient(h, { query: '?readonly=true' });
    const { tools } = await client.listTools();
    expect((tools.find((t) => t.name === 'products')!.inputSchema.properties as any).action.enum.sort()).toEqual([
      'get_product',
      'get_variant',
      'list_products',
      'list_variants',
    ]);
    const r: any = await client.callTool({ name: 'products', arguments: { action: 'create_product', name: 'Nope' } });
    expect(r.isError).toBe(true);
    expect((await h.call('GET', '/products')).body.data).toHaveLength(0);
    await client.close();
  });

  test('toolsets choose the categories of a connection; flat mode lists one tool per action', async () => {
    const h = await setup();
    const { client } = await mcpClient(h, { query: '?toolsets=orders&tools=flat' });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('orders_create_order');
    expect(names).toContain('orders_list_orders');
    expect(names.some((n) => n.startsWith('products'))).toBe(false);
    await expect(client.callTool({ name: 'products_list_products', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await client.close();
    const res = await post(h, init(), {});
    expect(res.status).toBe(200);
    const bad = await h.app.handle(
      new Request('http://svc.test/agent/mcp?toolsets=nope', {
        method: 'POST',
        headers: { 'x-api-key': h.key, accept: ACCEPT, 'content-type': 'application/json' },
        body: JSON.stringify(init()),
      }),
    );
    expect(bad.status).toBe(400);
  });

  test('a session works whichever API process serves each request (sessions live in the database)', async () => {
    const h = await setup();
    const other = createApp(
      makeServices({ db: h.db, clock: h.clock, registry: h.registry, limits: NO_LIMITS, allowedHosts: ['svc.test', ...LOCAL_HOSTS], mcpFastPath }),
    );
    const { client } = await mcpClient(h, { apps: [h.app, other] });
    for (let i = 0; i < 4; i++) expect((await client.listTools()).tools.length).toBeGreaterThan(1);
    await client.close();
  });

  test('a session terminated through one API process is gone on every other at once (issue 20.9)', async () => {
    const h = await setup();
    const b = createApp(
      makeServices({ db: h.db, clock: h.clock, registry: h.registry, limits: NO_LIMITS, allowedHosts: ['svc.test', ...LOCAL_HOSTS], mcpFastPath }),
    );
    const sid = (await post(h, init())).headers.get('mcp-session-id')!;
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await post(h, list, { 'mcp-session-id': sid })).status).toBe(200); // process A knows the session
    const del = await b.handle(
      new Request('http://svc.test/agent/mcp', { method: 'DELETE', headers: { 'x-api-key': h.key, 'mcp-session-id': sid } }),
    );
    expect(del.status).toBe(200);
    expect((await post(h, list, { 'mcp-session-id': sid })).status).toBe(404);
  });

  test('the GET stream of a session terminated through another process ends too', async () => {
    const h = await setup();
    const sid = (await post(h, init())).headers.get('mcp-session-id')!;
    const get = await h.app.handle(
      new Request('http://svc.test/agent/mcp', {
        headers: { 'x-api-key': h.key, accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      }),
    );
    expect(get.status).toBe(200);
    let ended = false;
    void new Response(get.body).text().then(() => (ended = true));
    // What another process's DELETE leaves behind: no row (its own streams are its own business).
    await h.db.query('DELETE FROM mcp_sessions WHERE id = $1', [sid]);
    // The database announces the deletion; this process ends the stream when it hears it.
    const until = performance.now() + 3000;
    while (!ended && performance.now() < until) await Bun.sleep(20);
    expect(ended).toBe(true);
  }, 15_000);

  test('transport rules: unknown session 404, other credential 404, missing session 400, bad Accept 406, bad JSON -32700, no key 401', async () => {
    const h = await setup();
    const created = await post(h, init());
    const sid = created.headers.get('mcp-session-id')!;
    expect(sid).toMatch(/^[\x21-\x7e]+$/);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await post(h, list, { 'mcp-session-id': 'nope' })).status).toBe(404);
    const otherKey = await h.newKey(['products']);
    expect((await post(h, list, { 'mcp-session-id': sid, 'x-api-key': otherKey })).status).toBe(404);
    expect((await post(h, list)).status).toBe(400);
    expect((await post(h, list, { 'mcp-session-id': sid, accept: 'application/json' })).status).toBe(406);
    const parse = await post(h, '{"jsonrpc": "2.0",', { 'mcp-session-id': sid });
    expect(parse.status).toBe(400);
    expect((await parse.json()).error.code).toBe(-32700);
    const noKey = await post(h, init(), { 'x-api-key': '' });
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get('www-authenticate')).toContain('Bearer');
    const bearer = await post(h, init(), { 'x-api-key': '', authorization: `Bearer ${h.key}` });
    expect(bearer.status).toBe(200);
    const evil = await post(h, init(), { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    const del = await h.app.handle(
      new Request('http://svc.test/agent/mcp', { method: 'DELETE', headers: { 'x-api-key': h.key, 'mcp-session-id': sid } }),
    );
    expect(del.status).toBe(200);
    expect((await post(h, list, { 'mcp-session-id': sid })).status).toBe(404);
  });

  test("another store's data is out of reach through MCP", async () => {
    const a = await setup();
    const b = await setup();
    const theirs = await b.call('POST', '/products', product());
    const { client } = await mcpClient(a);
    const r: any = await client.callTool({ name: 'products_get_product', arguments: { id: theirs.body.id } });
    expect(r.isError).toBe(true);
    expect(JSON.parse(text(r)).error.code).toBe('resource_missing');
    await client.close();
  });

  test('arguments holding text the database cannot store are a validation tool error, and the call is still audited (it was a JSON-RPC internal error)', async () => {
    const h = await setup();
    const { client } = await mcpClient(h, { query: '?tools=flat' });
    for (const args of [{ id: 'x\u0000' }, { id: '\ud800' }]) {
      const r: any = await client.callTool({ name: 'orders_get_order', arguments: args });
      expect(r.isError).toBe(true);
      expect(JSON.parse(text(r)).error.code).toBe('validation_failed');
    }
    await client.close();
    const rows = await h.db.query(`SELECT input->>'id' AS id FROM tool_execution_log() WHERE store_id = $1 AND tool = 'orders' ORDER BY created_at`, [
      h.store.id,
    ]);
    // Both calls are audited; records written in the same instant have no order between them.
    expect(rows.map((r: any) => r.id).sort()).toEqual(['x\ufffd', '\ufffd'].sort());
  });
});
