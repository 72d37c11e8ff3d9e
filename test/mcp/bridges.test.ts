import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { product, setup, type Harness } from '../kit/setup';
import { eventually } from '../kit/custom-tools';
import { conformancePlugins } from '../fixtures/conformance';
import { refundToolAskingFirst } from '../kit/mcp';
import { SERVER_CAPABILITIES } from '../../core/mcp/server';

setDefaultTimeout(60_000);

const CLI = join(import.meta.dir, '..', '..', 'core', 'cli.ts');
let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let url: string;
const upstreamSaw: { method: string; session: string | null; body?: any }[] = [];

beforeAll(async () => {
  // The conformance fixtures: an interactive action's progress and logs, a plugin prompt whose argument completes.
  h = await setup({ extra: conformancePlugins });
  // A custom tool that asks the human behind the call before it runs (requires_confirmation).
  await refundToolAskingFirst(h);
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (r) => {
      // What reaches /agent/mcp, as the bridges send it.
      if (new URL(r.url).pathname === '/agent/mcp')
        upstreamSaw.push({
          method: r.method,
          session: r.headers.get('mcp-session-id'),
          body: r.method === 'POST' ? await r.clone().json() : undefined,
        });
      return h.app.handle(r);
    },
  });
  url = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

const home = () => mkdtempSync(join(tmpdir(), 'svc-home-'));

async function stdioClient(args: string[], env: Record<string, string>, client = new Client({ name: 'stdio-test', version: '1' })) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  return client;
}

/** A client that takes form elicitation, answering each question with the next of `answers`, and sampling. */
function eliciting(answers: ElicitResult[]) {
  const asked: any[] = [];
  const client = new Client(
    { name: 'eliciting', version: '1' },
    {
      // MCP Apps too: the server offers its views to a client that declares the extension.
      capabilities: {
        elicitation: { form: {} },
        sampling: {},
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
    },
  );
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return answers.shift()!;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'Forty-two.' },
    model: 'test-model',
    stopReason: 'endTurn',
  }));
  return { client, asked };
}

const refunds = async () => (await h.call('GET', '/tool-executions?tool=refund_order&limit=50')).body.executions as any[];

/** What every bridge must carry besides tools: a confirmation asked by elicitation, resources, prompts, progress, logs, sampling, tasks. */
async function carriesEverything(client: Client, asked: any[]) {
  // Accepted, the custom tool runs; the question named it.
  const before = (await refunds()).length;
  const ran: any = await client.callTool({ name: 'refund_order', arguments: { amount: 12.5 } });
  expect(ran.isError).toBeUndefined();
  expect(ran.structuredContent).toEqual({ refunded: 12.5 });
  expect(asked).toHaveLength(1);
  expect(asked[0].message).toContain('refund_order');
  expect(asked[0].requestedSchema.properties.confirm.type).toBe('boolean');
  // Declined, it does not run: a tool error, the refusal audited and no run recorded.
  const refused: any = await client.callTool({ name: 'refund_order', arguments: { amount: 99 } });
  expect(refused.isError).toBe(true);
  expect(JSON.parse(refused.content[0].text).error).toMatchObject({ code: 'approval_rejected', message: expect.stringContaining('declined') });
  const log = await refunds();
  expect(log.length).toBe(before + 2);
  expect(log.map((e) => e.status)).toEqual(['rejected', 'success', ...log.slice(2).map((e) => e.status)]);

  // Resources: a record's template, read as the REST GET returns it; a plugin's own fixed resource.
  const p = await h.call('POST', '/products', product({ name: 'Bridged mug' }));
  expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain('svc://products/{id}');
  const fixed = (await client.listResources()).resources.map((r) => r.uri);
  expect(fixed).toContain('test://static-text');
  expect(fixed).toContain('ui://svc/product-card');
  const read = await client.readResource({ uri: `svc://products/${p.body.id}` });
  expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: p.body.id, name: 'Bridged mug' });

  // Prompts, and an argument completed.
  expect((await client.listPrompts()).prompts.map((x) => x.name)).toContain('low_stock_check');
  const got = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x', arg2: 'y' } });
  expect(got.messages[0].content).toEqual({ type: 'text', text: "Prompt with arguments: arg1='x', arg2='y'" });
  const done = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
  expect(done.completion.values).toEqual(['paris', 'park', 'party']);

  // An interactive action's progress, under the client's own token and before the answer, and log
  // messages at the level the client set. (Progress is taken by a handler of its own: the SDK's
  // onprogress drops a notification read in the same chunk as the answer, whoever sent it.)
  const seen: unknown[] = [];
  client.setNotificationHandler(ProgressNotificationSchema, (n) => void seen.push([n.params.progressToken, n.params.progress]));
  const progressed: any = await client.callTool({ name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'mine' } });
  expect(progressed.isError).toBeUndefined();
  expect(seen).toEqual([
    ['mine', 0],
    ['mine', 50],
    ['mine', 100],
  ]);
  const logs: any[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.setLoggingLevel('info');
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  expect(logs.map((l) => l.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);

  // The client's model, asked by sampling during a call.
  const sampled: any = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'What is six times seven?' } });
  expect(sampled.structuredContent).toEqual({ text: 'LLM response: Forty-two.' });

  // A call run as a task, its result fetched later.
  const { task } = await client.request(
    { method: 'tools/call', params: { name: 'products', arguments: { action: 'get_product', id: p.body.id }, task: {} } },
    CreateTaskResultSchema,
  );
  const result: any = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  expect(result.structuredContent.name).toBe('Bridged mug');
  return p.body.id as string;
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

  test('carries everything the hosted endpoint offers, as the client declared itself: capabilities, confirmations by elicitation, resources and subscriptions, prompts, completion, progress, logs, sampling, tasks, list changes', async () => {
    const { client, asked } = eliciting([{ action: 'accept', content: { confirm: true } }, { action: 'decline' }]);
    await stdioClient(['--store', h.store.id, '--url', url], { SVC_API_KEY: h.key, HOME: home() }, client);
    // initialize answers what the server advertises, not tools alone.
    expect(client.getServerCapabilities()).toEqual(SERVER_CAPABILITIES);
    expect(client.getInstructions()).toContain('discover_tools');
    const id = await carriesEverything(client, asked);

    // A subscription hears a change made through REST, on the server's stream the bridge relays.
    const uri = `svc://products/${id}`;
    const heard = new Promise<string>((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    await client.subscribeResource({ uri });
    expect((await h.call('PATCH', `/products/${id}`, { name: 'Bridged mug, renamed' })).status).toBe(200);
    expect(await heard).toBe(uri);
    await client.unsubscribeResource({ uri });

    // A tool added through REST: the server's tools/list_changed reaches the client, and the list has it.
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    const made = await h.call('POST', '/tools', {
      name: 'bridged_tool',
      description: 'Added while a client is on the bridge.',
      parameters: { type: 'object', properties: {} },
      execution_type: 'javascript',
      execution_config: { code: 'return 1;' },
    });
    expect(made.status).toBe(201);
    await changed;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('bridged_tool');
    await client.close();
  });

  test("a call waiting on the client holds up nothing; the client's cancellation reaches the server; closing the client ends its server session", async () => {
    let askedNow!: () => void;
    const asked = new Promise<void>((resolve) => (askedNow = resolve));
    const client = new Client({ name: 'cancelling', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    // The human never answers the confirmation; the client gives up on the call instead.
    client.setRequestHandler(ElicitRequestSchema, () => {
      askedNow();
      return new Promise<never>(() => {});
    });
    await stdioClient(['--store', h.store.id, '--url', url], { SVC_API_KEY: h.key, HOME: home() }, client);
    const giveUp = new AbortController();
    const call = client.callTool({ name: 'refund_order', arguments: { amount: 7.25 } }, undefined, { signal: giveUp.signal });
    await asked;
    // Meanwhile the client's other requests are answered: a call waiting on the client holds up nothing.
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('refund_order');
    giveUp.abort('changed my mind');
    await expect(call).rejects.toThrow(/changed my mind/);
    const sent = upstreamSaw.find((m) => m.body?.method === 'tools/call' && m.body.params.arguments?.amount === 7.25)!;
    const cancelled = () => upstreamSaw.find((m) => m.body?.method === 'notifications/cancelled' && m.body.params.requestId === sent.body.id);
    await eventually(() => !!cancelled(), 10_000);
    expect(cancelled()!.body.params.reason).toBe('changed my mind');
    expect(cancelled()!.session).toBe(sent.session);
    await client.close();
    await eventually(() => upstreamSaw.some((m) => m.method === 'DELETE' && m.session === sent.session), 10_000);
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
      const { client, asked } = eliciting([{ action: 'accept', content: { confirm: true } }, { action: 'decline' }]);
      await client.connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('orders');
      const r: any = await client.callTool({ name: 'products_list_products', arguments: { limit: 1 } });
      expect(r.structuredContent.object).toBe('list');
      expect(client.getServerCapabilities()).toEqual(SERVER_CAPABILITIES);
      await carriesEverything(client, asked);
      await client.close();
    } finally {
      bridge.kill();
      await bridge.exited;
    }
  });
});
