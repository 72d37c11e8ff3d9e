/**
 * `bun run bench`: REST throughput of svc against two baselines on real PostgreSQL.
 * Prints figures (a markdown table for the README); it is not a test and asserts nothing.
 *
 *   BENCH_SECONDS     length of each measurement (default 10)
 *   BENCH_WARMUP      unmeasured warm-up before each measurement, seconds (default 3)
 *   BENCH_ROUNDS      repeat the whole set and report each row's median run (default 1); worth
 *                     raising on a machine other work is using, where single runs swing widely
 *   BENCH_DECAY_RUNS  back-to-back svc GET runs for the decay check (default 6, i.e. >= 60 s)
 *   BENCH_POOL        database pool size of both the bare Elysia and svc servers (default 10,
 *                     svc's own default SVC_DB_POOL)
 *   BENCH_SEARCH_PRODUCTS  products in the store of the list-filter figures (default 100000)
 *   BENCH_ONLY        `search`: only the product list with and without a q filter; `mcp`: only MCP
 *                     tools/call beside the REST GET; `orders`: only plain order creation and one
 *                     with a coupon, a tax rate and wholesale prices; `ratios`: only the pairs the
 *                     targets compare (GET and list against their bare routes with both wrk shapes,
 *                     MCP, the two order creations) (quick checks)
 *   BENCH_GUARD=1     CI's regression guard: BENCH_ONLY=ratios with 5 s runs after 2 s warm-up
 *                     (about a minute), exiting 1 only on a collapse, a ratio under half its target
 *   DATABASE_URL      server to create the throwaway database on
 *                     (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { checksTable, collapses, decayTable, p99Under, ratio, resultsTable } from './report';
import { createBenchDb, SEARCH_WORD, seedSearchStore, type BenchDb } from './seed';
import { cpuMs, postgresCpuMs, postgresCpuSince } from './proc-cpu';
import { killAll, startServer, type Child } from './servers';
import { killWrk, requireWrk, runWrk, type WrkResult, type WrkRun } from './wrk';
import { mcpSession } from './mcp-session';
import { commerceOrders } from './commerce';

const wrk = requireWrk();
process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';

const GUARD = process.env.BENCH_GUARD === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? (GUARD ? 5 : 10));
const WARMUP = Number(process.env.BENCH_WARMUP ?? (GUARD ? 2 : 3));
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
const DECAY_RUNS = Number(process.env.BENCH_DECAY_RUNS ?? 6);
const POOL = Number(process.env.BENCH_POOL ?? 10);
const CONNECTIONS = 32;
/** wrk's threads: a user's client is one of these shapes or the other, and the ratios hold for both. */
const SHAPES = [1, 2] as const;
const PRODUCTS = 300;
const PAGE = 25;
const SEARCH_PRODUCTS = Number(process.env.BENCH_SEARCH_PRODUCTS ?? 100_000);
const ONLY_SEARCH = process.env.BENCH_ONLY === 'search';
const ONLY_MCP = process.env.BENCH_ONLY === 'mcp';
const ONLY_ORDERS = process.env.BENCH_ONLY === 'orders';
const ONLY_RATIOS = GUARD || process.env.BENCH_ONLY === 'ratios';

const GET_SCRIPT = join(import.meta.dir, 'get-rotate.lua');
const POST_SCRIPT = join(import.meta.dir, 'post-create.lua');
const MCP_SCRIPT = join(import.meta.dir, 'mcp-call.lua');
const JSON_SCRIPT = join(import.meta.dir, 'post-json.lua');
const log = (line: string) => console.error(line);

let db: BenchDb | undefined;
let cleaning: Promise<void> | undefined;
let interrupted = false;
/** Idempotent, and every caller awaits the same promise, so the database is dropped before exit. */
const cleanup = () =>
  (cleaning ??= (async () => {
    killWrk();
    killAll();
    await db?.drop().catch((e) => log(`could not drop the bench database: ${e.message}`));
  })());
const onSignal = (code: number) => () => {
  interrupted = true;
  void cleanup().then(() => process.exit(code));
};
process.on('SIGINT', onSignal(130));
process.on('SIGTERM', onSignal(143));

/** One request by hand before wrk, so a broken endpoint fails loudly instead of benchmarking 4xx. */
async function expectStatus(url: string, init: RequestInit, status: number) {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== status) throw new Error(`${init.method ?? 'GET'} ${url}: expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
}

/** A wrk run; scriptArgs is a function because some scripts need fresh arguments every run. */
type Spec = Omit<WrkRun, 'seconds' | 'connections' | 'threads' | 'scriptArgs'> & { scriptArgs?: () => string[]; threads?: number };

/** One wrk run against `server`, with the server process's CPU time per request. */
async function wrkOnce(server: Child, spec: Spec, seconds: number): Promise<WrkResult> {
  const before = cpuMs(server.pid);
  const dbBefore = postgresCpuMs();
  const r = await runWrk(wrk, { ...spec, scriptArgs: spec.scriptArgs?.(), seconds, connections: CONNECTIONS, threads: spec.threads ?? 2 });
  const after = cpuMs(server.pid);
  const dbAfter = postgresCpuMs();
  if (before !== undefined && after !== undefined && r.requests > 0) r.serverCpuUs = ((after - before) * 1000) / r.requests;
  if (dbBefore && dbAfter && r.requests > 0) r.dbCpuUs = (postgresCpuSince(dbBefore, dbAfter) * 1000) / r.requests;
  return r;
}

// The load average on each progress line tells a run disturbed by other work from a real change.
const describe = (r: WrkResult) =>
  `${Math.round(r.rps).toString().padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms` +
  `${r.serverCpuUs === undefined ? '' : `  server ${r.serverCpuUs.toFixed(1)} µs/req`}` +
  `${r.dbCpuUs === undefined ? '' : `  database ${r.dbCpuUs.toFixed(1)} µs/req`}` +
  `  (load ${loadavg()[0].toFixed(1)})${r.errors ? `  ERRORS ${r.errors}` : ''}`;

function cpuRatio(label: string, base: WrkResult, other: WrkResult) {
  if (base.serverCpuUs === undefined || other.serverCpuUs === undefined) return [];
  return [ratio(label, base.serverCpuUs, other.serverCpuUs)];
}

/** The run with the median req/s, reported whole so its latencies belong to the same run. */
function median(runs: WrkResult[]): WrkResult {
  return [...runs].sort((a, b) => a.rps - b.rps)[Math.floor((runs.length - 1) / 2)];
}

async function main() {
  // Anything else busy on the machine competes with wrk, the servers and PostgreSQL for the cores.
  const loadBefore = loadavg()[0];
  const pgUrl = new URL(process.env.DATABASE_URL!);
  log(`Creating a throwaway database on ${pgUrl.host} and seeding ${PRODUCTS} products...`);
  db = await createBenchDb(PRODUCTS);
  const needsSearch = !ONLY_MCP && !ONLY_RATIOS && !ONLY_ORDERS;
  if (needsSearch) log(`Seeding a second store with ${SEARCH_PRODUCTS} products for the list filter...`);
  const search = needsSearch ? await seedSearchStore(db.url, SEARCH_PRODUCTS) : undefined;
  const searchPath = `/v1/stores/${search?.storeId}/products?limit=10`;
  const searchAuth = { 'x-api-key': search?.apiKey ?? '' };
  const env = { BENCH_DB_URL: db.url, BENCH_POOL: String(POOL) };
  const storePath = `/v1/stores/${db.storeId}`;
  const listPath = `${storePath}/products?limit=${PAGE}`;
  const auth = { 'x-api-key': db.apiKey };
  const json = { 'content-type': 'application/json' };
  const firstId = (await Bun.file(db.idsFile).text()).split('\n')[0];
  type Step = { key: string; label: string; server: Child; spec: Spec };
  const createBody = JSON.stringify({ name: 'Probe', pricing_data: { retail: 1 } });

  // All servers stay up for the whole run (idle, they cost nothing) so each svc figure is taken
  // right after its baseline: adjacent runs see the same background load on a shared machine.
  const serve = await startServer('server-bare-serve.ts', env);
  const bare = await startServer('server-bare-elysia.ts', env);
  const svc = await startServer('server-svc.ts', env);
  await expectStatus(serve.base + '/', {}, 200);
  await expectStatus(`${bare.base}${storePath}/products/${firstId}`, {}, 200);
  await expectStatus(`${bare.base}${listPath}`, {}, 200);
  await expectStatus(`${bare.base}${storePath}/products`, { method: 'POST', headers: json, body: createBody }, 201);
  await expectStatus(`${bare.base}/tx${storePath}/products`, { method: 'POST', headers: json, body: createBody }, 201);
  await expectStatus(`${svc.base}${storePath}/products/${firstId}`, { headers: auth }, 200);
  await expectStatus(`${svc.base}${listPath}`, { headers: auth }, 200);
  await expectStatus(`${svc.base}${storePath}/products`, { method: 'POST', headers: { ...auth, ...json }, body: createBody }, 201);
  if (search) await expectStatus(`${svc.base}${searchPath}&q=${SEARCH_WORD}`, { headers: searchAuth }, 200);

  // Orders: the same lines plain, and with a coupon, a California tax rate and a wholesale price.
  const orders = await commerceOrders(svc.base, storePath, auth);
  const probeOrder = await fetch(`${svc.base}${storePath}/orders`, { method: 'POST', headers: { ...auth, ...json }, body: orders.commerce });
  const placed = (await probeOrder.json()) as { discount_total?: number; tax_total?: number; subtotal?: number };
  // 2 x 14 (the wholesale break, not 21 retail) + 22 retail = 50: the order must really take all three, or the figure means nothing.
  if (probeOrder.status !== 201 || placed.subtotal !== 50 || !placed.discount_total || !placed.tax_total)
    throw new Error(`commerce order probe: ${probeOrder.status} ${JSON.stringify(placed).slice(0, 300)}`);
  await expectStatus(`${svc.base}${storePath}/orders`, { method: 'POST', headers: { ...auth, ...json }, body: orders.plain }, 201);
  const ordersPath = `${svc.base}${storePath}/orders`;
  const orderSteps: Step[] = [
    {
      key: 'svcOrder',
      label: 'svc `POST .../orders`, 2 lines',
      server: svc,
      spec: { url: ordersPath, headers: { ...auth, ...json }, script: JSON_SCRIPT, scriptArgs: () => [orders.plain] },
    },
    {
      key: 'svcOrderCommerce',
      label: 'svc `POST .../orders`, 2 lines, coupon + tax + wholesale price',
      server: svc,
      spec: { url: ordersPath, headers: { ...auth, ...json }, script: JSON_SCRIPT, scriptArgs: () => [orders.commerce] },
    },
  ];

  const rotate = () => [`${storePath}/products/`, db!.idsFile];
  const mcpHeaders = { ...auth, ...json, ...(await mcpSession(svc.base, auth)) };
  const probe = await fetch(`${svc.base}/agent/mcp`, {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'products_get_product', arguments: { id: firstId } } }),
  });
  const probeText = await probe.text();
  if (!probeText.includes('structuredContent') || probeText.includes('"isError"'))
    throw new Error(`MCP tools/call probe failed: ${probeText.slice(0, 300)}`);
  // Every wrk invocation (warm-up included) restarts the Lua counter, so each gets its own SKU tag.
  const runTag = Date.now().toString(36);
  let wrkRuns = 0;
  const freshSkus = () => [`B${runTag}x${++wrkRuns}`];
  const svcGet = (threads: number): Spec => ({ url: svc.base, headers: auth, script: GET_SCRIPT, scriptArgs: rotate, threads });

  // Each svc figure right after the baseline it is compared with, for both wrk shapes.
  const pairs: Step[] = SHAPES.flatMap((t) => [
    {
      key: `bareGet${t}`,
      label: `bare Elysia route, 1 PK SELECT (wrk -t${t})`,
      server: bare,
      spec: { url: bare.base, script: GET_SCRIPT, scriptArgs: rotate, threads: t },
    },
    { key: `svcGet${t}`, label: `svc \`GET /v1/stores/:storeId/products/:id\` (wrk -t${t})`, server: svc, spec: svcGet(t) },
  ]);
  const lists: Step[] = SHAPES.flatMap((t) => [
    {
      key: `bareList${t}`,
      label: `bare Elysia route, keyset page of ${PAGE} (wrk -t${t})`,
      server: bare,
      spec: { url: `${bare.base}${listPath}`, threads: t },
    },
    {
      key: `svcList${t}`,
      label: `svc \`GET .../products?limit=${PAGE}\` (wrk -t${t})`,
      server: svc,
      spec: { url: `${svc.base}${listPath}`, headers: auth, threads: t },
    },
  ]);
  // Right after the REST GET it is compared with: the writes below leave the database busy
  // (autovacuum, checkpoints) for a while, which would be charged to whatever runs next.
  const mcp: Step = {
    key: 'mcpGet',
    label: 'svc MCP `tools/call` products_get_product (Streamable HTTP, wrk -t2)',
    server: svc,
    spec: { url: `${svc.base}/agent/mcp`, headers: mcpHeaders, script: MCP_SCRIPT, scriptArgs: () => [db!.idsFile] },
  };
  const fullPlan: Step[] = [
    { key: 'serve', label: 'bare `Bun.serve`, static JSON (wrk -t2)', server: serve, spec: { url: serve.base + '/' } },
    ...pairs,
    mcp,
    ...lists,
    ...orderSteps,
    {
      key: 'bareInsert',
      label: 'bare Elysia route, 1 INSERT',
      server: bare,
      spec: { url: `${bare.base}${storePath}/products`, headers: json, script: POST_SCRIPT, scriptArgs: freshSkus },
    },
    {
      key: 'bareTx',
      label: '(extra) bare Elysia route, BEGIN + INSERT + COMMIT',
      server: bare,
      spec: { url: `${bare.base}/tx${storePath}/products`, headers: json, script: POST_SCRIPT, scriptArgs: freshSkus },
    },
    {
      key: 'svcCreate',
      label: 'svc `POST .../products`',
      server: svc,
      spec: { url: `${svc.base}${storePath}/products`, headers: { ...auth, ...json }, script: POST_SCRIPT, scriptArgs: freshSkus },
    },
    {
      key: 'svcListBig',
      label: `svc \`GET .../products?limit=10\`, ${SEARCH_PRODUCTS} products`,
      server: svc,
      spec: { url: `${svc.base}${searchPath}`, headers: searchAuth },
    },
    {
      key: 'svcSearch',
      label: `svc \`GET .../products?limit=10&q=${SEARCH_WORD}\` (2% match), ${SEARCH_PRODUCTS} products`,
      server: svc,
      spec: { url: `${svc.base}${searchPath}&q=${SEARCH_WORD}`, headers: searchAuth },
    },
  ];
  const only = ONLY_SEARCH
    ? ['svcListBig', 'svcSearch']
    : ONLY_MCP
      ? ['svcGet2', 'mcpGet']
      : ONLY_ORDERS
        ? orderSteps.map((p) => p.key)
        : ONLY_RATIOS
          ? [...pairs, mcp, ...lists, ...orderSteps].map((p) => p.key)
          : undefined;
  const plan = only ? fullPlan.filter((p) => only.includes(p.key)) : fullPlan;

  const runs = new Map<string, WrkResult[]>(plan.map((p) => [p.key, []]));
  const runRound = async () => {
    for (const { key, label, server, spec } of plan) {
      if (WARMUP > 0) await wrkOnce(server, spec, WARMUP); // JIT, pool connections, key cache
      const r = await wrkOnce(server, spec, SECONDS);
      log(`  ${label.replaceAll('`', '').padEnd(60)} ${describe(r)}`);
      runs.get(key)!.push(r);
    }
  };
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) log(`round ${round} of ${ROUNDS}`);
    await runRound();
  }
  const m = (key: string) => median(runs.get(key)!);
  const latest = (key: string) => runs.get(key)!.at(-1)!;
  // The guard fails only on a collapse seen twice: one disturbed run on a shared machine can halve
  // a ratio by itself, so a collapse is measured once more before it counts.
  let collapsedTwice: Set<string> | undefined;
  if (GUARD) {
    const first = collapses(ratioChecks(latest)).map((c) => c.label);
    collapsedTwice = new Set();
    if (first.length) {
      log(`collapse in ${first.join('; ')}: measuring once more`);
      await runRound();
      for (const c of collapses(ratioChecks(latest))) if (first.includes(c.label)) collapsedTwice.add(c.label);
    }
  }
  await serve.stop();
  await bare.stop();

  // Decay: the same svc process, GET back to back with no pause; a leak or a degrading pool shows
  // as falling req/s from run to run.
  if (!only) log(`decay: svc GET product, ${DECAY_RUNS} x ${SECONDS} s`);
  const decay: WrkResult[] = [];
  for (let i = 0; i < (only ? 0 : DECAY_RUNS); i++) {
    const r = await wrkOnce(svc, svcGet(2), SECONDS);
    log(`  run ${i + 1}: ${describe(r)}`);
    decay.push(r);
  }
  await svc.stop();

  const searchChecks = () => [
    ratio(`svc list with q / unfiltered list, ${SEARCH_PRODUCTS} products`, m('svcSearch').rps, m('svcListBig').rps, undefined, 'report'),
    p99Under('svc list with q p99 at 32 connections', m('svcSearch'), 10),
  ];
  function mcpChecks(m: (key: string) => WrkResult) {
    return [
      ratio('MCP tools/call get_product / REST GET product (wrk -t2)', m('mcpGet').rps, m('svcGet2').rps, 0.7),
      ...cpuRatio('(extra) server CPU per request, svc GET / MCP tools/call', m('svcGet2'), m('mcpGet')),
      p99Under('MCP tools/call p99 at 32 connections', m('mcpGet'), 10),
    ];
  }
  function orderChecks(m: (key: string) => WrkResult) {
    return [ratio('svc order with coupon + tax + wholesale / plain order creation', m('svcOrderCommerce').rps, m('svcOrder').rps, 0.7)];
  }
  function ratioChecks(m: (key: string) => WrkResult) {
    return [
      ...orderChecks(m),
      ...SHAPES.flatMap((t) => [
        ratio(`svc GET / bare SELECT route (wrk -t${t})`, m(`svcGet${t}`).rps, m(`bareGet${t}`).rps, 0.8),
        p99Under(`svc GET p99 at 32 connections (wrk -t${t})`, m(`svcGet${t}`), 10),
      ]),
      ...mcpChecks(m),
      ...SHAPES.flatMap((t) => [
        ratio(`svc list / bare keyset route, page of ${PAGE} (wrk -t${t})`, m(`svcList${t}`).rps, m(`bareList${t}`).rps, 0.8),
        p99Under(`svc list p99 at 32 connections (wrk -t${t})`, m(`svcList${t}`), 10),
      ]),
      // The server process is the busiest single thread here, so this is roughly where the req/s
      // ratio settles when nothing else disturbs the run.
      ...cpuRatio('(extra) server CPU per request, bare SELECT route / svc GET (wrk -t1)', m('bareGet1'), m('svcGet1')),
    ];
  }
  const checks = ONLY_SEARCH
    ? searchChecks()
    : ONLY_MCP
      ? mcpChecks(m)
      : ONLY_ORDERS
        ? orderChecks(m)
        : ONLY_RATIOS
          ? ratioChecks(m)
          : [
              ...ratioChecks(m),
              ...searchChecks(),
              ratio(
                'bare SELECT route / bare `Bun.serve` (wrk -t2)',
                m('bareGet2').rps,
                m('serve').rps,
                undefined,
                'report (issue: ~23% on 2 cores)',
              ),
              ratio('svc create / bare INSERT route', m('svcCreate').rps, m('bareInsert').rps, 0.6),
              ratio('(extra) svc create / bare transactional INSERT', m('svcCreate').rps, m('bareTx').rps),
              p99Under('svc create p99 at 32 connections', m('svcCreate'), 10),
            ];
  if (decay.length >= 2) {
    const d = decay[decay.length - 1].rps / decay[0].rps;
    checks.push({
      label: `decay: svc GET last / first of ${decay.length} runs`,
      value: `${(d * 100).toFixed(1)}%`,
      target: '>= 90.0% (no decay)',
      ok: d >= 0.9,
    });
  }

  const pg = new Bun.SQL(process.env.DATABASE_URL!, { max: 1 });
  const [{ server_version }] = await pg.unsafe('SHOW server_version');
  await pg.close();
  const all = [...[...runs.values()].flat(), ...decay];
  const totalErrors = all.reduce((a, r) => a + r.errors, 0);

  console.log(`\n### REST benchmark (${new Date().toISOString().slice(0, 10)})\n`);
  console.log(
    `Bun ${Bun.version}, PostgreSQL ${server_version.split(' ')[0]} on ${pgUrl.host}, ${availableParallelism()} cores shared by wrk, the server and PostgreSQL; ` +
      `wrk ${CONNECTIONS} connections with 1 or 2 threads as labelled, ${SECONDS} s per run after ${WARMUP} s warm-up` +
      `${ROUNDS > 1 ? `, median of ${ROUNDS} rounds` : ''}; pool size ${POOL}; GETs rotate over ${db.productCount} seeded products; ` +
      `creates send name, unique SKU and price.\n`,
  );
  if (loadBefore > 1)
    console.log(`Note: load average was ${loadBefore.toFixed(2)} when the run started; other work on this machine skews these figures.\n`);
  console.log(resultsTable(plan.map((p) => ({ label: p.label, result: m(p.key) }))));
  console.log();
  console.log(checksTable(checks));
  console.log();
  if (decay.length) console.log(decayTable(decay));
  if (totalErrors) console.log(`\n**Warning:** ${totalErrors} non-2xx responses or socket errors; these figures are not valid.`);
  if (collapsedTwice) {
    // A noisy shared machine moves these figures by a tenth or two; only a collapse fails CI.
    for (const label of collapsedTwice) console.log(`COLLAPSE: ${label} was under half of its target in two runs`);
    if (collapsedTwice.size || totalErrors) process.exitCode = 1;
    else console.log('guard: no ratio under half its target (in two runs)');
  }
}

try {
  await main();
} catch (e) {
  // After Ctrl-C the killed wrk makes main fail; that is the interruption, not an error to show.
  if (!interrupted) throw e;
} finally {
  await cleanup();
}
