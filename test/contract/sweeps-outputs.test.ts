/**
 * Convention sweep: declared outputs are what callers get. Every registered REST route and MCP
 * tool is called once with its example in a fresh store: the call succeeds (an example that fails
 * is a broken declaration), and the answer validates against the action's output schema here, in
 * the test, besides invoke's own check (on under NODE_ENV=test, which turns a mismatch into a 500).
 * Routes no example reaches are listed; one that is not declared exempt with noExample fails.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Type } from '@sinclair/typebox';
import { action, definePlugin } from '../../core/plugins/contract';
import { Input } from '../../core/plugins/schema';
import notes from '../fixtures/notes';
import { freshWorld } from '../kit/examples';
import { mcpClient } from '../kit/mcp';
import { toolOutputOf } from '../../core/tools/raw-answers';
import { setup, type Harness } from '../kit/setup';
import { call, callTool, credentialFor, exampleOr, fakeModel, report, sweepRoutes, sweepTools } from '../kit/sweep';

/** A plugin whose handler answers something its output schema does not allow. */
const liar = definePlugin({
  name: 'liar',
  category: 'platform',
  scopes: { read: ['liar', 'liar:read'], write: ['liar', 'liar:write'] },
  actions: {
    fib: action({
      kind: 'read',
      description: 'Says a number is text, which its schema forbids.',
      input: Input({}),
      output: Type.Object({ n: Type.Integer() }),
      rest: { method: 'GET', path: '/liar' },
      handler: async () => ({ n: 'three' }) as any,
    }),
  },
});

const model = fakeModel();
let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: [notes, liar], env: model.env });
});
afterAll(() => model.stop());

const checkers = new Map<object, ReturnType<typeof TypeCompiler.Compile>>();
const schemaProblem = (schema: any, value: unknown) => {
  let c = checkers.get(schema);
  if (!c) checkers.set(schema, (c = TypeCompiler.Compile(schema)));
  if (c.Check(value)) return undefined;
  const e = c.Errors(value).First();
  return `output does not match its schema at ${e?.path || '/'}: ${e?.message}`;
};

describe('sweep: outputs', () => {
  test('outputs are checked in tests: a handler answering off its schema fails loudly', async () => {
    expect(process.env.NODE_ENV).toBe('test');
    const w = await freshWorld(h);
    const original = console.error;
    console.error = () => {};
    try {
      const r = await call(
        h,
        sweepRoutes(h.registry).find((r) => r.name === 'liar.fib')!,
        w.store.id,
        {},
        { 'x-api-key': w.key },
      );
      expect(r.status).toBe(500);
    } finally {
      console.error = original;
    }
  });

  test('REST: every route succeeds with its example and answers what its output schema declares', async () => {
    const problems: string[] = [];
    const uncovered = new Set<string>();
    let ok = 0;
    const routes = sweepRoutes(h.registry).filter((r) => r.plugin !== liar);
    for (const route of routes) {
      const w = await freshWorld(h);
      const input = await exampleOr(w, route, problems, uncovered);
      if (!input) continue;
      const res = await call(h, route, w.store.id, input, credentialFor(route, w));
      if (res.status !== route.status) {
        problems.push(`${route.name}: ${res.status} (declared ${route.status}) ${res.text.slice(0, 300)}`);
        continue;
      }
      if (route.response === 'json') {
        const bad = schemaProblem(route.action.output, res.status === 204 ? null : res.body);
        if (bad) problems.push(`${route.name}: ${bad}`);
      } else if (route.action.rest?.contentType && !res.headers.get('content-type')?.startsWith(route.action.rest.contentType))
        problems.push(`${route.name}: content type ${res.headers.get('content-type')}, declared ${route.action.rest.contentType}`);
      ok++;
    }
    report('outputs (REST)', { routes: routes.length, 'answered as declared': ok }, [...uncovered]);
    expect(problems).toEqual([]);
  }, 300_000);

  test('MCP: every tool succeeds with its example, its structuredContent valid against its output schema', async () => {
    const problems: string[] = [];
    const uncovered = new Set<string>();
    let ok = 0;
    const tools = sweepTools(h.registry).filter((t) => t.plugin !== liar);
    for (const tool of tools) {
      const w = await freshWorld(h);
      const input = await exampleOr(w, tool, problems, uncovered);
      if (!input) continue;
      const { client } = await mcpClient(h, { key: w.key, query: '?tools=flat' });
      try {
        const answer = await callTool(client, tool.name, input);
        if (answer.isError) problems.push(`${tool.name}: ${answer.text.slice(0, 300)}`);
        else {
          const bad = schemaProblem(toolOutputOf(tool.action), answer.body);
          if (bad) problems.push(`${tool.name}: ${bad}`);
          else ok++;
        }
      } finally {
        await client.close();
      }
    }
    report('outputs (MCP)', { tools: tools.length, 'answered as declared': ok }, [...uncovered]);
    expect(problems).toEqual([]);
  }, 300_000);
});
