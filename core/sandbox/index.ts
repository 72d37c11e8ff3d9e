import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSHandle,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import releaseSyncVariant from '@jitl/quickjs-ng-wasmfile-release-sync';
import { SANDBOX_DEFAULTS } from './constants';
// Embedded into the compiled binary as a file: the binary has no node_modules at run time.
import quickjsWasmPath from '../../node_modules/@jitl/quickjs-ng-wasmfile-release-sync/dist/emscripten-module.wasm' with { type: 'file' };

/**
 * Sandbox for JavaScript custom tools (issue 6 item 4), built on QuickJS-ng compiled to WebAssembly.
 *
 * Every call gets a fresh QuickJS runtime + context with a memory limit, a stack limit and an
 * interrupt handler that aborts execution at the wall-time deadline. Nothing from the host is
 * exposed except the given vars, copied in as JSON: no fetch, fs, require, process or timers.
 *
 * This runs on the caller's thread: synchronous guest code blocks it until the interrupt handler
 * stops it at the deadline, and a single long native builtin is not interrupted at all. So the
 * server calls it only through pool.ts, which runs it on worker threads under a watchdog.
 */

export interface SandboxOptions {
  /** Wall-time limit for the whole call, including awaiting a returned promise. Default 10000. */
  timeoutMs?: number;
  /** QuickJS heap limit. Default 64 MiB; the whole instance is capped at WASM_MEMORY_CAP whatever this says. */
  memoryBytes?: number;
  /** QuickJS stack limit. Default 512 KiB. */
  stackBytes?: number;
  /** Largest result, as JSON text in UTF-8 bytes; a larger one is an error. Default 1 MiB (like HTTP tool responses). */
  maxResultBytes?: number;
}

export type SandboxResult =
  { ok: true; result: unknown; durationMs: number } | { ok: false; status: 'timeout' | 'error'; message: string; durationMs: number };

/** The whole instance's memory (guest heap, QuickJS itself, stack): the default heap limit plus room. */
const WASM_MEMORY_CAP = 96 * 1024 * 1024;

/** Jobs run per batch while awaiting a returned promise, before the host event loop gets a turn. */
const JOBS_PER_BATCH = 1000;

let modulePromise: Promise<QuickJSWASMModule> | undefined;

/** The QuickJS WebAssembly module, compiled once from the embedded wasm file and shared by all calls. */
function quickjs(): Promise<QuickJSWASMModule> {
  modulePromise ??= (async () => {
    const wasmModule = await WebAssembly.compile(await Bun.file(quickjsWasmPath).arrayBuffer());
    // A fixed-size memory: this QuickJS-ng build cannot measure its allocations (no
    // malloc_usable_size), so its own memory limit misses a heap grown by many small allocations;
    // the WebAssembly memory's maximum is the hard cap (the guest then fails with out of memory).
    const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: WASM_MEMORY_CAP / 65_536 });
    return newQuickJSWASMModuleFromVariant(newVariant(releaseSyncVariant, { wasmModule, wasmMemory }));
  })();
  modulePromise.catch(() => (modulePromise = undefined));
  return modulePromise;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

// In a file of their own: the server needs them at start, and importing them from here loaded QuickJS.
export { ASYNC_FUNCTION, SANDBOX_DEFAULTS } from './constants';

class SandboxFailure extends Error {}

/**
 * Runs `code` as the body of an async function whose parameters are the keys of `vars` (e.g.
 * `input`), so `await` works at its top level, and returns its result converted to plain JSON.
 * A returned promise is awaited.
 */
export async function runSandboxed(code: string, vars: Record<string, unknown>, opts: SandboxOptions = {}): Promise<SandboxResult> {
  let start = performance.now();
  const timeoutMs = opts.timeoutMs ?? SANDBOX_DEFAULTS.timeoutMs;
  let deadline = start + timeoutMs;
  const elapsed = () => performance.now() - start;
  const fail = (status: 'timeout' | 'error', message: string): SandboxResult => ({
    ok: false,
    status,
    message,
    durationMs: elapsed(),
  });

  const names = Object.keys(vars);
  const badName = names.find((n) => !IDENTIFIER.test(n));
  if (badName !== undefined) return fail('error', `invalid variable name: ${JSON.stringify(badName)}`);
  let varsJson: string;
  try {
    varsJson = JSON.stringify(vars);
  } catch (e) {
    return fail('error', `vars are not JSON-serializable: ${(e as Error).message}`);
  }

  const qjs = await quickjs();
  // The limit is the guest's: loading QuickJS (a worker's first call, slow on a busy machine) is not
  // the code's time, and once counted it made a one-line compile check time out under load.
  start = performance.now();
  deadline = start + timeoutMs;
  const runtime = qjs.newRuntime();
  let timedOut = false;
  const timeout = () => fail('timeout', `timed out after ${timeoutMs} ms`);
  try {
    runtime.setMemoryLimit(opts.memoryBytes ?? SANDBOX_DEFAULTS.memoryBytes);
    runtime.setMaxStackSize(opts.stackBytes ?? SANDBOX_DEFAULTS.stackBytes);
    runtime.setInterruptHandler(() => {
      if (performance.now() >= deadline) timedOut = true;
      return timedOut;
    });
    const ctx = runtime.newContext();
    try {
      // The body is spliced into an async function expression rather than compiled by a guest
      // AsyncFunction constructor (a second parse per call). A body that closes the wrapper early
      // only changes what its own guest code does; tools and conditions are also checked with
      // that constructor when saved (ASYNC_FUNCTION), which refuses such a body.
      const source =
        `(async function (${names.join(', ')}) {\n${code}\n})` +
        `.apply(undefined, (v => ${JSON.stringify(names)}.map(n => v[n]))(JSON.parse(${JSON.stringify(varsJson)})))`;
      const evaluated = ctx.evalCode(source, 'tool.js');
      if (evaluated.error) {
        const message = describeError(ctx, evaluated.error);
        evaluated.error.dispose();
        return timedOut ? timeout() : fail('error', message);
      }
      const value = evaluated.value;
      try {
        const settled = await settle(ctx, value, deadline, () => timedOut);
        if (settled === 'timeout') return timeout();
        if (settled.type === 'rejected') {
          const message = describeError(ctx, settled.error);
          settled.error.dispose();
          return timedOut ? timeout() : fail('error', message);
        }
        try {
          const result = toJson(ctx, settled.value, opts.maxResultBytes ?? SANDBOX_DEFAULTS.maxResultBytes);
          return { ok: true, result, durationMs: elapsed() };
        } finally {
          if (settled.value !== value) settled.value.dispose();
        }
      } finally {
        value.dispose();
      }
    } catch (e) {
      if (timedOut) return timeout();
      return fail('error', e instanceof SandboxFailure ? e.message : `sandbox failure: ${(e as Error).message}`);
    } finally {
      ctx.dispose();
    }
  } finally {
    try {
      runtime.dispose();
    } catch {
      // A QuickJS assertion (e.g. a leaked object after an interrupt) aborts the whole wasm
      // instance: drop it so later calls start from a fresh instance.
      modulePromise = undefined;
    }
  }
}

type Settled = { type: 'fulfilled'; value: QuickJSHandle } | { type: 'rejected'; error: QuickJSHandle };

/** Runs guest promise jobs until `value` (a promise or not) settles, the deadline passes, or it can never settle. */
async function settle(ctx: QuickJSContext, value: QuickJSHandle, deadline: number, timedOut: () => boolean): Promise<Settled | 'timeout'> {
  for (;;) {
    const state = ctx.getPromiseState(value);
    if (state.type === 'fulfilled') return { type: 'fulfilled', value: state.value };
    if (state.type === 'rejected') return { type: 'rejected', error: state.error };
    const jobs = ctx.runtime.executePendingJobs(JOBS_PER_BATCH);
    if (jobs.error) {
      const message = describeError(ctx, jobs.error);
      jobs.error.dispose();
      if (timedOut()) return 'timeout';
      throw new SandboxFailure(message);
    }
    if (timedOut() || performance.now() >= deadline) return 'timeout';
    if (jobs.value === 0 && !ctx.runtime.hasPendingJob()) {
      const again = ctx.getPromiseState(value);
      if (again.type !== 'pending') continue;
      throw new SandboxFailure('the returned promise never settles');
    }
    if (jobs.value >= JOBS_PER_BATCH) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

const MIB = 1024 * 1024;
const size = (bytes: number) => (bytes >= MIB ? `${Math.round((bytes / MIB) * 10) / 10} MiB` : `${bytes} bytes`);

/**
 * Converts a guest value to plain JSON data; anything that does not survive a JSON round trip is an
 * error, and so is a result over maxBytes (it would be kept in the audit log and sent to clients).
 */
function toJson(ctx: QuickJSContext, handle: QuickJSHandle, maxBytes: number): unknown {
  if (ctx.typeof(handle) === 'undefined') return null;
  const jsonHandle = ctx.getProp(ctx.global, 'JSON');
  const stringify = ctx.getProp(jsonHandle, 'stringify');
  try {
    const call = ctx.callFunction(stringify, jsonHandle, handle);
    if (call.error) {
      const message = describeError(ctx, call.error);
      call.error.dispose();
      throw new SandboxFailure(`result is not JSON-serializable: ${message}`);
    }
    const text = call.value.consume((h) => (ctx.typeof(h) === 'string' ? ctx.getString(h) : undefined));
    if (text === undefined) throw new SandboxFailure(`result is not JSON-serializable (${ctx.typeof(handle)})`);
    const bytes = Buffer.byteLength(text);
    if (bytes > maxBytes)
      throw new SandboxFailure(`the result (${size(bytes)} as JSON) is larger than the ${size(maxBytes)} limit; return less data`);
    return JSON.parse(text);
  } finally {
    stringify.dispose();
    jsonHandle.dispose();
  }
}

/** A readable message for a guest exception, falling back when the guest is out of memory. */
function describeError(ctx: QuickJSContext, error: QuickJSHandle): string {
  try {
    const dumped = ctx.dump(error);
    if (dumped && typeof dumped === 'object') {
      const name = typeof dumped.name === 'string' ? dumped.name : 'Error';
      const message = typeof dumped.message === 'string' ? dumped.message : JSON.stringify(dumped);
      return `${name}: ${message}`;
    }
    return `uncaught: ${String(dumped)}`;
  } catch {
    return 'uncaught exception (could not be read, possibly out of memory)';
  }
}
