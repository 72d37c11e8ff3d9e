/**
 * `bun bench/tracing-parts.ts`: how much of what tracing costs is the AsyncLocalStorage alone.
 * A request's shape without HTTP or svc's pipeline (a dozen awaits, one real PostgreSQL query, a
 * Response), 32 in flight, under three tracers taken in turn in one process, the order reversed
 * every round: none; one that only enters an AsyncLocalStorage per request and reads it where the
 * real one does (annotate, each query); the telemetry plugin's tracer (no collector). The figure is
 * the median, over the rounds, of each one's CPU per request against none's in the same round.
 * (An earlier measurement left the span out of the AsyncLocalStorage of the real tracer instead:
 * then nothing found the span, so no store, counts, rate check or query timing happened either,
 * and the whole difference looked like the AsyncLocalStorage's; docs/benchmarks.md.)
 *
 *   PARTS_REQUESTS  requests per measurement (default 4000)
 *   PARTS_ROUNDS    rounds (default 24; the first 3 are not counted)
 *   DATABASE_URL    server to create the throwaway database on
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { loadavg } from 'node:os';
import { openDb } from '../core/db';
import { createLogger } from '../core/log';
import { installTracer, tracing, type Tracer } from '../core/plugins/telemetry';
import { startTracer } from '../plugins/telemetry/tracer';
import type { TelemetrySettings } from '../plugins/telemetry/config';
import { createBenchDb } from './seed';

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.PARTS_REQUESTS ?? 4000);
const ROUNDS = Math.max(4, Number(process.env.PARTS_ROUNDS ?? 24));
const bench = await createBenchDb(10);
const db = await openDb({ databaseUrl: bench.url, poolSize: 10 });
const settings: TelemetrySettings = { slow_query_ms: 100, spans_per_second: 50, service_name: 'svc' } as TelemetrySettings;
const real = startTracer(db, settings, createLogger());
const als = new AsyncLocalStorage<object>();
const alsOnly: Tracer = {
  span: (_kind, _name, _attrs, run) => Promise.resolve(als.run({}, run)),
  record() {},
  annotate() {
    als.getStore();
  },
  queryStart() {
    als.getStore();
    return undefined;
  },
  queryEnd() {},
};
const tracers: Record<string, Tracer | undefined> = { none: undefined, 'AsyncLocalStorage only': alsOnly, 'the tracer': real };

const store = bench.storeId;
async function handler(i: number) {
  await Promise.resolve();
  tracing.tracer?.annotate({ store_id: store, request_id: `req_${i}` });
  const rows = await db.query('SELECT $1::int AS x', [i]);
  for (let k = 0; k < 10; k++) await Promise.resolve();
  return new Response(JSON.stringify(rows));
}
const attrs = { method: 'GET', route: '/x' };
const outcome = (r: Response) => ({ status: r.status });
const request = (i: number) => {
  const t = tracing.tracer;
  return t ? t.span('request', 'GET /x', attrs, () => handler(i), outcome) : handler(i);
};
async function measure(name: string) {
  installTracer(tracers[name]);
  let next = 0;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < N) await (await request(next++)).arrayBuffer();
    }),
  );
  const used = process.cpuUsage(cpu);
  installTracer(undefined);
  return (used.user + used.system) / N;
}

try {
  const names = Object.keys(tracers);
  const got: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  const loads = [loadavg()[0]];
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of r % 2 ? [...names].reverse() : names) got[n].push(await measure(n));
    loads.push(loadavg()[0]);
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(`${ROUNDS - 3} rounds of ${N} requests, load average ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}`);
  for (const n of names) {
    const ratios = got[n].map((x, i) => x / got.none[i] - 1).slice(3);
    console.log(`${n.padEnd(24)} ${med(got[n].slice(3)).toFixed(2)} µs/request, ${(med(ratios) * 100).toFixed(1)}% over none`);
  }
} finally {
  await real.stop();
  await db.close();
  await bench.drop();
}
