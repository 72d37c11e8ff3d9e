/**
 * `bun bench/tracing.ts`: what tracing costs the REST GET of a product and an MCP `tools/call` of
 * get_product (issue 49's target: at most 10% more with tracing on, about nothing off). One svc
 * server over a throwaway PostgreSQL database, built as `svc serve` builds it, with the telemetry
 * plugin's tracer running as `svc serve` starts it (no collector). The server installs and removes
 * the tracer every BENCH_PHASE_MS (as OTEL_SDK_DISABLED=true leaves it: no tracer) while wrk runs,
 * and counts its requests and its CPU per phase: on and off take turns many times within one run,
 * so a change of the machine's load, a JIT tier-up or a GC lands on both about equally, where
 * measuring on and off one after the other for seconds each moved single rounds by 15 to 30
 * points. The figure is the server's CPU per request over all "on" phases against all "off"
 * phases, with a 95% interval from resampling the pairs of phases (bootstrap).
 * Phases are over a second long, so what a traced request leaves to do later (a young GC, the
 * rollups written each second) mostly lands in its own phase; what lands in the next is shared.
 *
 *   BENCH_SECONDS  length of each measurement (default 60)
 *   BENCH_WARMUP   unmeasured warm-up before each, seconds (default 5)
 *   BENCH_PHASE_MS length of one phase (default 1100: not a multiple of the 1 s rollup timer)
 *   BENCH_POOL     database pool of the server (default 10)
 *   DATABASE_URL   server to create the throwaway database on
 */
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import { createBenchDb, type BenchDb } from './seed';
import { killAll, startServer, type Child } from './servers';
import { killWrk, requireWrk, runWrk, type WrkRun } from './wrk';
import { mcpSession } from './mcp-session';

const wrk = requireWrk();
process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5);
const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 1100);
const POOL = Number(process.env.BENCH_POOL ?? 10);
const RESULT_FILE = join(tmpdir(), `svc-bench-tracing-${process.pid}.json`);
const log = (line: string) => console.error(line);

let db: BenchDb | undefined;
const cleanup = async () => {
  killWrk();
  killAll();
  await rm(RESULT_FILE, { force: true });
  await db?.drop().catch((e) => log(`could not drop the bench database: ${e.message}`));
};
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)
  process.on(signal, () => void cleanup().then(() => process.exit(code)));

type Spec = Omit<WrkRun, 'seconds' | 'connections' | 'threads'>;
type Phase = { on: boolean; cpuUs: number; requests: number };

/** CPU per request over the "on" phases against the "off" ones, minus one. */
function overhead(pairs: [Phase, Phase][]): number {
  const sum = (side: 0 | 1, k: 'cpuUs' | 'requests') => pairs.reduce((a, p) => a + p[side][k], 0);
  return sum(1, 'cpuUs') / sum(1, 'requests') / (sum(0, 'cpuUs') / sum(0, 'requests')) - 1;
}

/** 95% interval of the overhead, resampling the pairs (bootstrap, 2,000 draws). */
function interval(pairs: [Phase, Phase][]): [number, number] {
  const draws: number[] = [];
  for (let d = 0; d < 2000; d++) draws.push(overhead(pairs.map(() => pairs[Math.floor(Math.random() * pairs.length)])));
  draws.sort((a, b) => a - b);
  return [draws[50], draws[1949]];
}

/** The phases of one wrk run: [off, on] pairs, each phase adjacent to its partner. */
async function measure(server: Child, spec: Spec): Promise<{ pairs: [Phase, Phase][]; rps: number; errors: number }> {
  if (WARMUP > 0) await runWrk(wrk, { ...spec, seconds: WARMUP, connections: 32, threads: 2 });
  process.kill(server.pid, 'SIGUSR1'); // count afresh
  const r = await runWrk(wrk, { ...spec, seconds: SECONDS, connections: 32, threads: 2 });
  process.kill(server.pid, 'SIGUSR2'); // write the phases
  await Bun.sleep(300);
  const phases: Phase[] = await Bun.file(RESULT_FILE).json();
  // The first and last phases are partly outside wrk's run; a phase with no request (a stall) tells nothing.
  const whole = phases.slice(1, -1);
  const pairs: [Phase, Phase][] = [];
  for (let k = 0; k + 1 < whole.length; k += 2) {
    const [a, b] = [whole[k], whole[k + 1]];
    if (!a.requests || !b.requests) continue;
    pairs.push(a.on ? [b, a] : [a, b]);
  }
  return { pairs, rps: r.rps, errors: r.errors };
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

async function main() {
  db = await createBenchDb(300);
  const env = { BENCH_DB_URL: db.url, BENCH_POOL: String(POOL), BENCH_PHASE_MS: String(PHASE_MS), BENCH_RESULT_FILE: RESULT_FILE };
  const server = await startServer('server-svc.ts', { ...env, BENCH_TRACING: 'interleave' });
  const auth = { 'x-api-key': db.apiKey };
  const ids = db.idsFile;
  const shapes: { label: string; spec: Spec }[] = [
    {
      label: 'REST GET /v1/stores/:storeId/products/:id',
      spec: {
        url: server.base,
        headers: auth,
        script: join(import.meta.dir, 'get-rotate.lua'),
        scriptArgs: [`/v1/stores/${db.storeId}/products/`, ids],
      },
    },
    {
      label: 'MCP tools/call products_get_product',
      spec: {
        url: `${server.base}/agent/mcp`,
        headers: { ...auth, 'content-type': 'application/json', ...(await mcpSession(server.base, auth)) },
        script: join(import.meta.dir, 'mcp-call.lua'),
        scriptArgs: [ids],
      },
    },
  ];
  const loads: number[] = [loadavg()[0]];
  const rows: string[] = [];
  let tracedRequests = 0;
  for (const shape of shapes) {
    const m = await measure(server, shape.spec);
    loads.push(loadavg()[0]);
    if (m.errors) log(`  ${m.errors} errors (socket errors or non-2xx) in this run`);
    if (m.pairs.length < 5) throw new Error(`${shape.label}: only ${m.pairs.length} pairs of phases with requests`);
    tracedRequests += m.pairs.reduce((a, p) => a + p[1].requests, 0);
    const per = (side: 0 | 1) => m.pairs.reduce((a, p) => a + p[side].cpuUs, 0) / m.pairs.reduce((a, p) => a + p[side].requests, 0);
    const [lo, hi] = interval(m.pairs);
    log(`${shape.label}: off ${per(0).toFixed(1)} µs/req, on ${per(1).toFixed(1)} µs/req, ${pct(overhead(m.pairs))} [${pct(lo)}, ${pct(hi)}]`);
    rows.push(
      `| ${shape.label} | ${Math.round(m.rps)} | ${m.pairs.length} | ${per(0).toFixed(1)} | ${per(1).toFixed(1)} | **${pct(overhead(m.pairs))}** | ${pct(lo)} to ${pct(hi)} |`,
    );
  }
  // The traced phases really were traced: their requests were counted into the store's rollups.
  await Bun.sleep(1500);
  const sql = new Bun.SQL(db.url, { max: 1 });
  const [{ n }] = await sql.unsafe(`SELECT coalesce(sum(count), 0)::int AS n FROM telemetry_rollups WHERE kind = 'request'`);
  await sql.close();
  if (n < tracedRequests * 0.9) throw new Error(`tracing was not on: ${n} requests counted, ${tracedRequests} made in traced phases`);
  await server.stop();

  console.log(`\n### Tracing overhead (${new Date().toISOString().slice(0, 16).replace('T', ' ')})\n`);
  console.log(
    `wrk -t2 -c32, ${SECONDS} s per shape after ${WARMUP} s warm-up, tracing on and off in turns of ${PHASE_MS} ms; load average ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}.\n`,
  );
  console.log('| | req/s | pairs of phases | off: server µs/req | on: server µs/req | on / off | 95% interval |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
}

try {
  await main();
} finally {
  await cleanup();
}
