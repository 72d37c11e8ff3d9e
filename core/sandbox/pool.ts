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
 * Each worker runs one call at a time (and holds the next); calls beyond that wait, served
 * round-robin between stores (fair-queue.ts; the wait does not count against the guest's
 * limit), and past MAX_QUEUED waiting calls new calls are refused at once rather than piling up. Workers start lazily and are unref'd, so an idle pool never
 * keeps the process alive; a call in flight does (through its watchdog timer).
 *
 * The compiled binary must bundle worker.ts as a second entrypoint (see the build script in
 * package.json): `bun build --compile core/cli.ts core/sandbox/worker.ts`.
 */
import { SANDBOX_DEFAULTS } from './constants';
import type { SandboxOptions, SandboxResult } from './index';
import type { CallMessage } from './worker';
import { FairQueue } from './fair-queue';
import { skipMark } from './skip';

export type { SandboxOptions, SandboxResult };

/** How long past the guest's own deadline the watchdog waits before killing the worker. */
const WATCHDOG_GRACE_MS = 300;
/** Calls waiting for a worker beyond this are refused immediately ("sandbox busy"). */
const MAX_QUEUED = 1000;
/** A worker that has not compiled QuickJS within this is considered unable to start. */
const START_TIMEOUT_MS = 15_000;
/** A worker is replaced after this many calls anyway: a cheap backstop against slow leaks. */
const MAX_CALLS_PER_WORKER = 10_000;
/** Calls a worker may hold at once: the running one and the next. */
const PIPELINE_DEPTH = 2;
/** A next call is queued behind a running one only this young; older ones' followers are taken back. */
const PIPELINE_YOUNG_MS = 5;

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
  opts: Omit<CallMessage['opts'], never>;
  resolve: (result: SandboxResult) => void;
  /** Taken back once already after its worker was found busy with work it was not known to hold. */
  retried?: boolean;
}

/** A call sent to a worker: the first of a slot's list is running (host's view), the rest wait there. */
interface Sent {
  id: number;
  seq: number;
  call: Call;
  startedAt?: number;
  watchdog?: Timer;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  calls: number;
  /** Calls sent to this worker, in its order. */
  sent: Sent[];
  seq: number;
  /** Shared with the worker: queued calls in the range skip[0] marks (skip.ts) are dropped unrun (taken back). */
  skip: Int32Array;
  /** Calls were taken back from it: it may be running one of them without the pool knowing. */
  tainted: boolean;
  /** Armed until the worker says it is ready. */
  startTimer?: Timer;
}

let size: number | undefined;
const slots = new Set<Slot>();
const queue = new FairQueue<Call>();
let nextId = 1;
let sweeper: Timer | undefined;

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
 * executed on a pool worker thread with a hard wall-time stop. `tenant` (a store id) shares the
 * pool fairly between stores when calls wait.
 */
export function runInSandbox(code: string, vars: Record<string, unknown>, opts: SandboxOptions & { tenant?: string } = {}): Promise<SandboxResult> {
  if (queue.length >= MAX_QUEUED) {
    return Promise.resolve(failure('error', `sandbox busy: ${queue.length} calls already waiting, try again later`, 0));
  }
  return new Promise((resolve) => {
    queue.push(opts.tenant ?? '', {
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
  for (const call of queue.drain()) call.resolve(failure('error', 'sandbox pool closed', 0));
  for (const slot of [...slots]) discard(slot, 'sandbox pool closed');
  size = undefined;
}

/** Counters for diagnostics and tests. */
export function sandboxPoolStats(): { size: number; workers: number; busy: number; queued: number } {
  let busy = 0;
  for (const slot of slots) if (slot.sent.length) busy++;
  return { size: sandboxPoolSize(), workers: slots.size, busy, queued: queue.length };
}

/**
 * Hands waiting calls to workers: first to idle ones, then a second call to a worker whose current
 * call only just started (pipelining: the worker starts it the moment it is free, without waiting
 * for this thread to hear back; a wake-up per call costs this thread more than the call itself).
 * Starts workers while calls wait and the pool is not full.
 */
function pump(): void {
  for (let depth = 1; depth <= PIPELINE_DEPTH && queue.length; depth++)
    for (const slot of slots) {
      if (!queue.length) break;
      if (!slot.ready || slot.sent.length !== depth - 1) continue;
      const head = slot.sent[0];
      if (head && performance.now() - (head.startedAt ?? 0) > PIPELINE_YOUNG_MS) continue;
      dispatch(slot, queue.shift()!);
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
  const slot: Slot = { worker, ready: false, calls: 0, sent: [], seq: 0, skip: new Int32Array(new SharedArrayBuffer(4)), tainted: false };
  slots.add(slot);
  worker.postMessage({ type: 'init', skip: slot.skip.buffer });
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
    const head = slot.sent[0];
    // Not the head: a call taken back that the worker had already started; its twin ran elsewhere.
    if (!head || head.id !== data.id) return;
    clearTimeout(head.watchdog);
    slot.sent.shift();
    head.call.resolve(overDeadline(data.result, head.call.opts.timeoutMs));
    if (data.broken || shouldRecycle(data.result) || slot.calls >= MAX_CALLS_PER_WORKER) retire(slot);
    else if (slot.sent.length) start(slot, slot.sent[0]);
    pump();
  });
  // An uncaught error on the worker thread, including a worker script that cannot be loaded
  // (e.g. a compiled binary built without worker.ts as an entrypoint).
  worker.addEventListener('error', (event: ErrorEvent) => {
    if (!slots.has(slot)) return;
    const wasStarting = !slot.ready;
    const message = `sandbox worker ${wasStarting ? 'failed to start' : 'crashed'}: ${event.message || 'unknown error'}`;
    retire(slot, message);
    // A worker that cannot even start would fail the same way for every waiting call: answer them
    // rather than respawning forever.
    if (wasStarting) failWaitingIfNoWorker(message);
    else pump();
  });
  worker.addEventListener('close', () => {
    if (!slots.has(slot)) return; // closed by discard()
    const message = 'sandbox worker exited unexpectedly';
    const wasStarting = !slot.ready;
    retire(slot, message);
    if (wasStarting) failWaitingIfNoWorker(message);
    else pump();
  });
}

function dispatch(slot: Slot, call: Call): void {
  const sent: Sent = { id: nextId++, seq: ++slot.seq, call };
  try {
    slot.worker.postMessage({ id: sent.id, seq: sent.seq, code: call.code, vars: call.vars, opts: call.opts } satisfies CallMessage);
  } catch (e) {
    // Structured clone refused the vars (functions, symbols...): the worker is still fine.
    call.resolve(failure('error', `vars are not JSON-serializable: ${(e as Error).message}`, 0));
    queueMicrotask(pump);
    return;
  }
  slot.calls++;
  slot.sent.push(sent);
  if (slot.sent.length === 1) start(slot, sent);
  // A call now waits behind another: watch it (only then, so an idle pool wakes nobody up).
  else if (!sweeper) {
    sweeper = setInterval(takeBackWaiting, PIPELINE_YOUNG_MS * 4);
    sweeper.unref();
  }
}

/** The call is (as far as this thread can tell) running now: arm its watchdog. */
function start(slot: Slot, sent: Sent): void {
  sent.startedAt = performance.now();
  const { timeoutMs } = sent.call.opts;
  // The hard stop: the guest's own interrupt handler should have ended the call at timeoutMs.
  sent.watchdog = setTimeout(() => {
    if (slot.sent[0] !== sent) return;
    slot.sent.shift();
    // A worker that was handed calls back may still have been busy with one of them (pure guest
    // code: running it twice is harmless) rather than with this one: give this call one more go.
    if (slot.tainted && !sent.call.retried) {
      sent.call.retried = true;
      queue.unshift(sent.call);
    } else sent.call.resolve(failure('timeout', `timed out after ${timeoutMs} ms (stopped by the watchdog)`, performance.now() - sent.startedAt!));
    retire(slot);
    pump();
  }, timeoutMs + WATCHDOG_GRACE_MS);
}

/**
 * Calls waiting behind one that has run for a while are taken back to the front of the queue (the
 * worker drops them unrun, by the shared skip mark), so a slow or runaway call delays nobody else.
 */
function takeBackWaiting(): void {
  const now = performance.now();
  let waiting = false;
  for (const slot of slots) {
    if (slot.sent.length < 2) continue;
    waiting = true;
    if (now - (slot.sent[0].startedAt ?? now) < PIPELINE_YOUNG_MS * 4) continue;
    const back = slot.sent.splice(1);
    // Only the calls behind the head: the head itself may not have started yet (skip.ts).
    Atomics.store(slot.skip, 0, skipMark(slot.sent[0].seq, back[back.length - 1].seq));
    slot.tainted = true;
    queue.unshift(...back.map((s) => s.call));
  }
  if (!waiting) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
  pump();
}

/** Stops a worker: its waiting calls go back to the queue (they never ran), its running one, if any, answers `error`. */
function retire(slot: Slot, message?: string): void {
  const waiting = slot.sent.filter((s) => s.startedAt === undefined);
  slot.sent = slot.sent.filter((s) => s.startedAt !== undefined);
  queue.unshift(...waiting.map((s) => s.call));
  discard(slot, message);
}

/** Removes a worker from the pool and stops its thread; calls still sent to it answer `error`. */
function discard(slot: Slot, message?: string): void {
  if (!slots.delete(slot)) return;
  clearTimeout(slot.startTimer);
  for (const sent of slot.sent.splice(0)) {
    clearTimeout(sent.watchdog);
    sent.call.resolve(failure('error', message ?? 'sandbox worker stopped', performance.now() - (sent.startedAt ?? performance.now())));
  }
  slot.worker.terminate();
}

/** After a start-up failure: answer the waiting calls unless some other worker can still take them. */
function failWaitingIfNoWorker(message: string): void {
  if (slots.size > 0) return pump();
  for (const call of queue.drain()) call.resolve(failure('error', message, 0));
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
