import { describe, expect, test } from 'bun:test';
import { runSandboxed } from './index';

describe('runSandboxed', () => {
  test('returns a value computed from input', async () => {
    const r = await runSandboxed('return { sum: input.a + input.b, tag: params.tag }', {
      input: { a: 2, b: 3 },
      params: { tag: 'x' },
    });
    expect(r).toMatchObject({ ok: true, result: { sum: 5, tag: 'x' } });
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  test('awaits a returned promise', async () => {
    const r = await runSandboxed('const double = async (n) => { await null; return n * 2 }; return double(input).then((v) => [v, v + 1])', {
      input: 21,
    });
    expect(r).toMatchObject({ ok: true, result: [42, 43] });
  });

  test('a rejected promise becomes an error with its message', async () => {
    const r = await runSandboxed('return (async () => { throw new TypeError("nope") })()', {});
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message).toContain('nope');
  });

  test('a promise that never settles is an error, not a hang', async () => {
    // Found at once, with no job left to run: a deadline far away, so a loaded machine never
    // reaches it first (at 200 ms, under a load of 10, it did: 'timeout' after 317 ms).
    const r = await runSandboxed('return new Promise(() => {})', {}, { timeoutMs: 5000 });
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message).toContain('never settles');
  });

  test('a thrown error becomes status error with its message', async () => {
    const r = await runSandboxed('throw new Error("bad input: " + input)', { input: 'q' });
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message).toContain('bad input: q');
  });

  test('a syntax error becomes status error', async () => {
    const r = await runSandboxed('return {', {});
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message).toContain('SyntaxError');
  });

  test('a non-JSON result becomes an error with a message', async () => {
    const fn = await runSandboxed('return () => 1', {});
    expect(fn).toMatchObject({ ok: false, status: 'error' });
    if (!fn.ok) expect(fn.message).toContain('not JSON-serializable');
    const cyclic = await runSandboxed('const o = {}; o.o = o; return o', {});
    expect(cyclic).toMatchObject({ ok: false, status: 'error' });
    if (!cyclic.ok) expect(cyclic.message).toContain('not JSON-serializable');
  });

  test('an infinite loop times out at about the deadline', async () => {
    const r = await runSandboxed('while (true) {}', {}, { timeoutMs: 200 });
    expect(r).toMatchObject({ ok: false, status: 'timeout' });
    expect(r.durationMs).toBeGreaterThanOrEqual(200);
    expect(r.durationMs).toBeLessThan(1000);
  });

  test('an endless promise-job chain times out too', async () => {
    const r = await runSandboxed('const spin = () => Promise.resolve().then(spin); return spin()', {}, { timeoutMs: 200 });
    expect(r).toMatchObject({ ok: false, status: 'timeout' });
    expect(r.durationMs).toBeLessThan(1000);
  });

  test('a runaway loop blocks the host thread only until its deadline; timers and concurrent calls then proceed', async () => {
    // The sync QuickJS build runs on this thread: a timer due during the runaway fires right after it ends.
    const t0 = performance.now();
    let timerFiredAt = -1;
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        timerFiredAt = performance.now() - t0;
        resolve();
      }, 20),
    );
    const [runaway, trivial] = await Promise.all([
      runSandboxed('for (;;) {}', {}, { timeoutMs: 200 }),
      runSandboxed('return input * 2', { input: 4 }),
    ]);
    await timer;
    expect(runaway).toMatchObject({ ok: false, status: 'timeout' });
    expect(trivial).toMatchObject({ ok: true, result: 8 });
    expect(timerFiredAt).toBeGreaterThan(0);
    expect(timerFiredAt).toBeLessThan(1000);
  });

  test('a memory bomb is an error mentioning memory, not a host crash', async () => {
    const r = await runSandboxed("const a = []; for (;;) a.push('x'.repeat(1e6))", {}, { timeoutMs: 5000 });
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message.toLowerCase()).toContain('memory');
    // The shared QuickJS module is still usable afterwards.
    expect(await runSandboxed('return 1', {})).toMatchObject({ ok: true, result: 1 });
    // QuickJS spends several seconds inside native String.prototype.repeat near the limit.
  }, 30_000);

  test('deep recursion is a stack error', async () => {
    const r = await runSandboxed('const f = (n) => f(n + 1) + 1; return f(0)', {}, { timeoutMs: 5000 });
    expect(r).toMatchObject({ ok: false, status: 'error' });
    if (!r.ok) expect(r.message.toLowerCase()).toContain('stack');
  });

  test('no host objects are visible', async () => {
    const r = await runSandboxed('return [typeof process, typeof require, typeof fetch, typeof Bun, typeof setTimeout, typeof XMLHttpRequest]', {});
    expect(r).toMatchObject({ ok: true, result: Array(6).fill('undefined') });
  });

  test('each call gets a fresh sandbox: a global set in one call is gone in the next', async () => {
    const first = await runSandboxed('globalThis.leak = 42; Object.prototype.polluted = 1; return typeof leak', {});
    expect(first).toMatchObject({ ok: true, result: 'number' });
    const second = await runSandboxed('return [typeof leak, typeof ({}).polluted]', {});
    expect(second).toMatchObject({ ok: true, result: ['undefined', 'undefined'] });
  });

  test('vars must be identifiers and JSON data', async () => {
    expect(await runSandboxed('return 1', { 'a-b': 1 })).toMatchObject({ ok: false, status: 'error' });
    expect(await runSandboxed('return 1', { input: 1n })).toMatchObject({ ok: false, status: 'error' });
    expect(await runSandboxed('return typeof input', { input: undefined })).toMatchObject({
      ok: true,
      result: 'undefined',
    });
  });
});

describe('runSandboxed: the body is an async function, and results are capped', () => {
  test('top-level await works', async () => {
    const r = await runSandboxed('const x = await Promise.resolve(input); return x + 1', { input: 41 });
    expect(r).toMatchObject({ ok: true, result: 42 });
  });

  test('a result over 1 MiB (as JSON) is an error stating the limit; one under it is returned', async () => {
    const big = await runSandboxed('return "x".repeat(2 * 1024 * 1024)', {});
    expect(big).toMatchObject({ ok: false, status: 'error' });
    if (!big.ok) expect(big.message).toBe('the result (2 MiB as JSON) is larger than the 1 MiB limit; return less data');
    const fits = await runSandboxed('return "x".repeat(1024 * 1024 - 2)', {});
    expect(fits.ok && (fits.result as string).length).toBe(1024 * 1024 - 2);
    const small = await runSandboxed('return [1, 2]', {}, { maxResultBytes: 4 });
    expect(small).toMatchObject({ ok: false, status: 'error' });
  });
});
