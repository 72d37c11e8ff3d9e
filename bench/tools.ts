/**
 * `bun bench/tools.ts`: tool executions per second through the whole tool-call path (scope check,
 * approval gate, run, audit record: core/tools/call.ts), for
 *   - a built-in read action (products.list_products): the baseline, same path, same audit;
 *   - a JavaScript custom tool: a fresh QuickJS runtime per call, in the sandbox worker pool;
 *   - an HTTP custom tool: a JSON POST through the egress guard to a local receiver.
 * And the sandbox's own overhead: per-call latency of a trivial script in the pool at concurrency 1
 * (p50/p99). Prints figures; not a test. Embedded database unless DATABASE_URL is set.
 * BENCH_SECONDS (default 5 per case), BENCH_CONCURRENCY (default 32).
 */
import { product, setup } from '../test/kit/setup';
import { serveTls, trustTestReceivers } from '../test/kit/tool-egress';
import { callTool, resolveTarget } from '../core/tools/call';
import type { ToolCaller } from '../core/tools/types';
import { runInSandbox } from '../core/sandbox/pool';
import { runSandboxed, type SandboxResult } from '../core/sandbox';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

// Tool URLs must be https: a local TLS receiver with a throwaway CA, trusted for the runs.
const receiver = serveTls(async (req) => Response.json({ echoed: await req.json() }));
trustTestReceivers();
process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
process.env.SVC_SECRET_KEY ??= Buffer.alloc(32, 1).toString('base64'); // a throwaway key: secrets need one on PostgreSQL

const h = await setup();
await h.call('POST', '/products', product({ name: 'Lamp' }));
const js = await h.call('POST', '/tools', {
  name: 'price_with_tax',
  description: 'Adds tax to a price.',
  parameters: { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] },
  execution_type: 'javascript',
  execution_config: { code: 'return { total: Math.round(params.price * 1.2 * 100) / 100 }' },
});
const http = await h.call('POST', '/tools', {
  name: 'echo_service',
  description: 'Echoes its input.',
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
  execution_type: 'http',
  execution_config: { url: `${receiver.url}/echo`, headers: { authorization: 'Bearer {{TOKEN}}' } },
});
if (js.status !== 201 || http.status !== 201) throw new Error(`setup failed: ${JSON.stringify([js.body, http.body])}`);
await h.call('PUT', `/tools/${http.body.id}/secrets`, { TOKEN: 'bench-token' });

const caller: ToolCaller = { db: h.db, clock: h.clock, registry: h.registry, principal: await principal(), store: h.store, source: 'mcp' };
async function principal() {
  const { principal } = await h.svc.keys.resolve(h.key);
  return principal;
}

/** Calls the tool from CONCURRENCY loops for SECONDS; every call must succeed. */
async function measure(label: string, name: string, args: () => Record<string, unknown>) {
  const latencies: number[] = [];
  const end = performance.now() + SECONDS * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      // Resolving is part of the path (a custom tool is looked up in the database, as MCP does per call).
      const target = await resolveTarget(h.db, h.registry, h.store.id, name, args());
      if (!target) throw new Error(`no tool ${name}`);
      const out = await callTool(caller, target);
      if (out.kind !== 'result') throw new Error(`${label}: ${out.kind === 'error' ? out.error.message : out.kind}`);
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const rate = latencies.length / ((performance.now() - t0) / 1000);
  console.log(
    `${label.padEnd(34)} ${Math.round(rate).toString().padStart(6)} execs/s   p50 ${pct(latencies, 50).toFixed(2)} ms   p99 ${pct(latencies, 99).toFixed(2)} ms`,
  );
  return rate;
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

console.log(`backend ${h.db.kind}, ${CONCURRENCY} concurrent callers, ${SECONDS} s per case, audit record on every call`);
// Warm-up: sandbox workers, JIT, prepared statements.
for (let i = 0; i < 200; i++) await callTool(caller, (await resolveTarget(h.db, h.registry, h.store.id, 'price_with_tax', { price: i }))!);
const builtin = await measure('built-in read (products.list)', 'products', () => ({ action: 'list_products', limit: 5 }));
const jsRate = await measure('JavaScript tool (fresh sandbox)', 'price_with_tax', () => ({ price: Math.random() * 100 }));
const httpRate = await measure('HTTP tool (local receiver)', 'echo_service', () => ({ q: 'lamp' }));
console.log(`ratios to the built-in read: JavaScript ${(jsRate / builtin).toFixed(2)}, HTTP ${(httpRate / builtin).toFixed(2)}`);

// The sandbox alone, one call at a time: what a fresh QuickJS runtime costs, on this thread and
// through the worker pool (the hop to a worker thread and back).
async function latency(label: string, run: (i: number) => Promise<SandboxResult>) {
  const xs: number[] = [];
  for (let i = 0; i < 3000; i++) {
    const t0 = performance.now();
    const r = await run(i);
    if (!r.ok) throw new Error(r.message);
    xs.push(performance.now() - t0);
  }
  console.log(`${label.padEnd(34)} p50 ${pct(xs, 50).toFixed(3)} ms   p99 ${pct(xs, 99).toFixed(3)} ms`);
}
await latency('sandbox per call, direct', (i) => runSandboxed('return input.a + 1', { input: { a: i } }));
await latency('sandbox per call, pool', (i) => runInSandbox('return input.a + 1', { input: { a: i } }));
receiver.server.stop(true);
process.exit(0);
