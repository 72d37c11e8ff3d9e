/** Custom tools as MCP tools: listing, change notifications (this process and others), calls with an audit record. */
import { describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { openToolStreams } from '../../core/mcp/http';
import { setup } from '../../test/kit/setup';
import { mcpClient } from '../../test/kit/mcp';
import { seen, httpB, webhookA, create, mcpJson, eventually, useToolKit } from '../../test/kit/custom-tools';

useToolKit();

describe('custom tools as MCP tools', () => {
  test('a registered tool is listed at once; a client with an open stream is told the list changed', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    // The SDK opens the GET stream right after initialization; give it a moment to be served.
    await Bun.sleep(50);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('double_it');

    const made = await create(h, '/tools', httpB());
    const listed = (await client.listTools()).tools.find((t) => t.name === 'double_it');
    expect(listed).toMatchObject({ name: 'double_it', description: 'Doubles n.', inputSchema: { type: 'object', required: ['n'] } });
    await eventually(() => changes >= 1);

    // Rename and delete are announced too, and the list follows.
    const before = changes;
    await h.call('PATCH', `/custom-tools/${made.id}`, { name: 'double_that' });
    await eventually(() => changes > before);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('double_that');
    const mid = changes;
    await h.call('DELETE', `/tools/${made.id}`);
    await eventually(() => changes > mid);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('double_that');
    await client.close();
  });

  test("another store's private change is not announced to this store", async () => {
    const h = await setup();
    const other = await setup();
    const { client } = await mcpClient(h);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    await Bun.sleep(50);
    await create(other, '/tools', httpB());
    await create(h, '/tools', httpB({ name: 'mine' }));
    await eventually(() => changes >= 1);
    await Bun.sleep(100);
    expect(changes).toBe(1);
    // Published tools are announced to a store when it enables them, or loses them (public-tools.test.ts).
    await client.close();
  });

  test('a tool added by another server process (straight into the shared database) is announced at once, once', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    await Bun.sleep(50);
    // What another API process's create leaves behind: the row, and no announcement from here.
    await h.db.query(
      `INSERT INTO custom_tools (id, store_id, name, shape, description, input_schema, kind, config, visibility, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'from_elsewhere', 'store', 'Made by another node.', '{"type":"object"}', 'javascript',
         '{"code":"return 1"}', 'private', now(), now())`,
      [h.store.id],
    );
    await eventually(() => changes === 1, 5000);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('from_elsewhere');
    await Bun.sleep(300); // one change, one notification from the database: no second announcement
    expect(changes).toBe(1);
    await client.close();
  });

  test('over a real HTTP server: the stream gets the notification, and a closed or ended session is forgotten', async () => {
    const h = await setup();
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => h.app.handle(r) });
    try {
      const connect = async () => {
        const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/agent/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${h.key}` } },
        });
        const client = new Client({ name: 'real', version: '1.0.0' });
        const got: string[] = [];
        client.setNotificationHandler(ToolListChangedNotificationSchema, async (n) => void got.push(n.method));
        await client.connect(transport);
        return { client, transport, got };
      };
      const before = openToolStreams();
      const one = await connect();
      const two = await connect();
      await eventually(() => openToolStreams() >= before + 2);
      const open = openToolStreams();
      await create(h, '/custom-tools', webhookA());
      await eventually(() => one.got.length === 1 && two.got.length === 1);
      expect(one.got).toEqual(['notifications/tools/list_changed']);
      expect((await one.client.listTools()).tools.map((t) => t.name)).toContain('double_a');
      // Closing a client, or ending its session, stops notifications to it.
      await one.client.close();
      await two.transport.terminateSession();
      await eventually(() => openToolStreams() <= open - 2);
      await two.client.close();
    } finally {
      server.stop(true);
    }
  });

  test('tools are hidden on read-only connections and when toolsets leave out custom_tools', async () => {
    const h = await setup();
    await create(h, '/tools', httpB());
    seen.length = 0;
    const readOnly = await mcpClient(h, { query: '?readonly=true' });
    expect((await readOnly.client.listTools()).tools.map((t) => t.name)).not.toContain('double_it');
    const refused: any = await readOnly.client.callTool({ name: 'double_it', arguments: { n: 1 } });
    expect(refused.isError).toBe(true);
    expect(mcpJson(refused).error.code).toBe('insufficient_scope');
    await readOnly.client.close();
    const products = await mcpClient(h, { query: '?toolsets=products' });
    expect((await products.client.listTools()).tools.map((t) => t.name)).not.toContain('double_it');
    await expect(products.client.callTool({ name: 'double_it', arguments: { n: 1 } })).rejects.toThrow(/Unknown tool/);
    await products.client.close();
    expect(seen).toHaveLength(0);
    const { client } = await mcpClient(h, { query: '?toolsets=custom_tools' });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('double_it');
    await client.close();
    // Nor do the management actions show up as tools: they are REST only.
    const all = await mcpClient(h, { query: '?tools=flat' });
    const flat = (await all.client.listTools()).tools.map((t) => t.name);
    const reads = ['custom_tools_list_tools', 'custom_tools_get_tool', 'custom_tools_list_custom_tools', 'custom_tools_get_custom_tool'];
    expect(flat.filter((n) => n.startsWith('custom_tools_')).sort()).toEqual(reads.sort());
    await all.client.close();
  });

  test('calling a tool over MCP returns its result and writes an audit record', async () => {
    const h = await setup();
    await create(h, '/tools', httpB());
    await create(h, '/custom-tools', {
      name: 'shout',
      description: 'Upper-cases.',
      input_schema: { type: 'object', properties: { s: { type: 'string' } } },
      handler: { type: 'javascript', code: 'return { loud: input.s.toUpperCase() };' },
    });
    const { client } = await mcpClient(h);
    const res: any = await client.callTool({ name: 'double_it', arguments: { n: 7 } });
    expect(res.isError).toBeUndefined();
    expect(res.structuredContent).toMatchObject({ doubled: 14 });
    expect(JSON.parse(res.content[0].text)).toMatchObject({ doubled: 14 });
    expect(mcpJson(await client.callTool({ name: 'shout', arguments: { s: 'hey' } }))).toEqual({ loud: 'HEY' });
    const bad: any = await client.callTool({ name: 'double_it', arguments: { n: 'x' } });
    expect(bad.isError).toBe(true);
    expect(mcpJson(bad).error.param).toBe('n');
    await client.close();

    const log = await h.call('GET', '/tool-executions?tool=double_it');
    expect(log.status).toBe(200);
    expect(log.body.total).toBe(2);
    const [failed, ok] = log.body.executions;
    expect(ok).toMatchObject({ tool: 'double_it', action: 'run', status: 'success', source: 'mcp', input: { n: 7 }, output: { doubled: 14 } });
    expect(Number.isInteger(ok.duration_ms)).toBe(true);
    expect(ok.duration_ms).toBeGreaterThanOrEqual(0);
    expect(failed).toMatchObject({ tool: 'double_it', action: 'run', status: 'error', source: 'mcp' });
    const shout = await h.call('GET', '/tool-executions?tool=shout&status=success');
    expect(shout.body.executions).toEqual([expect.objectContaining({ tool: 'shout', action: 'run', output: { loud: 'HEY' } })]);
  });
});
