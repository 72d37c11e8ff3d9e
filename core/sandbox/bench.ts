// Micro-benchmark (not a test): calls/s of runSandboxed for a trivial function.
// Run: ./node_modules/.bin/bun core/sandbox/bench.ts [calls]
import { runSandboxed } from './index';

const calls = Number(process.argv[2] ?? 2000);
const code = 'return input.a + 1';

for (let i = 0; i < 100; i++) await runSandboxed(code, { input: { a: i } }); // warm-up (wasm compile, JIT)

const start = performance.now();
for (let i = 0; i < calls; i++) {
  const r = await runSandboxed(code, { input: { a: i } });
  if (!r.ok || r.result !== i + 1) throw new Error(`unexpected result: ${JSON.stringify(r)}`);
}
const ms = performance.now() - start;
console.log(
  `runSandboxed trivial: ${calls} calls in ${ms.toFixed(1)} ms = ${Math.round((calls / ms) * 1000)} calls/s (${((ms / calls) * 1000).toFixed(1)} µs/call)`,
);
