/**
 * Convention sweep: object-level authorization (OWASP API1, BOLA), over every registered route and
 * MCP tool that takes an id. Two fresh stores make the action's example; store A then sends its own
 * input with one id (path, query or body) swapped for store B's: the answer is 404 resource_missing
 * (the resource exists for nobody else), in the SPEC 7 envelope (a tool error over MCP), showing
 * none of B's data. Each store's own input then succeeds, so the 404 came from ownership alone and
 * every output was checked against its schema. Lists in A show none of B's rows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import notes from '../fixtures/notes';
import { freshWorld, type World } from '../kit/examples';
import { mcpClient } from '../kit/mcp';
import { setup, type Harness } from '../kit/setup';
import {
  call,
  callTool,
  credentialFor,
  envelopeProblems,
  exampleOr,
  fakeModel,
  getAt,
  idPaths,
  leaked,
  report,
  secretsOf,
  setAt,
  sweepRoutes,
  sweepTools,
  toolErrorProblems,
} from '../kit/sweep';

const model = fakeModel();
let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: [notes], env: model.env });
});
afterAll(() => model.stop());

/** The places where A's input holds an id B's input holds another of: where B's id can be put. */
const swappable = (inA: object, inB: object) => idPaths(inB).filter((p) => typeof getAt(inA, p) === 'string' && getAt(inA, p) !== getAt(inB, p));

describe('sweep: BOLA', () => {
  test("REST: another store's id is 404 on every route that takes one, with none of its data", async () => {
    const problems: string[] = [];
    const uncovered = new Set<string>();
    const covered: string[] = [];
    let requests = 0;
    for (const route of sweepRoutes(h.registry)) {
      if (route.scope === 'global') continue; // a global route names no store's resources
      const a = await freshWorld(h, 'Store A');
      const b = await freshWorld(h, 'Store B');
      const inB = await exampleOr(b, route, problems, uncovered);
      const inA = inB && (await exampleOr(a, route, problems, uncovered));
      if (!inA || !inB) continue;
      const positions = swappable(inA, inB);
      // A path id the examples fill with the same value in both stores (not a made resource) would go untested.
      const fixed = route.params.filter((p) => idPaths(inB[p]).length && !positions.some((at) => at.length === 1 && at[0] === p));
      if (fixed.length) problems.push(`${route.name}: its example gives both stores the same ${fixed.map((p) => `:${p}`).join(', ')}`);
      if (!positions.length) continue; // takes no id
      covered.push(route.name);
      for (const at of positions) {
        const attack = setAt(inA, at, getAt(inB, at));
        const res = await call(h, route, a.store.id, attack, credentialFor(route, a));
        requests++;
        const issues = [
          ...envelopeProblems(res, { status: 404, code: 'resource_missing' }),
          ...leaked(res.text, secretsOf(b, [attack])).map((s) => `shows B's ${s}`),
        ];
        if (issues.length) problems.push(`${route.method} ${route.path} with B's ${at.join('.')}: ${issues.join('; ')}`);
      }
      // Controls: the same input succeeds for the store that owns it.
      for (const [w, input] of [
        [a, inA],
        [b, inB],
      ] as [World, Record<string, unknown>][]) {
        const res = await call(h, route, w.store.id, input, credentialFor(route, w));
        if (res.status >= 300) problems.push(`${route.name}: its example fails in its own store: ${res.status} ${res.text.slice(0, 300)}`);
      }
    }
    report('bola (REST)', { 'routes with ids': covered.length, 'cross-store requests': requests }, [...uncovered]);
    expect(covered).toEqual(expect.arrayContaining(['notes.get_note', 'notes.update_note', 'notes.delete_note']));
    expect(problems).toEqual([]);
  }, 300_000);

  test("MCP: another store's id is a resource_missing tool error on every tool that takes one", async () => {
    const problems: string[] = [];
    const uncovered = new Set<string>();
    const covered: string[] = [];
    for (const tool of sweepTools(h.registry)) {
      const a = await freshWorld(h, 'Store A');
      const b = await freshWorld(h, 'Store B');
      const inB = await exampleOr(b, tool, problems, uncovered);
      const inA = inB && (await exampleOr(a, tool, problems, uncovered));
      if (!inA || !inB) continue;
      const positions = swappable(inA, inB);
      if (!positions.length) continue;
      covered.push(tool.name);
      const { client } = await mcpClient(h, { key: a.key, query: '?tools=flat' });
      try {
        for (const at of positions) {
          const attack = setAt(inA, at, getAt(inB, at));
          const answer = await callTool(client, tool.name, attack);
          const issues = [
            ...toolErrorProblems(answer, 'resource_missing'),
            ...leaked(answer.text, secretsOf(b, [attack])).map((s) => `shows B's ${s}`),
          ];
          if (issues.length) problems.push(`${tool.name} with B's ${at.join('.')}: ${issues.join('; ')}`);
        }
        const own = await callTool(client, tool.name, inA);
        if (own.isError) problems.push(`${tool.name}: its example fails in its own store: ${own.text.slice(0, 300)}`);
      } finally {
        await client.close();
      }
    }
    report('bola (MCP)', { 'tools with ids': covered.length }, [...uncovered]);
    expect(covered).toEqual(expect.arrayContaining(['notes_get_note', 'notes_update_note', 'notes_delete_note']));
    expect(problems).toEqual([]);
  }, 300_000);

  test("lists show none of another store's rows", async () => {
    const problems: string[] = [];
    const a = await freshWorld(h, 'Store A');
    const b = await freshWorld(h, 'Store B');
    const routes = sweepRoutes(h.registry).filter((r) => r.scope === 'store');
    // B gets everything the examples make (some repeat a unique name and fail: enough is made).
    for (const route of routes) await b.example(route).catch(() => undefined);
    // A list is a GET with no path id, called with its example (filters it needs, such as the
    // product of a summary, made in A), or with no input when it declares none.
    const lists = routes.filter((r) => r.method === 'GET' && !r.params.length);
    const uncovered = new Set<string>();
    for (const route of lists) {
      const input = await exampleOr(a, route, problems, uncovered);
      if (!input) continue;
      const res = await call(h, route, a.store.id, input, credentialFor(route, a));
      if (res.status !== 200) problems.push(`${route.name}: ${res.status} ${res.text.slice(0, 200)}`);
      const leaks = leaked(res.text, secretsOf(b));
      if (leaks.length) problems.push(`${route.name} in store A shows B's ${leaks.join(', ')}`);
    }
    report('bola (lists)', { lists: lists.length, 'values of B looked for': secretsOf(b).length }, [...uncovered]);
    expect(problems).toEqual([]);
  }, 300_000);
});
