/**
 * Convention sweep: property-based fuzzing (OWASP API8, API10), over every registered REST route
 * and MCP tool. Inputs come from the action's own TypeBox schema (test/kit/arbitrary.ts): mostly
 * valid, often invalid (wrong types, bounds crossed, fields missing or unknown, text the database
 * cannot store), with the ids of resources that exist in the store mixed in so calls reach the
 * handler; REST bodies are sometimes other JSON or not JSON at all. Whatever is sent, the answer is
 * never a 5xx, every error is the SPEC 7 envelope (a tool error with a code of the table over
 * MCP), and a success carries JSON the action's output schema accepts (invoke checks outputs under
 * test, so a mismatch would be a 500). A failure prints fast-check's seed and counterexample;
 * SWEEP_SEED=<n> replays a run, SWEEP_RUNS=<n> makes more requests per route.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { errorDef } from '../../core/errors';
import { VERSIONS } from '../../core/http/versioning';
import notes from '../fixtures/notes';
import { mixed } from '../kit/arbitrary';
import { freshWorld, type World } from '../kit/examples';
import { mcpClient } from '../kit/mcp';
import { setup, type Harness } from '../kit/setup';
import {
  callTool,
  credentialFor,
  envelopeProblems,
  fakeModel,
  idPaths,
  getAt,
  report,
  requestFor,
  send,
  sweepRoutes,
  sweepTools,
  type SweepRoute,
} from '../kit/sweep';

const SEED = Number(process.env.SWEEP_SEED ?? 20260401);
// Small enough for every run of the suite; SWEEP_RUNS=<n> digs deeper locally.
const REST_RUNS = Number(process.env.SWEEP_RUNS ?? 15);
const MCP_RUNS = Math.ceil(REST_RUNS / 2.5);

const model = fakeModel();
let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: [notes], env: model.env });
});
afterAll(() => model.stop());

/** Bodies no schema describes: broken JSON, JSON that is not an object, odd encodings. */
const MALFORMED = [
  '{',
  '{"a":',
  '[1,2',
  '{"a":1,}',
  "{'a':1}",
  'null',
  '[]',
  '"text"',
  '42',
  '\u0000',
  '\ufeff{}',
  '{"__proto__":{"x":1}}',
  '{"a":1}{"b":2}',
  'x'.repeat(2048),
];

/** fast-check's report (seed, counterexample) and what the property threw. */
const failure = (e: unknown) => {
  const err = e as Error & { cause?: Error };
  const counterexample = /Counterexample: .*/.exec(err.message)?.[0] ?? err.message.split('\n')[0];
  return `${counterexample.slice(0, 600)} -> ${(err.cause?.message ?? '').slice(0, 400)}`;
};

/** Ids of what exists in the world, so generated inputs often name real resources. */
async function idsOf(world: World, route: SweepRoute | { plugin: any; actionName: string; action: any }) {
  const input = await world.example(route).catch(() => ({}));
  const ids = new Set<string>();
  for (const v of [input, ...world.made]) for (const p of idPaths(v)) ids.add(getAt(v, p));
  return [...ids];
}

/** Convention headers a client may get wrong: the API version, and an Idempotency-Key (reused, long, odd). */
const conventionHeaders = fc.record(
  {
    'X-API-Version': fc.constantFrom(...VERSIONS.map((v) => v.id), '2026-01-15', 'v1999-01-01', 'latest', ' '),
    'Idempotency-Key': fc.oneof(
      fc.constantFrom('fuzz-1', 'fuzz-2'),
      fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 300 }).map((k) => k.replace(/[^\x20-\x7e]/g, 'x')),
    ),
  },
  { requiredKeys: [] },
);

/** One generated request: an input for the schema (path, query or body), or a body of another kind, and some headers. */
const requests = (route: SweepRoute, ids: string[]) => fc.tuple(payloads(route, ids), conventionHeaders);

function payloads(route: SweepRoute, ids: string[]) {
  const input = mixed(route.action.input, { ids });
  const body = route.method !== 'GET' && route.method !== 'DELETE';
  return fc.oneof(
    { weight: 8, arbitrary: input.map((value) => ({ kind: 'input' as const, value })) },
    ...(body
      ? [
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }).map((value) => ({ kind: 'json' as const, value })) },
          { weight: 1, arbitrary: fc.constantFrom(...MALFORMED).map((value) => ({ kind: 'text' as const, value })) },
        ]
      : []),
  );
}

describe('sweep: fuzz', () => {
  test('REST: generated paths, queries and bodies never give a 5xx, and every error is the envelope', async () => {
    const problems: string[] = [];
    const routes = sweepRoutes(h.registry);
    let requestsSent = 0;
    for (const [i, route] of routes.entries()) {
      const w = await freshWorld(h);
      const ids = await idsOf(w, route);
      const credential = credentialFor(route, w);
      const seed = SEED + i;
      try {
        await fc.assert(
          fc.asyncProperty(requests(route, ids), async ([req, headers]) => {
            const isObject = req.kind === 'input' && req.value !== null && typeof req.value === 'object' && !Array.isArray(req.value);
            const built = requestFor(route, w.store.id, isObject ? (req.value as Record<string, unknown>) : {});
            const body = isObject || !built.body ? built.body : req.kind === 'text' ? (req.value as string) : JSON.stringify(req.value);
            const res = await send(h, route.method, built.path, body, { ...headers, ...credential });
            requestsSent++;
            if (res.status >= 500) throw new Error(`${res.status} ${res.text.slice(0, 300)}`);
            if (res.status >= 400) {
              const issues = envelopeProblems(res);
              if (issues.length) throw new Error(issues.join('; '));
            } else if (route.response === 'json' && res.status !== 204 && (res.body === null || typeof res.body !== 'object'))
              throw new Error(`a ${res.status} whose body is not JSON: ${res.text.slice(0, 200)}`);
          }),
          { numRuns: REST_RUNS, seed, endOnFailure: true },
        );
      } catch (e) {
        problems.push(`${route.method} ${route.path} (seed ${seed}): ${failure(e)}`);
      }
    }
    report('fuzz (REST)', { routes: routes.length, requests: requestsSent, 'runs per route': REST_RUNS, seed: SEED });
    expect(routes.map((r) => r.name)).toEqual(expect.arrayContaining(['notes.list_notes', 'notes.create_note', 'notes.delete_note']));
    expect(problems).toEqual([]);
  }, 300_000);

  test('MCP: generated arguments never give a protocol error or a 5xx code, only results and tool errors', async () => {
    const problems: string[] = [];
    const tools = sweepTools(h.registry);
    const w = await freshWorld(h);
    const { client } = await mcpClient(h, { key: w.key, query: '?tools=flat' });
    let calls = 0;
    try {
      for (const [i, tool] of tools.entries()) {
        const ids = await idsOf(w, tool);
        const seed = SEED + 1000 + i;
        const args = mixed(tool.action.input, { ids }).map((v) =>
          v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v },
        );
        try {
          await fc.assert(
            fc.asyncProperty(args, async (input) => {
              const answer = await callTool(client, tool.name, input);
              calls++;
              if (answer.protocolError) throw new Error(`JSON-RPC error: ${answer.protocolError}`);
              if (!answer.isError) return;
              const code = answer.body?.error?.code;
              const def = errorDef(code);
              if (!def) throw new Error(`a tool error without a code of the table: ${answer.text.slice(0, 300)}`);
              if (def.status >= 500) throw new Error(`${code}: ${answer.body.error.message}`);
            }),
            { numRuns: MCP_RUNS, seed, endOnFailure: true },
          );
        } catch (e) {
          problems.push(`${tool.name} (seed ${seed}): ${failure(e)}`);
        }
      }
    } finally {
      await client.close();
    }
    report('fuzz (MCP)', { tools: tools.length, calls, 'runs per tool': MCP_RUNS, seed: SEED });
    expect(problems).toEqual([]);
  }, 300_000);
});
