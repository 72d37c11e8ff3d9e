/**
 * Worker-thread entry of the sandbox pool (pool.ts): runs one runSandboxed call at a time.
 *
 * Running guest code here rather than on the server's thread means a runaway loop or a long
 * native builtin only ever blocks this thread; the pool's watchdog terminate()s it if needed.
 * Protocol (all messages are plain structured-clone data):
 *   pool → worker  { type: 'init', skip }                  once: a shared Int32Array, see below
 *   worker → pool  { type: 'ready' }                       once, after the QuickJS wasm is compiled
 *   pool → worker  { id, seq, code, vars, opts }           a call; up to PIPELINE_DEPTH may be queued here
 *   worker → pool  { type: 'result', id, result, broken }  `broken`: this worker should be replaced
 * Calls run one at a time, in order. A queued call whose seq is in the range skip[0] marks (skip.ts) was taken back
 * by the pool (its predecessor ran long) and is dropped unrun.
 */
import { runSandboxed, SANDBOX_DEFAULTS } from './index';
import { isSkipped } from './skip';

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
  /** Per-worker sequence number, compared with the shared skip mark. */
  seq: number;
  code: string;
  vars: Record<string, unknown>;
  opts: { timeoutMs: number; memoryBytes?: number; stackBytes?: number };
}

const queued: CallMessage[] = [];
let skip: Int32Array<ArrayBufferLike> = new Int32Array(1);
let draining = false;

self.onmessage = (event: MessageEvent<CallMessage | { type: 'init'; skip: SharedArrayBuffer }>) => {
  const data = event.data;
  if ('type' in data) {
    skip = new Int32Array(data.skip);
    return;
  }
  queued.push(data);
  if (!draining) void drain();
};

/** Runs queued calls one after another (runSandboxed may yield while it awaits a guest promise). */
async function drain() {
  draining = true;
  for (let call = queued.shift(); call; call = queued.shift()) {
    if (isSkipped(Atomics.load(skip, 0), call.seq)) continue;
    postMessage(await run(call));
  }
  draining = false;
}

async function run({ id, code, vars, opts }: CallMessage) {
  const start = performance.now();
  try {
    const stackBytes = Math.min(opts.stackBytes ?? SANDBOX_DEFAULTS.stackBytes, MAX_STACK_BYTES);
    return { type: 'result', id, result: await runSandboxed(code, vars, { ...opts, stackBytes }), broken: false };
  } catch (e) {
    // runSandboxed answers guest failures itself; a throw means the wasm instance itself failed
    // (e.g. an emscripten abort), so ask the pool for a fresh worker.
    const result = {
      ok: false,
      status: 'error',
      message: `sandbox failure: ${e instanceof Error ? e.message : String(e)}`,
      durationMs: performance.now() - start,
    };
    return { type: 'result', id, result, broken: true };
  }
}

// Compile the wasm module before announcing readiness, so that a call's watchdog never counts
// worker start-up against the guest's time limit.
await runSandboxed('return 0', {});
postMessage({ type: 'ready' });
