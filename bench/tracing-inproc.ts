/**
 * `bun bench/tracing-inproc.ts`: what tracing adds to one REST GET and one MCP tools/call, in
 * process (no HTTP, no wrk), over real PostgreSQL. Rounds alternate tracer off and on in the same
 * process, so both halves of a ratio see the same machine; the figure is CPU per request of this
 * process (the client's Request objects included, in both halves). For a quick A/B while
 * changing the tracer, and under `valgrind --tool=callgrind` (TRACE_ROUNDS=1, few requests) for
 * instruction counts that do not move with the machine's load.
 *
 *   TRACE_REQUESTS  requests per measurement (default 10000)
 *   TRACE_WARMUP    unmeasured requests before each measurement (default 2000)
 *   TRACE_ROUNDS    off/on pairs (default 3)
 *   TRACE_ONLY      `get` or `mcp`
 *   TRACE_MODE      `on` or `off`: one mode only
 *   TRACE_CALLGRIND=1  under valgrind --tool=callgrind: the counters are zeroed before the measured
 *                   requests and dumped after them (callgrind_control), so the dump holds only
 *                   those; divide its instruction total by TRACE_REQUESTS. E.g.
 *                   BUN_JSC_useConcurrentJIT=0 TRACE_CALLGRIND=1 TRACE_MODE=on TRACE_ONLY=get TRACE_ROUNDS=1 \
 *                   TRACE_REQUESTS=2000 TRACE_WARMUP=3000 \
 *                   valgrind --tool=callgrind node_modules/bun/bin/bun.exe bench/tracing-inproc.ts
 *                   (JIT compilation on the main thread, so where code tiers up does not depend on
 *                   how threads were scheduled)
 *   DATABASE_URL    server to create the throwaway database on
 */
import { systemClock } from '../core/clock';
import { openDb } from '../core/db';
import { createApp } from '../core/http/app';
import { makeServices } from '../core/http/services';
import { createRegistry } from '../core/plugins/registry';
import { createLogger } from '../core/log';
import { pluginList } from '../plugins';
import { startTelemetry } from '../plugins/telemetry';
import type { TelemetrySettings } from '../plugins/telemetry/config';
import { createBenchDb } from './seed';
import { HIGH_LIMITS } from './child';
import { mcpSession } from './mcp-session';
import { flushAudits } from '../core/tools/executions';

/** callgrind_control against this process; the event loop keeps turning meanwhile, so valgrind sees the command. */
async function callgrind(flag: string) {
  if (process.env.TRACE_CALLGRIND !== '1') return;
  const child = Bun.spawn(['callgrind_control', flag, String(process.pid)], { stdout: 'ignore', stderr: 'inherit' });
  let done = false;
  void child.exited.then(() => (done = true));
  while (!done) await Bun.sleep(5);
}

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.TRACE_REQUESTS ?? 10_000);
const ROUNDS = Number(process.env.TRACE_ROUNDS ?? 3);
const WARMUP = Number(process.env.TRACE_WARMUP ?? 2000);
const ONLY = process.env.TRACE_ONLY;
const MODE = process.env.TRACE_MODE;
const bench = await createBenchDb(300);
const db = await openDb({ databaseUrl: bench.url, poolSize: 10 });
try {
  const registry = createRegistry(pluginList);
  // Under callgrind everything runs ~50 times slower: queries would all be "slow" and 50 spans a
  // second a large share of the requests, so kept spans (a cost of at most 50 a second per store)
  // are switched off there and what is counted is the cost every span pays.
  const settings = {
    ...(registry.configOf('telemetry') as TelemetrySettings),
    ...(process.env.TRACE_CALLGRIND === '1' ? { spans_per_second: 0, slow_query_ms: 60_000 } : {}),
  };
  const app = createApp(makeServices({ db, clock: systemClock, registry, limits: HIGH_LIMITS }));
  const ids = (await Bun.file(bench.idsFile).text()).trim().split('\n');
  const store = `http://svc.test/v1/stores/${bench.storeId}`;
  const headers = { 'x-api-key': bench.apiKey };
  const mcp = 'http://svc.test/agent/mcp';
  const rpc = { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const session = { ...rpc, ...(await mcpSession('http://svc.test', headers, (url, init) => app.handle(new Request(url, init)))) };

  const shapes = {
    get: (i: number) => new Request(`${store}/products/${ids[i % ids.length]}`, { headers }),
    mcp: (i: number) =>
      new Request(mcp, {
        method: 'POST',
        headers: session,
        body: `{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":{"name":"products_get_product","arguments":{"id":"${ids[i % ids.length]}"}}}`,
      }),
  };
  /** n requests, 32 in flight (as wrk -c32 keeps them); answers CPU µs per request. */
  const run = async (make: (i: number) => Request, n: number) => {
    let next = 0;
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < n) {
          const res = await app.handle(make(next++));
          if (res.status !== 200) throw new Error(`${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / n;
  };
  const measure = async (shape: keyof typeof shapes, on: boolean) => {
    const t = on ? startTelemetry(db, settings, createLogger()) : undefined;
    try {
      await run(shapes[shape], WARMUP); // JIT, key cache, pool
      await callgrind('-z');
      const us = await run(shapes[shape], N);
      await callgrind('-d');
      return us;
    } finally {
      await t?.stop();
    }
  };
  for (const shape of ['get', 'mcp'] as const) {
    if (ONLY && ONLY !== shape) continue;
    const offs: number[] = [];
    const ons: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      if (MODE !== 'on') offs.push(await measure(shape, false));
      if (MODE !== 'off') ons.push(await measure(shape, true));
      const off = offs.at(-1);
      const on = ons.at(-1);
      console.log(
        `${shape} round ${r + 1}: off ${off?.toFixed(1) ?? '-'} µs/req, on ${on?.toFixed(1) ?? '-'} µs/req` +
          (off && on ? `, +${((on / off - 1) * 100).toFixed(1)}%` : ''),
      );
    }
    if (offs.length && ons.length) {
      const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];
      console.log(`${shape} medians: off ${med(offs).toFixed(1)}, on ${med(ons).toFixed(1)}, +${((med(ons) / med(offs) - 1) * 100).toFixed(1)}%`);
    }
  }
} finally {
  await flushAudits();
  await db.close();
  await bench.drop();
}
