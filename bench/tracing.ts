/**
 * `bun bench/tracing.ts`: what tracing costs the REST GET of a product and an MCP `tools/call` of
 * get_product (issue 49's target: at most 10% more with tracing on, about nothing off). One svc
 * server over a throwaway PostgreSQL database, built as `svc serve` builds it, whose tracer is
 * started (as `svc serve` starts it, no collector) and stopped (as OTEL_SDK_DISABLED=true leaves
 * it) between measurements by signals: one process measured both ways, since two processes differ
 * by more than tracing costs (JIT, placement on the cores). Each round measures off and on with
 * wrk, one right after the other (alternating which goes first), and the figure is the ratio of
 * the server's CPU per request in that round: CPU per request moves far less with the machine's
 * load than req/s does. The median of the rounds' ratios is the result. The database's CPU per
 * request is shown beside it (the traced server writes its rollups and kept spans there).
 *
 *   BENCH_SECONDS  length of each measurement (default 10)
 *   BENCH_WARMUP   unmeasured warm-up before each, seconds (default 3)
 *   BENCH_ROUNDS   rounds (default 3)
 *   BENCH_POOL     database pool of each server (default 10)
 *   DATABASE_URL   server to create the throwaway database on
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createBenchDb, type BenchDb } from './seed';
import { cpuMs, postgresCpuMs, postgresCpuSince } from './proc-cpu';
import { killAll, startServer, type Child } from './servers';
import { killWrk, requireWrk, runWrk, type WrkResult, type WrkRun } from './wrk';
import { mcpSession } from './mcp-session';

const wrk = requireWrk();
process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const POOL = Number(process.env.BENCH_POOL ?? 10);
const log = (line: string) => console.error(line);

let db: BenchDb | undefined;
const cleanup = async () => {
  killWrk();
  killAll();
  await db?.drop().catch((e) => log(`could not drop the bench database: ${e.message}`));
};
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)
  process.on(signal, () => void cleanup().then(() => process.exit(code)));

type Spec = Omit<WrkRun, 'seconds' | 'connections' | 'threads'>;

async function measure(server: Child, spec: Spec, seconds: number): Promise<WrkResult> {
  const before = cpuMs(server.pid);
  const dbBefore = postgresCpuMs();
  const r = await runWrk(wrk, { ...spec, seconds, connections: 32, threads: 2 });
  const after = cpuMs(server.pid);
  const dbAfter = postgresCpuMs();
  if (before !== undefined && after !== undefined && r.requests > 0) r.serverCpuUs = ((after - before) * 1000) / r.requests;
  if (dbBefore && dbAfter && r.requests > 0) r.dbCpuUs = (postgresCpuSince(dbBefore, dbAfter) * 1000) / r.requests;
  if (r.errors) log(`  ${r.errors} errors (socket errors or non-2xx) in this run`);
  return r;
}

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

async function main() {
  db = await createBenchDb(300);
  const env = { BENCH_DB_URL: db.url, BENCH_POOL: String(POOL) };
  const server = await startServer('server-svc.ts', { ...env, BENCH_TRACING: 'toggle' });
  const tracing = async (on: boolean) => {
    process.kill(server.pid, on ? 'SIGUSR1' : 'SIGUSR2');
    await Bun.sleep(200); // the signal handled, a stopped tracer's last writes done
  };
  const auth = { 'x-api-key': db.apiKey };
  const ids = db.idsFile;
  const get = (s: Child): Spec => ({
    url: s.base,
    headers: auth,
    script: join(import.meta.dir, 'get-rotate.lua'),
    scriptArgs: [`/v1/stores/${db!.storeId}/products/`, ids],
  });
  const mcp = async (s: Child): Promise<Spec> => ({
    url: `${s.base}/agent/mcp`,
    headers: { ...auth, 'content-type': 'application/json', ...(await mcpSession(s.base, auth)) },
    script: join(import.meta.dir, 'mcp-call.lua'),
    scriptArgs: [ids],
  });
  const shapes = [
    { label: 'REST GET /v1/stores/:storeId/products/:id', spec: get(server) },
    { label: 'MCP tools/call products_get_product', spec: await mcp(server) },
  ];
  const results = shapes.map(() => ({ off: [] as WrkResult[], on: [] as WrkResult[], ratio: [] as number[] }));
  const loads: number[] = [loadavg()[0]];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, shape] of shapes.entries()) {
      // Which goes first alternates, so a load that rises or falls during a round favours neither.
      const order = (round + i) % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      const got: Partial<Record<'on' | 'off', WrkResult>> = {};
      for (const mode of order) {
        await tracing(mode === 'on');
        if (WARMUP > 0) await measure(server, shape.spec, WARMUP);
        const r = (got[mode] = await measure(server, shape.spec, SECONDS));
        results[i][mode].push(r);
        loads.push(loadavg()[0]);
        log(
          `round ${round + 1} ${shape.label} tracing ${mode.padEnd(3)} ${Math.round(r.rps).toString().padStart(6)} req/s  server ${r.serverCpuUs!.toFixed(1)} µs/req  database ${r.dbCpuUs?.toFixed(1) ?? '-'} µs/req  (load ${loadavg()[0].toFixed(1)})`,
        );
      }
      results[i].ratio.push(got.on!.serverCpuUs! / got.off!.serverCpuUs! - 1);
      log(`round ${round + 1} ${shape.label}: tracing on costs ${pct(results[i].ratio.at(-1)!)} server CPU per request`);
    }
  }
  // The traced runs really were traced: their requests were counted into the store's rollups
  // (stopping the tracer writes what it still holds).
  await tracing(false);
  await Bun.sleep(500);
  const sql = new Bun.SQL(db.url, { max: 1 });
  const [{ n }] = await sql.unsafe(`SELECT coalesce(sum(count), 0)::int AS n FROM telemetry_rollups WHERE kind = 'request'`);
  await sql.close();
  const traced = results.reduce((a, r) => a + r.on.reduce((b, x) => b + x.requests, 0), 0);
  if (n < traced) throw new Error(`tracing was not on: ${n} requests counted, ${traced} made with it on`);
  await server.stop();

  console.log(`\n### Tracing overhead (${new Date().toISOString().slice(0, 16).replace('T', ' ')})\n`);
  console.log(
    `wrk -t2 -c32, ${SECONDS} s per run after ${WARMUP} s warm-up, ${ROUNDS} rounds; load average ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}.\n`,
  );
  console.log(
    '| | tracing off: server µs/req (req/s) | tracing on: server µs/req (req/s) | on / off, server CPU per request, each round | median | database µs/req off / on (medians) |',
  );
  console.log('|---|---|---|---|---:|---|');
  for (const [i, shape] of shapes.entries()) {
    const r = results[i];
    const cell = (rs: WrkResult[]) => rs.map((x) => `${x.serverCpuUs!.toFixed(1)} (${Math.round(x.rps)})`).join(', ');
    const dbMed = (rs: WrkResult[]) => med(rs.map((x) => x.dbCpuUs ?? 0)).toFixed(1);
    console.log(
      `| ${shape.label} | ${cell(r.off)} | ${cell(r.on)} | ${r.ratio.map(pct).join(', ')} | ${pct(med(r.ratio))} | ${dbMed(r.off)} / ${dbMed(r.on)} |`,
    );
  }
}

try {
  await main();
} finally {
  await cleanup();
}
