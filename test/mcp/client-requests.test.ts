/**
 * ctx.mcp (plugins/README.md, "Talking to the MCP client"): an interactive action's logs,
 * progress, sampling and elicitation reach the SDK's own client on the call's stream, and a client
 * that did not declare a capability gets a tool error naming it; and a plugin's own resources and
 * prompts (`mcpContent`). The plugins are the conformance suite's fixtures (test/fixtures/conformance.ts).
 */
import { beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { setup, type Harness } from '../kit/setup';
import { conformancePlugins } from '../fixtures/conformance';

setDefaultTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: conformancePlugins });
}, 60_000);

async function connect(capabilities: ClientCapabilities = {}) {
  const transport = new StreamableHTTPClientTransport(new URL('http://svc.test/agent/mcp'), {
    fetch: ((input: string | URL | Request, init?: RequestInit) => h.app.handle(new Request(input, init))) as typeof fetch,
    requestInit: { headers: { 'x-api-key': h.key } },
  });
  const client = new Client({ name: 'client-requests', version: '1' }, { capabilities });
  await client.connect(transport);
  return client;
}

const errorOf = (r: any) => JSON.parse(r.content[0].text).error;

test("sampling: the client's model answers the prompt; a client without the capability gets a tool error naming it", async () => {
  const asked: any[] = [];
  const client = await connect({ sampling: {} });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    asked.push(req.params);
    return { role: 'assistant', content: { type: 'text', text: 'Forty-two.' }, model: 'test-model', stopReason: 'endTurn' };
  });
  const r: any = await client.callTool({ name: 'test', arguments: { action: 'sampling', prompt: 'What is six times seven?' } });
  expect(r.structuredContent).toEqual({ text: 'LLM response: Forty-two.' });
  expect(asked).toEqual([{ messages: [{ role: 'user', content: { type: 'text', text: 'What is six times seven?' } }], maxTokens: 100 }]);
  await client.close();

  const plain = await connect();
  const refused: any = await plain.callTool({ name: 'test_sampling', arguments: { prompt: 'Hello?' } });
  expect(refused.isError).toBe(true);
  expect(errorOf(refused)).toMatchObject({ code: 'client_capability_missing', message: expect.stringContaining('sampling capability') });
  await plain.close();
});

test('elicitation: the form reaches the client as written, and its answer is the result', async () => {
  const asked: any[] = [];
  const client = await connect({ elicitation: { form: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
  });
  const r: any = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
  expect(r.structuredContent).toEqual({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } });
  expect(asked[0]).toMatchObject({ mode: 'form', message: 'Who are you?', requestedSchema: { required: ['username', 'email'] } });
  await client.close();

  const plain = await connect();
  const refused: any = await plain.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
  expect(errorOf(refused).code).toBe('client_capability_missing');
  await plain.close();
});

test('progress goes to a call that asked for it, in order; log messages follow the level the session set', async () => {
  const client = await connect();
  const seen: number[] = [];
  const r: any = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, undefined, {
    onprogress: (p) => void seen.push(p.progress),
  });
  expect(r.isError).toBeUndefined();
  expect(seen).toEqual([0, 50, 100]);

  const logs: any[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
  await client.setLoggingLevel('warning');
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  expect(logs).toEqual([]); // info is below the session's level
  await client.setLoggingLevel('info');
  await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
  expect(logs.map((l) => l.data)).toEqual(['Tool execution started', 'Tool processing data', 'Tool execution completed']);
  expect(logs.every((l) => l.level === 'info' && l.logger === 'test_tool_with_logging')).toBe(true);
  await client.close();
});

test('media fields become MCP content (image, audio, embedded resource), not JSON', async () => {
  const client = await connect();
  const r: any = await client.callTool({ name: 'test_multiple_content_types', arguments: {} });
  expect(r.content.map((c: any) => c.type)).toEqual(['text', 'image', 'resource']);
  expect(r.structuredContent).toEqual({ text: 'Multiple content types test:' });
  expect(r.content[2].resource).toEqual({ uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' });
  const audio: any = await client.callTool({ name: 'test_audio_content', arguments: {} });
  expect(audio.content[1]).toMatchObject({ type: 'audio', mimeType: 'audio/wav' });
  expect(Buffer.from(audio.content[1].data, 'base64').subarray(0, 4).toString()).toBe('RIFF');
  await client.close();
});

test("a plugin's own resources and prompts (mcpContent): listed and read with its read scope only", async () => {
  const client = await connect();
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toContain('test://static-text');
  expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain('test://template/{id}/data');
  const read = await client.readResource({ uri: 'test://template/a%20b/data' });
  expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ id: 'a b', templateTest: true, data: 'Data for ID: a b' });
  const got = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x', arg2: 'y' } });
  expect(got.messages[0].content).toEqual({ type: 'text', text: "Prompt with arguments: arg1='x', arg2='y'" });
  await expect(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } })).rejects.toMatchObject({ code: -32602 });
  const done = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } });
  expect(done.completion.values).toEqual(['paris', 'park', 'party']);
  await expect(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } })).rejects.toMatchObject({
    code: -32602,
  });
  await client.close();

  // A key without the plugin's read scope sees none of it, and cannot read it.
  const transport = new StreamableHTTPClientTransport(new URL('http://svc.test/agent/mcp'), {
    fetch: ((input: string | URL | Request, init?: RequestInit) => h.app.handle(new Request(input, init))) as typeof fetch,
    requestInit: { headers: { 'x-api-key': await h.newKey(['products:read']) } },
  });
  const narrow = new Client({ name: 'narrow', version: '1' });
  await narrow.connect(transport);
  expect((await narrow.listResources()).resources.map((r) => r.uri)).not.toContain('test://static-text');
  expect((await narrow.listPrompts()).prompts.map((p) => p.name)).not.toContain('test_simple_prompt');
  await expect(narrow.readResource({ uri: 'test://static-text' })).rejects.toMatchObject({ code: -32602 });
  await narrow.close();
});
