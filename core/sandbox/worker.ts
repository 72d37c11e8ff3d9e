/**
 * Worker-thread entry of the sandbox pool (pool.ts): runs one runSandboxed call at a time.
 *
 * Running guest code here rather than on the server's thread means a runaway loop or a long
 * native builtin only ever blocks this thread; the pool's watchdog terminate()s it if needed.
 * Protocol (all messages are plain structured-clone data):
 *   worker → pool  { type: 'ready' }                       once, after the QuickJS wasm is compiled
 *   pool → worker  { id, code, vars, opts }                one call; the next comes only after the reply
 *   worker → pool  { type: 'result', id, result, broken }  `broken`: this worker should be replaced
 */
import { runSandboxed, SANDBOX_DEFAULTS } from './index';

declare const self: Worker;

/**
 * QuickJS counts its stack in wasm linear memory, but each guest call frame also takes native
 * stack, and a worker thread's native stack is smaller than the main thread's. Measured with
 * Bun 1.4: at 512 KiB plain guest recursion overflows the worker's native stack first, which
 * surfaces as "sandbox failure: Maximum call stack size exceeded." and costs the wasm instance;
 * at 384 KiB it ends as a clean QuickJS RangeError (~2,200 frames deep). Some builtin-heavy
 * recursion (deep JSON.parse, getters, proxies) can still hit the native limit first, on the
 * main thread too: the pool then replaces the worker.
 */
const MAX_STACK_BYTES = 384 * 1024;

export interface CallMessage {
  id: number;
  code: string;
  vars: Record<string, unknown>;
  opts: { timeoutMs: number; memoryBytes?: number; stackBytes?: number };
}

self.onmessage = async (event: MessageEvent<CallMessage>) => {
  const { id, code, vars, opts } = event.data;
  const start = performance.now();
  try {
    const stackBytes = Math.min(opts.stackBytes ?? SANDBOX_DEFAULTS.stackBytes, MAX_STACK_BYTES);
    const result = await runSandboxed(code, vars, { ...opts, stackBytes });
    postMessage({ type: 'result', id, result, broken: false });
  } catch (e) {
    // runSandboxed answers guest failures itself; a throw means the wasm instance itself failed
    // (e.g. an emscripten abort), so ask the pool for a fresh worker.
    const result = {
      ok: false,
      status: 'error',
      message: `sandbox failure: ${e instanceof Error ? e.message : String(e)}`,
      durationMs: performance.now() - start,
    };
    postMessage({ type: 'result', id, result, broken: true });
  }
};

// Compile the wasm module before announcing readiness, so that a call's watchdog never counts
// worker start-up against the guest's time limit.
await runSandboxed('return 0', {});
postMessage({ type: 'ready' });
