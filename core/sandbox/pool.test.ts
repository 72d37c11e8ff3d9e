import { afterAll, describe, expect, test } from 'bun:test';
import { closeSandboxPool, runInSandbox, sandboxPoolStats, type SandboxResult } from './pool';
import { isSkipped, skipMark } from './skip';

// Limits kept short so the whole file stays well under 30 s; the product default is 10 s.
const LIMIT = 300;
/** What "ends within the limit" allows: the watchdog grace plus scheduling slack. */
const SLACK = 500;

const MEMORY_BOMBS = {
  'doubling string': "let s = 'x'; while (true) s += s;",
  'huge repeat': "return 'x'.repeat(2 ** 28).length",
  // One native call with no interrupt check inside: 1e8 holes take seconds on any machine (2e7
  // finished inside the 300 ms limit on a fast one), so the deadline, not the speed, decides.
  'huge join': "return new Array(1e8).join('').length",
  'growing array of strings': "const a = []; for (;;) a.push('x'.repeat(1e6))",
};

/** Runs `code` and returns its result with the wall time seen by the caller. */
async function timed(code: string, vars: Record<string, unknown> = {}, timeoutMs = LIMIT) {
  const start = performance.now();
  const r = await runInSandbox(code, vars, { timeoutMs });
  return { r, wallMs: performance.now() - start };
}

async function expectHealthy() {
  expect(await runInSandbox('return input * 2', { input: 21 })).toMatchObject({ ok: true, result: 42 });
}

/** RSS once terminated worker threads are torn down (asynchronously) and garbage is collected. */
async function settledRss() {
  Bun.gc(true);
  await Bun.sleep(300);
  Bun.gc(true);
  return process.memoryUsage().rss;
}

afterAll(() => closeSandboxPool());

describe('runInSandbox (worker pool)', () => {
  test('returns a value computed from its input', async () => {
    const r = await runInSandbox('return { sum: input.a + input.b, tag: params.tag }', {
      input: { a: 2, b: 3 },
      params: { tag: 'x' },
    });
    expect(r).toMatchObject({ ok: true, result: { sum: 5, tag: 'x' } });
  });

  test('no host objects are visible inside, even though it runs on a Bun worker thread', async () => {
    const r = await runInSandbox(
      'return [typeof process, typeof require, typeof fetch, typeof Bun, typeof setTimeout, typeof postMessage, typeof self]',
      {},
    );
    expect(r).toMatchObject({ ok: true, result: Array(7).fill('undefined') });
  });

  test('vars that cannot be copied are an error, not a throw', async () => {
    const fn = await runInSandbox('return 1', { input: () => 1 });
    expect(fn).toMatchObject({ ok: false, status: 'error' });
    const big = await runInSandbox('return 1', { input: 1n });
    expect(big).toMatchObject({ ok: false, status: 'error' });
    await expectHealthy();
  });

  test('an infinite loop times out near its limit while the server keeps answering', async () => {
    await expectHealthy(); // a started worker, so the timing below is the guest's
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('pong') });
    try {
      let ticks = 0;
      const interval = setInterval(() => ticks++, 20);
      const runaway = timed('while (true) {}', {}, 1000);
      await Bun.sleep(200); // the runaway is now spinning on its worker
      const t = performance.now();
      const answer = await fetch(`http://127.0.0.1:${server.port}/`).then((res) => res.text());
      const fetchMs = performance.now() - t;
      const { r, wallMs } = await runaway;
      clearInterval(interval);
      console.log(`runaway: ${wallMs.toFixed(0)} ms; fetch during it: ${fetchMs.toFixed(1)} ms; ${ticks} ticks of 20 ms`);
      expect(answer).toBe('pong');
      expect(fetchMs).toBeLessThan(150);
      expect(ticks).toBeGreaterThanOrEqual(25); // ~50 expected in 1 s; the main thread was never blocked
      expect(r).toMatchObject({ ok: false, status: 'timeout' });
      if (!r.ok) expect(r.message).toContain('1000 ms');
      expect(wallMs).toBeLessThan(1000 + SLACK);
    } finally {
      server.stop(true);
    }
    await expectHealthy();
  });

  for (const [name, code] of Object.entries(MEMORY_BOMBS)) {
    test(`memory bomb (${name}) ends as an error or timeout within the limit`, async () => {
      const { r, wallMs } = await timed(code);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(['error', 'timeout']).toContain(r.status);
        expect(r.message.length).toBeGreaterThan(0);
      }
      expect(wallMs).toBeLessThan(LIMIT + SLACK);
      await expectHealthy();
    });
  }

  test('deep recursion is an error mentioning the stack', async () => {
    const r = await runInSandbox('const f = (n) => f(n + 1) + 1; return f(0)', {});
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message.toLowerCase()).toContain('stack');
    await expectHealthy();
  });

  test('a thrown error is an error with its message', async () => {
    const r = await runInSandbox('throw new Error("bad input: " + input)', { input: 'q' });
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message).toContain('bad input: q');
    await expectHealthy();
  });

  test('a promise that never settles is an error', async () => {
    const r = await runInSandbox('return new Promise(() => {})', {});
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message).toContain('never settles');
    await expectHealthy();
  });

  test('a mixed batch of good and hostile calls: each ends within its limit, the pool survives, RSS stays bounded', async () => {
    const kinds: [string, string, (r: SandboxResult) => boolean][] = [
      ['ok', 'return input + 1', (r) => r.ok && r.result === 8],
      ['loop', 'for (;;) {}', (r) => !r.ok && r.status === 'timeout'],
      ['throw', 'throw new TypeError("nope")', (r) => !r.ok && r.status === 'error' && r.message.includes('nope')],
      ['recursion', 'const f = (n) => f(n + 1); return f(0)', (r) => !r.ok && r.status === 'error'],
      ['pending', 'return new Promise(() => {})', (r) => !r.ok && r.status === 'error'],
      ...Object.entries(MEMORY_BOMBS).map(([name, code]): [string, string, (r: SandboxResult) => boolean] => [name, code, (r) => !r.ok]),
    ];
    const rssBefore = await settledRss();
    const start = performance.now();
    const runs = Array.from({ length: 72 }, (_, i) => kinds[i % kinds.length]);
    // All submitted at once: the pool queues them, and queue time does not count against the limit.
    const results = await Promise.all(runs.map(([, code]) => runInSandbox(code, { input: 7 }, { timeoutMs: LIMIT })));
    const batchMs = performance.now() - start;
    // Each ends as its kind must (a timeout or error is the watchdog at work). How close to its
    // limit is what the single-call tests above hold; queued behind 71 others on a loaded machine,
    // a call's own time can stretch, so here the bound only tells "ended" from "ran on".
    // A hostile call may also be stopped by its watchdog before it ends its own way: at a load of
    // 15 a worker thread can wait longer than the 300 ms limit for a core (a never-settling promise
    // was stopped at 648 ms). Ending is what counts here; the single-call tests above check each
    // kind's own error. A good call must still succeed.
    results.forEach((r, i) => {
      const [kind, , expected] = runs[i];
      const stopped = kind !== 'ok' && !r.ok && r.status === 'timeout';
      if (!(expected(r) || stopped) || r.durationMs >= LIMIT * 10) throw new Error(`${kind}: unexpected ${JSON.stringify(r)}`);
    });
    await expectHealthy();
    const rssAfter = await settledRss();
    const growthMiB = (rssAfter - rssBefore) / 2 ** 20;
    console.log(
      `mixed batch: ${runs.length} calls in ${batchMs.toFixed(0)} ms on ${sandboxPoolStats().size} workers; ` +
        `RSS ${(rssBefore / 2 ** 20).toFixed(0)} -> ${(rssAfter / 2 ** 20).toFixed(0)} MiB (growth ${growthMiB.toFixed(1)} MiB)`,
    );
    expect(growthMiB).toBeLessThan(100);
    // About 11 s of guest time on two workers; a loaded machine stretches it, so the test may take
    // long: what it asserts is each call's end (its watchdog), not the batch's wall time.
  }, 120_000);

  // Both tests below assert the order things end in, not wall time: a loaded machine slows every
  // call alike, so a bound in milliseconds fails there without any change to the pool (bench/
  // keeps the timings).
  test('a call queued at a worker behind a runaway is taken back and runs elsewhere: every short call ends while the runaway still runs', async () => {
    const { size } = sandboxPoolStats();
    // Workers started (a worker replaced after an earlier test's memory bomb starts slowly on a
    // busy machine), so the short calls below wait for nothing but the runaways.
    await Promise.all(Array.from({ length: size * 2 }, () => runInSandbox('return 1', {})));
    let runawaysEnded = false;
    // Every worker but one busy with a runaway, then many short calls: some are queued behind
    // runaways (pipelining) and must not wait for them. The runaways' limit is a minute, so the
    // order asserted holds on any machine; closing the pool then ends them.
    const runaways = Promise.all(
      Array.from({ length: Math.max(1, size - 1) }, () => runInSandbox('while (true) {}', {}, { timeoutMs: 60_000 })),
    ).then((r) => ((runawaysEnded = true), r));
    const quick = await Promise.all(Array.from({ length: 20 }, (_, i) => runInSandbox('return input * 2', { input: i })));
    expect(quick.map((r) => (r.ok ? r.result : r.message))).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    // With one worker, the short calls have nowhere else to go: they wait for the runaway.
    if (size > 1) expect(runawaysEnded).toBe(false);
    await closeSandboxPool();
    for (const r of await runaways) expect(r).toMatchObject({ ok: false, message: 'sandbox pool closed' });
    await expectHealthy();
  });

  test("stores share the pool: one store's flood of slow calls does not make another wait behind all of it", async () => {
    const { size } = sandboxPoolStats();
    const ended: string[] = [];
    // Store A: many calls of ~150 ms each, far more than the workers can take at once.
    const flood = Array.from({ length: size * 8 }, () =>
      runInSandbox('const end = Date.now() + 150; while (Date.now() < end) {} return "a"', {}, { tenant: 'store-a' }).then(
        (r) => (ended.push('a'), r),
      ),
    );
    await Bun.sleep(20);
    const b = await runInSandbox('return "b"', {}, { tenant: 'store-b' });
    ended.push('b');
    expect(b).toMatchObject({ ok: true, result: 'b' });
    for (const r of await Promise.all(flood)) expect(r).toMatchObject({ ok: true, result: 'a' });
    // Behind all of A's calls, B would end last (8 x size calls before it); served in turn, it
    // waits only for the calls already running or queued at a worker (about 2 x size end first,
    // a few more on the other workers meanwhile): well under half of the flood either way.
    console.log(`fair share: store B ended after ${ended.indexOf('b')} of store A's ${flood.length} calls (${size} workers)`);
    expect(ended.indexOf('b')).toBeLessThan(flood.length / 2);
  });

  test('when too many calls are waiting, new ones are refused at once as busy', async () => {
    const results = await Promise.all(Array.from({ length: 1100 }, (_, i) => runInSandbox('return input', { input: i })));
    const busy = results.filter((r) => !r.ok && r.message.startsWith('sandbox busy'));
    expect(busy.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.ok).length + busy.length).toBe(results.length);
    await expectHealthy();
  });

  test('closing the pool answers calls in flight, and a later call starts a fresh pool', async () => {
    const inFlight = runInSandbox('for (;;) {}', {}, { timeoutMs: 5000 });
    await Bun.sleep(100);
    await closeSandboxPool();
    expect(await inFlight).toMatchObject({ ok: false, status: 'error', message: 'sandbox pool closed' });
    expect(sandboxPoolStats()).toMatchObject({ workers: 0, busy: 0, queued: 0 });
    await expectHealthy();
  });
});

describe('taking calls back from a worker (skip mark)', () => {
  // The moment of a former stall, replayed on one worker thread: it is still busy with call 1,
  // which the pool took back (it already ran); the pool believes call 2 is running and takes back
  // call 3, queued behind it. Call 2 must still run: dropping it left its caller waiting for the
  // watchdog (10 s) under load.
  test('the worker drops only the calls taken back, not the one the pool believes is running', async () => {
    const worker = new Worker(new URL('./worker.ts', import.meta.url).href);
    const skip = new Int32Array(new SharedArrayBuffer(4));
    const results: number[] = [];
    try {
      const ready = new Promise<void>((resolve) => {
        worker.onmessage = (e: MessageEvent) => {
          if (e.data.type === 'ready') resolve();
          else results.push(e.data.id);
        };
      });
      worker.postMessage({ type: 'init', skip: skip.buffer });
      await ready;
      const call = (seq: number, code: string) => worker.postMessage({ id: seq, seq, code, vars: {}, opts: { timeoutMs: 2000 } });
      call(1, 'const end = Date.now() + 200; while (Date.now() < end) {} return 1');
      call(2, 'return 2');
      call(3, 'return 3');
      Atomics.store(skip, 0, skipMark(2, 3));
      const until = performance.now() + 3000;
      while (results.length < 2 && performance.now() < until) await Bun.sleep(10);
      await Bun.sleep(100); // call 3, had it run, would have answered by now
      expect(results).toEqual([1, 2]);
    } finally {
      worker.terminate();
    }
  });

  test('the mark is a range: from < seq <= to', () => {
    const mark = skipMark(7, 9);
    expect([6, 7, 8, 9, 10].map((seq) => isSkipped(mark, seq))).toEqual([false, false, true, true, false]);
    expect(isSkipped(0, 1)).toBe(false); // the initial mark skips nothing
    expect(isSkipped(skipMark(10_001, 10_002), 10_002)).toBe(true);
  });
});
