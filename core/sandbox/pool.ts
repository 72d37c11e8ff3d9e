/**
 * Runs sandboxed JavaScript (runSandboxed, index.ts) on a small pool of Worker threads, so that
 * guest code never blocks the server's event loop.
 *
 * Why a pool of threads rather than calling runSandboxed directly:
 * - the sync QuickJS build blocks whichever thread runs it: on a worker, a runaway loop only
 *   costs that worker, and the server keeps answering other requests;
 * - QuickJS's interrupt handler only runs between bytecode ops, so a long native builtin or a GC
 *   storm near the memory limit can overrun the deadline by seconds. A host-side watchdog
 *   terminate()s the worker at timeoutMs + WATCHDOG_GRACE_MS, which is a hard stop;
 * - a worker whose call was aborted (timeout, out of memory, wasm failure) is replaced, which also
 *   returns its grown wasm memory to the system (WebAssembly memory never shrinks otherwise).
 *
 * Each worker runs one call at a time; calls beyond the pool size wait FIFO (the wait does not
 * count against the guest's time limit), and past MAX_QUEUED waiting calls new calls are refused
 * at once rather than piling up. Workers start lazily and are unref'd, so an idle pool never
 * keeps the process alive; a call in flight does (through its watchdog timer).
 *
 * The compiled binary must bundle worker.ts as a second entrypoint (see the build script in
 * package.json): `bun build --compile core/cli.ts core/sandbox/worker.ts`.
 */
import { SANDBOX_DEFAULTS, type SandboxOptions, type SandboxResult } from './index';
import type { CallMessage } from './worker';

export type { SandboxOptions, SandboxResult };

/** How long past the guest's own deadline the watchdog waits before killing the worker. */
const WATCHDOG_GRACE_MS = 300;
/** Calls waiting for a worker beyond this are refused immediately ("sandbox busy"). */
const MAX_QUEUED = 1000;
/** A worker that has not compiled QuickJS within this is considered unable to start. */
const START_TIMEOUT_MS = 15_000;
/** A worker is replaced after this many calls anyway: a cheap backstop against slow leaks. */
const MAX_CALLS_PER_WORKER = 10_000;

/**
 * Where the worker entry is. Run from source: worker.ts beside this file. In a binary compiled
 * with `bun build --compile core/cli.ts core/sandbox/worker.ts`, this module is inlined into the
 * main chunk (import.meta.url is file:///$bunfs/root/<outfile>), and Bun embeds the extra entrypoint
 * at its path relative to the entrypoints' common folder (core/), with a .js extension.
 * (Bun 1.4's docs suggest `new URL('./worker.ts', import.meta.url)` works there too: it does
 * only when both files share a folder.)
 */
const WORKER_URL = /[/\\](\$bunfs|~BUN)[/\\]/.test(import.meta.url)
  ? new URL('./sandbox/worker.js', import.meta.url).href
  : new URL('./worker.ts', import.meta.url).href;

interface Call {
  code: string;
  vars: Record<string, unknown>;
  opts: CallMessage['opts'];
  resolve: (result: SandboxResult) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  calls: number;
  /** The call in flight, with its id, dispatch time and watchdog timer. */
  current?: { id: number; call: Call; startedAt: number; watchdog: Timer };
  /** Armed until the worker says it is ready. */
  startTimer?: Timer;
}

let size: number | undefined;
const slots = new Set<Slot>();
const queue: Call[] = [];
let nextId = 1;

/** The pool size: SVC_SANDBOX_WORKERS, else min(4, cores). */
export function sandboxPoolSize(): number {
  if (size === undefined) {
    const fromEnv = Number.parseInt(process.env.SVC_SANDBOX_WORKERS ?? '', 10);
    size = fromEnv >= 1 ? fromEnv : Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1));
  }
  return size;
}

/**
 * Same contract as runSandboxed (never throws; failures are `{ ok: false, status, message }`),
 * executed on a pool worker thread with a hard wall-time stop.
 */
export function runInSandbox(
  code: string,
  vars: Record<string, unknown>,
  opts: SandboxOptions = {},
): Promise<SandboxResult> {
  if (queue.length >= MAX_QUEUED) {
    return Promise.resolve(failure('error', `sandbox busy: ${queue.length} calls already waiting, try again later`, 0));
  }
  return new Promise((resolve) => {
    queue.push({
      code,
      vars,
      opts: {
        timeoutMs: opts.timeoutMs ?? SANDBOX_DEFAULTS.timeoutMs,
        memoryBytes: opts.memoryBytes,
        stackBytes: opts.stackBytes,
      },
      resolve,
    });
    pump();
  });
}

/** Terminates all workers; calls in flight or waiting answer `error`. A later call starts a new pool. */
export async function closeSandboxPool(): Promise<void> {
  for (const call of queue.splice(0)) call.resolve(failure('error', 'sandbox pool closed', 0));
  for (const slot of [...slots]) discard(slot, 'sandbox pool closed');
  size = undefined;
}

/** Counters for diagnostics and tests. */
export function sandboxPoolStats(): { size: number; workers: number; busy: number; queued: number } {
  let busy = 0;
  for (const slot of slots) if (slot.current) busy++;
  return { size: sandboxPoolSize(), workers: slots.size, busy, queued: queue.length };
}

/** Hands waiting calls to idle ready workers, and starts workers while calls wait and the pool is not full. */
function pump(): void {
  for (const slot of slots) {
    if (queue.length === 0) return;
    if (slot.ready && !slot.current) dispatch(slot, queue.shift()!);
  }
  let starting = 0;
  for (const slot of slots) if (!slot.ready) starting++;
  while (queue.length > starting && slots.size < sandboxPoolSize()) {
    spawn();
    starting++;
  }
}

function spawn(): void {
  // ref: false: an idle pool must not keep the process (CLI, tests) alive.
  const worker = new Worker(WORKER_URL, { ref: false });
  const slot: Slot = { worker, ready: false, calls: 0 };
  slots.add(slot);
  // This timer is ref'd on purpose: calls are waiting for this worker, so the process must wait too.
  slot.startTimer = setTimeout(() => {
    discard(slot, `sandbox worker did not start within ${START_TIMEOUT_MS} ms`);
    failWaitingIfNoWorker(`sandbox worker did not start within ${START_TIMEOUT_MS} ms`);
  }, START_TIMEOUT_MS);

  worker.addEventListener('message', (event: MessageEvent) => {
    if (!slots.has(slot)) return; // a late message from a worker already discarded
    const data = event.data as { type: 'ready' } | { type: 'result'; id: number; result: SandboxResult; broken: boolean };
    if (data.type === 'ready') {
      slot.ready = true;
      clearTimeout(slot.startTimer);
      pump();
      return;
    }
    const current = slot.current;
    if (!current || current.id !== data.id) return;
    clearTimeout(current.watchdog);
    slot.current = undefined;
    const result = overDeadline(data.result, current.call.opts.timeoutMs);
    current.call.resolve(result);
    if (data.broken || shouldRecycle(result) || slot.calls >= MAX_CALLS_PER_WORKER) discard(slot);
    pump();
  });
  // An uncaught error on the worker thread, including a worker script that cannot be loaded
  // (e.g. a compiled binary built without worker.ts as an entrypoint).
  worker.addEventListener('error', (event: ErrorEvent) => {
    if (!slots.has(slot)) return;
    const wasStarting = !slot.ready;
    const message = `sandbox worker ${wasStarting ? 'failed to start' : 'crashed'}: ${event.message || 'unknown error'}`;
    discard(slot, message);
    // A worker that cannot even start would fail the same way for every waiting call: answer them
    // rather than respawning forever.
    if (wasStarting) failWaitingIfNoWorker(message);
    else pump();
  });
  worker.addEventListener('close', () => {
    if (!slots.has(slot)) return; // closed by discard()
    const message = 'sandbox worker exited unexpectedly';
    const wasStarting = !slot.ready;
    discard(slot, message);
    if (wasStarting) failWaitingIfNoWorker(message);
    else pump();
  });
}

function dispatch(slot: Slot, call: Call): void {
  const id = nextId++;
  const startedAt = performance.now();
  const { timeoutMs } = call.opts;
  // The hard stop: the guest's own interrupt handler should have ended the call at timeoutMs.
  const watchdog = setTimeout(() => {
    if (slot.current?.id !== id) return;
    slot.current = undefined;
    call.resolve(failure('timeout', `timed out after ${timeoutMs} ms (stopped by the watchdog)`, performance.now() - startedAt));
    discard(slot);
    pump();
  }, timeoutMs + WATCHDOG_GRACE_MS);
  slot.current = { id, call, startedAt, watchdog };
  slot.calls++;
  try {
    slot.worker.postMessage({ id, code: call.code, vars: call.vars, opts: call.opts } satisfies CallMessage);
  } catch (e) {
    // Structured clone refused the vars (functions, symbols...): the worker is still fine.
    clearTimeout(watchdog);
    slot.current = undefined;
    call.resolve(failure('error', `vars are not JSON-serializable: ${(e as Error).message}`, 0));
    queueMicrotask(pump);
  }
}

/** Removes a worker from the pool and stops its thread; its call in flight, if any, answers `error`. */
function discard(slot: Slot, message?: string): void {
  if (!slots.delete(slot)) return;
  clearTimeout(slot.startTimer);
  const current = slot.current;
  slot.current = undefined;
  if (current) {
    clearTimeout(current.watchdog);
    current.call.resolve(failure('error', message ?? 'sandbox worker stopped', performance.now() - current.startedAt));
  }
  slot.worker.terminate();
}

/** After a start-up failure: answer the waiting calls unless some other worker can still take them. */
function failWaitingIfNoWorker(message: string): void {
  if (slots.size > 0) return pump();
  for (const call of queue.splice(0)) call.resolve(failure('error', message, 0));
}

/**
 * Aborted calls leave the wasm instance possibly inconsistent or grown to the memory limit:
 * a fresh worker is cheap (~50 ms off the main thread) and keeps RSS bounded.
 */
function shouldRecycle(result: SandboxResult): boolean {
  if (result.ok) return false;
  return result.status === 'timeout' || /out of memory|sandbox failure/i.test(result.message);
}

/**
 * A single long native builtin (e.g. `new Array(2e7).join('')`) can return a value after the
 * deadline, since the interrupt handler never got a chance to run: the limit is a hard one, so
 * that is a timeout too.
 */
function overDeadline(result: SandboxResult, timeoutMs: number): SandboxResult {
  if (!result.ok || result.durationMs <= timeoutMs) return result;
  return failure('timeout', `timed out after ${timeoutMs} ms`, result.durationMs);
}

function failure(status: 'timeout' | 'error', message: string, durationMs: number): SandboxResult {
  return { ok: false, status, message, durationMs };
}
