import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { product, setup, type Harness } from '../kit/setup';

const CLI = join(import.meta.dir, '..', '..', 'core', 'cli.ts');
let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let url: string;

beforeAll(async () => {
  h = await setup();
  server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (r) => h.app.handle(r) });
  url = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

const home = () => mkdtempSync(join(tmpdir(), 'svc-home-'));

async function stdioClient(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1' });
  await client.connect(transport);
  return client;
}

describe('svc mcp over stdio (bridge to a running server)', () => {
  test('lists and calls tools with the key from SVC_API_KEY, and exits when stdin closes', async () => {
    const p = await h.call('POST', '/products', product({ name: 'Stdio mug' }));
    const client = await stdioClient(['--store', h.store.id, '--url', url], { SVC_API_KEY: h.key, HOME: home() });
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('products');
    const r: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: p.body.id } });
    expect(r.structuredContent.name).toBe('Stdio mug');
    // The server's JSON-RPC error comes through the bridge as it was sent: one "MCP error" prefix.
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e: Error) => e);
    expect((unknown as Error).message).toBe('MCP error -32602: Unknown tool: no_such_tool');
    await client.close();
  });

  test('svc login keeps the URL and key in ~/.svc/session.json (0600), which svc mcp then uses', async () => {
    const dir = home();
    const proc = Bun.spawn([process.execPath, CLI, 'login', '--url', url, '--key', h.key], { env: { ...process.env, HOME: dir }, stderr: 'pipe' });
    expect(await proc.exited).toBe(0);
    const file = join(dir, '.svc', 'session.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const client = await stdioClient(['--store', h.store.id, '--toolsets', 'orders'], { HOME: dir });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['discover_tools', 'orders']);
    await client.close();
  });

  test('a bad key, another store or an unreachable server is a clear JSON-RPC error, not a crash', async () => {
    const bad = await stdioClient(['--store', h.store.id, '--url', url], { SVC_API_KEY: 'svc_test_' + 'x'.repeat(32), HOME: home() });
    const refused = await bad.listTools().catch((e: Error) => e);
    expect((refused as Error).message).toMatch(/^MCP error -32600: The svc server at \S+ refused the API key/);
    await bad.close();
    const other = await setup();
    const wrongStore = await stdioClient(['--store', other.store.id, '--url', url], { SVC_API_KEY: h.key, HOME: home() });
    await expect(wrongStore.listTools()).rejects.toThrow(/403/);
    await wrongStore.close();
    const down = await stdioClient(['--store', h.store.id, '--url', 'http://127.0.0.1:9'], { SVC_API_KEY: h.key, HOME: home() });
    await expect(down.listTools()).rejects.toThrow(/Cannot reach the svc server/);
    // Still alive after the error: the next call answers too.
    await expect(down.listTools()).rejects.toThrow(/Cannot reach the svc server/);
    await down.close();
  });
});

describe('svc mcp --transport sse (legacy HTTP+SSE)', () => {
  test('GET /sse and POST /messages need a Bearer key, then list and call tools', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const bridge = Bun.spawn([process.execPath, CLI, 'mcp', '--transport', 'sse', '--port', String(port), '--store', h.store.id, '--url', url], {
      env: { ...process.env, HOME: home() },
      stderr: 'pipe',
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 100; i++) {
        try {
          await fetch(`${base}/sse`);
          break;
        } catch {
          await Bun.sleep(100);
        }
      }
      expect((await fetch(`${base}/sse`)).status).toBe(401);
      expect((await fetch(`${base}/messages?sessionId=x`, { method: 'POST', body: '{}' })).status).toBe(401);
      const auth = { Authorization: `Bearer ${h.key}` };
      const transport = new SSEClientTransport(new URL(`${base}/sse`), {
        eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as any), ...auth } }) },
        requestInit: { headers: auth },
      });
      const client = new Client({ name: 'sse-test', version: '1' });
      await client.connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('orders');
      const r: any = await client.callTool({ name: 'products_list_products', arguments: { limit: 1 } });
      expect(r.structuredContent.object).toBe('list');
      await client.close();
    } finally {
      bridge.kill();
      await bridge.exited;
    }
  });
});
