/**
 * The MCP fast path (core/mcp/fast-call.ts) against the SDK path it shortcuts: what it leaves to
 * the SDK still works, and for what it answers itself it answers exactly as the SDK does.
 */
import { describe, expect, test } from 'bun:test';
import { createApp } from '../../core/http/app';
import { LOCAL_HOSTS, makeServices } from '../../core/http/services';
import { fastToolCall } from '../../core/mcp/fast-call';
import { NO_LIMITS, product, setup, type Harness } from '../kit/setup';
import { mcpClient } from '../kit/mcp';

const HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

/** An app over the harness's database and registry, with the fast path on or off. */
const appWith = (h: Harness, mcpFastPath: boolean) =>
  createApp(
    makeServices({ db: h.db, clock: h.clock, registry: h.registry, limits: NO_LIMITS, allowedHosts: ['svc.test', ...LOCAL_HOSTS], mcpFastPath }),
  );

async function post(app: { handle: (r: Request) => Promise<Response> }, key: string, body: unknown, sid?: string) {
  const headers: Record<string, string> = { ...HEADERS, 'x-api-key': key };
  if (sid) headers['mcp-session-id'] = sid;
  return app.handle(new Request('http://svc.test/agent/mcp', { method: 'POST', headers, body: JSON.stringify(body) }));
}

async function session(h: Harness) {
  const res = await post(h.app, h.key, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  return res.headers.get('mcp-session-id')!;
}

const toolsCall = (id: number, name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...extra },
});

describe('what the fast path leaves to the SDK', () => {
  test('a tools/call with a progress token works (SDK path)', async () => {
    const h = await setup();
    const p = await h.call('POST', '/products', product({ name: 'Kettle' }));
    const body = toolsCall(1, 'products_get_product', { id: p.body.id }, { _meta: { progressToken: 'p1' } });
    const never = () => Promise.reject(new Error('the fast path must not run this call'));
    expect(
      await fastToolCall(
        new Request('http://svc.test/agent/mcp', { method: 'POST', headers: HEADERS }),
        body,
        { id: 'session-1', options: { mode: 'grouped', readOnly: false } },
        never,
      ),
    ).toBeUndefined();

    const { client } = await mcpClient(h);
    const progress: unknown[] = [];
    const r: any = await client.callTool({ name: 'products', arguments: { action: 'get_product', id: p.body.id } }, undefined, {
      onprogress: (e) => progress.push(e),
    });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual(p.body);
    await client.close();
  });

  test('a tools/call in a session that set a log level works, answered over SSE (SDK path)', async () => {
    const h = await setup();
    const p = await h.call('POST', '/products', product({ name: 'Toaster' }));
    const sid = await session(h);
    const set = await post(h.app, h.key, { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }, sid);
    expect(set.status).toBe(200);
    await set.text();

    const call = await post(h.app, h.key, toolsCall(2, 'products_get_product', { id: p.body.id }), sid);
    expect(call.status).toBe(200);
    expect(call.headers.get('content-type')).toContain('text/event-stream');
    const events = (await call.text()).split('\n').filter((l) => l.startsWith('data: '));
    const answer = events.map((l) => JSON.parse(l.slice(6))).find((m) => m.id === 2);
    expect(answer.result.structuredContent).toEqual(p.body);

    // The SDK client sees the same through its own setLoggingLevel.
    const { client } = await mcpClient(h);
    await client.setLoggingLevel('debug');
    const r: any = await client.callTool({ name: 'products_get_product', arguments: { id: p.body.id } });
    expect(r.structuredContent.name).toBe('Toaster');
    await client.close();
  });
});

test('the fast and the SDK path answer the same tools/call byte for byte', async () => {
  const h = await setup();
  const p = await h.call('POST', '/products', product({ name: 'Lamp', description: 'Ünïcode "quoted" \u2028 text' }));
  // One session, served in turn by a process with the fast path and one without (sessions live
  // in the database). Only reads and refusals: a write would differ in the ids it creates, and the
  // audit records each call writes are not part of the answer.
  const fast = appWith(h, true);
  const sdk = appWith(h, false);
  const sid = await session(h);
  const calls = [
    toolsCall(7, 'products_get_product', { id: p.body.id }),
    toolsCall(8, 'products', { action: 'list_products', limit: 5 }),
    toolsCall(9, 'products_get_product', { id: crypto.randomUUID() }), // a tool error
    toolsCall(10, 'products_create_product', { name: 5 }), // invalid arguments
    toolsCall(11, 'no_such_tool', {}), // a JSON-RPC error
    toolsCall(12, 'discover_tools', { tool_name: 'orders' }),
    { ...toolsCall(0, 'products_get_product', { id: p.body.id }), id: 'a string id' },
  ];
  for (const body of calls) {
    const [a, b] = [await post(fast, h.key, body, sid), await post(sdk, h.key, body, sid)];
    expect({ status: a.status, type: a.headers.get('content-type') }).toEqual({ status: b.status, type: b.headers.get('content-type') });
    expect(await a.text()).toBe(await b.text());
  }
});
