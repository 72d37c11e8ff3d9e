// Micro-benchmark (not a test): trivial sandbox calls, direct (runSandboxed on this thread) vs the
// worker pool (runInSandbox). Each call creates a fresh QuickJS runtime either way.
// Run: ./node_modules/.bin/bun bench/sandbox.ts [calls]   (pool size: SVC_SANDBOX_WORKERS)
import { runSandboxed } from '../core/sandbox';
import { closeSandboxPool, runInSandbox, sandboxPoolSize, type SandboxResult } from '../core/sandbox/pool';

const calls = Number(process.argv[2] ?? 4000);
const code = 'return input.a + 1';
type Run = (code: string, vars: Record<string, unknown>) => Promise<SandboxResult>;

/** `calls` calls with `concurrency` in flight; returns calls/s and per-call latencies (ms, sorted). */
async function measure(run: Run, concurrency: number): Promise<{ perSecond: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < calls) {
      const i = next++;
      const t = performance.now();
      const r = await run(code, { input: { a: i } });
      latencies.push(performance.now() - t);
      if (!r.ok || r.result !== i + 1) throw new Error(`unexpected result: ${JSON.stringify(r)}`);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, lane));
  const ms = performance.now() - start;
  return { perSecond: (calls / ms) * 1000, latencies: latencies.sort((a, b) => a - b) };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;

// Warm-up: wasm compile and JIT on this thread, and every pool worker started.
for (let i = 0; i < 200; i++) await runSandboxed(code, { input: { a: i } });
await Promise.all(Array.from({ length: 200 }, (_, i) => runInSandbox(code, { input: { a: i } })));

const rows: [string, Awaited<ReturnType<typeof measure>>][] = [
  ['direct runSandboxed, sequential', await measure(runSandboxed, 1)],
  ['pool, concurrency 1', await measure(runInSandbox, 1)],
  ['pool, concurrency 32', await measure(runInSandbox, 32)],
];
console.log(`${calls} trivial calls each; pool of ${sandboxPoolSize()} workers, ${navigator.hardwareConcurrency} cores`);
for (const [label, { perSecond, latencies }] of rows) {
  console.log(
    `${label.padEnd(32)} ${String(Math.round(perSecond)).padStart(6)} calls/s   p50 ${us(pct(latencies, 50)).padStart(8)}   p99 ${us(pct(latencies, 99)).padStart(8)}`,
  );
}
// At concurrency 1 the pool adds a message round trip to the worker thread; that is the overhead.
const direct = rows[0][1].latencies;
const pooled = rows[1][1].latencies;
console.log(`sandbox overhead (pool c=1 minus direct): p50 ${us(pct(pooled, 50) - pct(direct, 50))}, p99 ${us(pct(pooled, 99) - pct(direct, 99))}`);
await closeSandboxPool();
