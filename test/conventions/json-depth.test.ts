import { describe, expect, test } from 'bun:test';
import { callTool } from '../../core/tools/call';
import { tooDeepInText, tooDeepInValue } from '../../core/json-depth';
import { allPlugins as plugins } from '../kit/setup';
import { setup } from '../kit/setup';
import { mcpClient } from '../kit/mcp';

const nestedText = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const nestedValue = (levels: number) => {
  let v: unknown[] = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
};

const tool = (parameters: string) =>
  `{"name":"deep_tool","description":"A tool whose schema nests too deep.","execution_type":"javascript",` +
  `"parameters":${parameters},"execution_config":{"code":"return 1"}}`;

describe('JSON nested deeper than 64 levels is refused before any other work', () => {
  test('a tool schema of 100,000 nested arrays (under the body limit) is 400 naming `parameters`', async () => {
    const h = await setup();
    const body = tool(nestedText(100_000));
    expect(body.length).toBeLessThan(1024 * 1024);
    const started = performance.now();
    const r = await h.call('POST', '/tools', body);
    console.log(`100,000 nested arrays refused in ${(performance.now() - started).toFixed(1)} ms`);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed', param: 'parameters' });
    expect(r.body.error.message).toContain('nested more than 64 levels');
  });

  test('64 levels in a field are accepted; 65 are not', async () => {
    const h = await setup();
    // `metadata` of a webhook-free resource: customers take a flat metadata, so depth is checked first
    // and the schema afterwards (a nested value is then a type error, not a depth error).
    const at64 = await h.call('POST', '/customers', `{"email":"a@example.com","metadata":${nestedText(64)}}`);
    expect(at64.body.error.message).not.toContain('nested');
    const at65 = await h.call('POST', '/customers', `{"email":"a@example.com","metadata":${nestedText(65)}}`);
    expect(at65.status).toBe(400);
    expect(at65.body.error.param).toBe('metadata');
    expect(at65.body.error.message).toContain('nested more than 64 levels');
  });

  test('brackets inside strings do not count, and keys are named as sent', () => {
    expect(tooDeepInText(`{"a":"${'['.repeat(500)}"}`, 65)).toBeUndefined();
    expect(tooDeepInText(`{"x":1,"we\\"ird":{"b":${nestedText(70)}}}`, 65)?.slice(0, 3)).toEqual(['we"ird', 'b', 0]);
    expect(tooDeepInValue({ x: 1, y: { z: nestedValue(70) } }, 65)?.slice(0, 2)).toEqual(['y', 'z']);
  });

  test('a tool input from an agent or MCP client nested too deep is a validation error naming the argument, and is audited without it', async () => {
    const h = await setup();
    const [k] = await h.db.query('SELECT id, scopes FROM api_keys WHERE store_id = $1', [h.store.id]);
    const principal = { kind: 'api_key' as const, keyId: k.id, storeId: h.store.id, scopes: k.scopes, livemode: false };
    const products = plugins.find((p) => p.name === 'products')!;
    const started = performance.now();
    const out = await callTool(
      { db: h.db, clock: h.clock, registry: h.registry, principal, store: { id: h.store.id, name: 'Test', plan: 'pro' }, source: 'agent' },
      { kind: 'builtin', plugin: products, actionName: 'create_product', input: { name: 'x', pricing_data: nestedValue(100_000) } },
    );
    console.log(`a tool input 100,000 levels deep refused in ${(performance.now() - started).toFixed(1)} ms`);
    expect(out.kind).toBe('error');
    if (out.kind !== 'error') return;
    expect(out.error.code).toBe('validation_failed');
    expect(out.error.param).toBe('pricing_data');
    const audit = await h.call('GET', `/tool-executions/${out.executionId}`);
    expect(audit.body.input.name).toBe('x');
    expect(audit.body.input.pricing_data).toContain('not recorded');
  });

  test('an MCP tools/call whose argument nests 100,000 levels is refused naming the argument', async () => {
    const h = await setup();
    const { client, transport } = await mcpClient(h);
    // Sent as text: the SDK client itself cannot serialize a value this deep (nor can most clients).
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"products","arguments":{"action":"create_product","name":"x","pricing_data":${nestedText(100_000)}}}}`;
    const started = performance.now();
    const res = await h.app.handle(
      new Request('http://svc.test/agent/mcp', {
        method: 'POST',
        headers: {
          'x-api-key': h.key,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': transport.sessionId!,
          'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
        },
        body,
      }),
    );
    const answer = await res.json();
    console.log(`MCP call 100,000 levels deep refused in ${(performance.now() - started).toFixed(1)} ms`);
    expect(res.status).toBe(400);
    expect(answer.error.code).toBe(-32602);
    expect(answer.error.message).toContain("argument 'pricing_data'");
    expect(answer.error.message).toContain('nested more than 64 levels');
    await client.close();
  });
});
