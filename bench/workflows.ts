/**
 * `bun bench/workflows.ts`: workflow steps per second per worker process (issue 49), on PostgreSQL
 * (a throwaway database at DATABASE_URL). Prints a markdown table for docs/benchmarks.md.
 *
 * A manual workflow of BENCH_STEPS tool steps, each `products.create_product` with a SKU unique to
 * its run and step (the kill test's workflow). With 1 and then 2 `svc serve --role worker`
 * processes running (each warmed by one run first), BENCH_RUNS runs are triggered through REST and
 * the clock stops when every run has succeeded: steps/s per worker is RUNS × STEPS / seconds /
 * workers. The baseline, in the same run and on the same database: the same number of
 * create_product calls as plain REST writes, one after another from one client, in this process.
 *
 *   BENCH_RUNS   runs per round (default 200)
 *   BENCH_STEPS  steps per run (default 5)
 *   DATABASE_URL server to create the throwaway database on (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { loadavg } from 'node:os';
import { closeSharedDb, sharedDbUrl } from '../test/kit/db';
import { product, setup } from '../test/kit/setup';
import { CLI } from '../test/kit/serve-process';

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const STEPS = Number(process.env.BENCH_STEPS ?? 5);
const log = (line: string) => console.error(line);

const workers: ReturnType<typeof Bun.spawn>[] = [];
try {
  // Enterprise: 100,000 runs an hour, so the plan's cap never refuses a trigger here.
  const h = await setup({ now: new Date().toISOString(), plan: 'enterprise' });
  // The store's first product makes its default location (see the kill test): made before any race.
  if ((await h.call('POST', '/products', product({ sku: 'FIRST' }))).status !== 201) throw new Error('first product refused');
  const steps = Array.from({ length: STEPS }, (_, i) => ({
    id: `s${i}`,
    type: 'tool',
    tool: 'products',
    action: 'create_product',
    input: product({ name: 'W {{trigger.n}}', sku: `W-{{trigger.n}}-${i}` }),
  }));
  const wf = (await h.call('POST', '/workflows', { name: 'Bench', trigger: { type: 'manual' }, steps })).body;
  const env = { ...process.env, DATABASE_URL: (await sharedDbUrl())! };

  const unfinished = async () =>
    (await h.db.query(`SELECT count(*)::int AS n FROM workflow_runs WHERE store_id = $1 AND status <> 'succeeded'`, [h.store.id]))[0].n as number;
  const trigger = async (n: string) => {
    const r = await h.call('POST', '/workflow-runs', { workflow_id: wf.id, input: { n } });
    if (r.status !== 201) throw new Error(`trigger answered ${r.status}: ${JSON.stringify(r.body)}`);
  };
  const settle = async (ms: number) => {
    for (const end = performance.now() + ms; performance.now() < end; await Bun.sleep(50)) {
      const [failed] = await h.db.query(`SELECT count(*)::int AS n FROM workflow_runs WHERE store_id = $1 AND status = 'failed'`, [h.store.id]);
      if (failed.n) throw new Error(`${failed.n} run(s) failed`);
      if (!(await unfinished())) return;
    }
    throw new Error('runs did not finish in time');
  };

  /** One round with `count` worker processes: seconds from the first trigger to every run succeeded. */
  async function round(count: number) {
    while (workers.length < count)
      workers.push(Bun.spawn([process.execPath, CLI, 'serve', '--role', 'worker'], { env, stdout: 'ignore', stderr: 'ignore' }));
    for (let w = 0; w < count * 2; w++) await trigger(`warm${count}-${w}`); // the workers up and their code warm
    await settle(120_000);
    log(`${count} worker(s): ${RUNS} runs of ${STEPS} steps ...`);
    const t0 = performance.now();
    for (let n = 0; n < RUNS; n++) await trigger(`r${count}-${n}`);
    const triggered = (performance.now() - t0) / 1000;
    await settle(600_000);
    return { seconds: (performance.now() - t0) / 1000, triggered };
  }
  const one = await round(1);
  const two = await round(2);

  // Baseline: the same calls as plain REST writes, one client, after a short warm-up.
  for (let i = 0; i < 20; i++) await h.call('POST', '/products', product({ sku: `B-warm-${i}` }));
  const total = RUNS * STEPS;
  const t0 = performance.now();
  for (let i = 0; i < total; i++) {
    const r = await h.call('POST', '/products', product({ name: `B ${i}`, sku: `B-${i}` }));
    if (r.status !== 201) throw new Error(`create_product answered ${r.status}`);
  }
  const restPerS = total / ((performance.now() - t0) / 1000);

  const load = loadavg()[0].toFixed(2);
  const row = (name: string, r: typeof one, count: number) => {
    const perS = total / r.seconds;
    return `| ${name} | ${r.seconds.toFixed(1)} (triggers ${r.triggered.toFixed(1)}) | ${perS.toFixed(0)} | ${(perS / count).toFixed(0)} | ${((perS / count / restPerS) * 100).toFixed(0)}% |`;
  };
  console.log(`\n${RUNS} runs of ${STEPS} create_product steps (${total} steps) per round, one store (PostgreSQL)`);
  console.log('\n| workers | s, first trigger to all succeeded | steps/s | steps/s per worker | of the REST baseline |\n|---|---:|---:|---:|---:|');
  console.log(row('1 `svc serve --role worker`', one, 1));
  console.log(row('2 `svc serve --role worker`', two, 2));
  console.log(`| baseline: ${total} POST /products, one client, in process | | ${restPerS.toFixed(0)} | | 100% |`);
  console.log(`\nLoad average at the end: ${load} (2 cores).`);
} finally {
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  await closeSharedDb();
}
