/**
 * Whatever JSON a custom tool returns (not only objects) reaches MCP clients, agents' test runs and
 * the audit log unchanged: MCP's structuredContent must be an object, so other values arrive
 * wrapped as {"result": <value>}, with the same JSON as the text mirror.
 */
import { describe, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { mcpClient } from '../../test/kit/mcp';
import { recv, httpB, jsB, create, useToolKit } from '../../test/kit/custom-tools';

useToolKit();

/** Checks one MCP result: not an error, structuredContent as expected, the text the same JSON. */
function expectMcpValue(res: any, structured: unknown) {
  expect(res.isError).toBeUndefined();
  expect(res.structuredContent).toEqual(structured);
  expect(JSON.parse(res.content[0].text)).toEqual(structured);
}

describe('tool results that are not JSON objects', () => {
  test('a JavaScript tool returning a number, string, array, null, boolean or nothing: MCP, the test route and the audit log', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    const code = `switch (params.kind) {
      case 'number': return 42;
      case 'string': return 'forty-two';
      case 'array': return [1, 'two', { three: 3 }];
      case 'null': return null;
      case 'true': return true;
      case 'false': return false;
      case 'object': return { n: 1 };
    }`;
    const made = await create(
      h,
      '/tools',
      jsB(code, { name: 'returns_any', parameters: { type: 'object', properties: { kind: { type: 'string' } } } }),
    );
    const cases: [string, unknown][] = [
      ['number', 42],
      ['string', 'forty-two'],
      ['array', [1, 'two', { three: 3 }]],
      ['null', null],
      ['true', true],
      ['false', false],
      ['nothing', null],
    ];
    for (const [kind, value] of cases) {
      expectMcpValue(await client.callTool({ name: made.name, arguments: { kind } }), { result: value });
      expect((await h.call('POST', `/tools/${made.id}/test`, { parameters: { kind } })).body).toMatchObject({ success: true, result: value });
    }
    const log = await h.call('GET', `/tool-executions?tool=${made.name}&limit=100`);
    expect(log.body.executions.map((e: any) => [e.status, e.input.kind, e.output]).reverse()).toEqual(
      cases.map(([kind, value]) => ['success', kind, value]),
    );
    // An object stays as it is, unwrapped.
    expectMcpValue(await client.callTool({ name: made.name, arguments: { kind: 'object' } }), { n: 1 });
    await client.close();
  });

  test('an HTTP tool answering a JSON array, a JSON string or plain text', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    const cases: [string, unknown][] = [
      ['array', { result: [1, 'two', { three: 3 }] }],
      ['string', { result: 'just a JSON string' }],
      ['plain', { text: 'plain words' }],
    ];
    for (const [path, structured] of cases) {
      await create(h, '/tools', httpB({ name: `answers_${path}`, parameters: { type: 'object' }, execution_config: { url: `${recv}/${path}` } }));
      expectMcpValue(await client.callTool({ name: `answers_${path}`, arguments: {} }), structured);
    }
    await client.close();
  });
});
