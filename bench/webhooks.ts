/**
 * `bun bench/webhooks.ts`: webhook delivery on real PostgreSQL, one worker process
 * (`svc serve --role worker`) against a local HTTPS receiver. Prints figures; asserts nothing.
 *
 * 1. Backlog: BENCH_BACKLOG events (default 10,000) already queued, then the worker starts:
 *    sustained deliveries per second until all are recorded as succeeded.
 * 2. Live: events committed at BENCH_RATE per second (default 500) for BENCH_SECONDS (default 10)
 *    while the worker runs: delay from the event's commit to its receipt (median, p95, p99) and
 *    the rate delivered.
 *
 *   DATABASE_URL  server for the throwaway database (default postgres://postgres@127.0.0.1:5432/postgres)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../core/clock';
import { openDb, type Db } from '../core/db';
import { migrate } from '../core/db/migrate';
import { writeEvents } from '../core/events/outbox';
import { installJobs } from '../core/jobs/run';
import { createStore } from '../core/keys';
import { allMigrations } from '../core/migrations';
import { makeTestCa } from '../test/kit/egress';
import { pluginList as plugins } from '../plugins';
import { createRegistry } from '../core/plugins/registry';
import { allJobs } from '../workers';
import { secretBox } from '../core/secrets';
import { LATEST_API_VERSION } from '../core/webhooks/versions';
import { createThrowawayDatabase } from '../test/kit/db';

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
// Signing secrets are sealed; the worker process started below inherits this key.
process.env.SVC_SECRET_KEY ||= randomBytes(32).toString('base64');
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 10_000);
const RATE = Number(process.env.BENCH_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLI = join(import.meta.dir, '..', 'core', 'cli.ts');
const log = (line: string) => console.error(line);

const certDir = mkdtempSync(join(tmpdir(), 'svc-bench-hooks-'));
makeTestCa(certDir, 'localhost');

// The receiver: answers 200 at once and notes when each event arrived.
const arrivals = new Map<string, number>();
let received = 0;
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  tls: { key: readFileSync(join(certDir, 'leaf.key'), 'utf8'), cert: readFileSync(join(certDir, 'leaf.pem'), 'utf8') },
  async fetch(req) {
    const body = (await req.json()) as { id: string };
    received++;
    if (!arrivals.has(body.id)) arrivals.set(body.id, Date.now());
    return new Response('ok');
  },
});

const { url, drop } = await createThrowawayDatabase();
const db: Db = await openDb({ databaseUrl: url, poolSize: 4 });
let worker: ReturnType<typeof Bun.spawn> | undefined;

const succeeded = async (storeId: string) =>
  (await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE store_id = $1 AND status = 'succeeded'`, [storeId]))[0].n as number;

/** `count` events committed in transactions of `per`; returns the event ids' creation times (ms). */
async function createEvents(storeId: string, count: number, per: number) {
  for (let done = 0; done < count; done += per) {
    const n = Math.min(per, count - done);
    await db.transaction((tx) =>
      writeEvents(
        tx,
        storeId,
        Array.from({ length: n }, () => ({ type: 'order.created', data: { object: 'order', id: crypto.randomUUID() }, at: systemClock.now() })),
      ),
    );
  }
}

async function setupStore(name: string) {
  const store = await createStore(db, systemClock, { name, plan: 'enterprise' });
  await db.query(
    `INSERT INTO webhook_endpoints (id, store_id, url, events, sealed_secret, api_version, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, ARRAY['order.created'], $3, $4, now(), now())`,
    [store.id, `https://localhost:${receiver.port}/hook`, secretBox().seal('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'), LATEST_API_VERSION],
  );
  return store.id;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

try {
  await migrate(db, allMigrations(plugins));
  await installJobs(db, allJobs(db, systemClock, createRegistry(plugins)));

  // 1. Backlog.
  const backlogStore = await setupStore('Backlog');
  log(`seeding ${BACKLOG} events...`);
  await createEvents(backlogStore, BACKLOG, 1000);
  // Fresh tables have no statistics: without them the planner scans pg-boss's job table on every fetch.
  await db.exec('ANALYZE');
  const started = performance.now();
  worker = Bun.spawn([process.execPath, CLI, 'serve', '--role', 'worker'], {
    env: { ...process.env, DATABASE_URL: url, NODE_EXTRA_CA_CERTS: join(certDir, 'ca.pem'), SVC_EGRESS_ALLOW: 'localhost' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  let done = 0;
  let firstAt = 0;
  while (done < BACKLOG) {
    await Bun.sleep(200);
    done = await succeeded(backlogStore);
    if (done && !firstAt) firstAt = performance.now();
  }
  const total = (performance.now() - started) / 1000;
  const steady = (performance.now() - firstAt) / 1000;
  log(`backlog: ${BACKLOG} deliveries in ${total.toFixed(1)} s from worker start (${steady.toFixed(1)} s from the first one)`);

  // 2. Live events at RATE per second, in ticks of 50 ms.
  const liveStore = await setupStore('Live');
  arrivals.clear();
  const createdAt = new Map<string, number>();
  const tick = 50;
  const perTick = Math.max(1, Math.round((RATE * tick) / 1000));
  const liveStart = performance.now();
  for (let t = 0; t < (SECONDS * 1000) / tick; t++) {
    const rows = Array.from({ length: perTick }, () => ({
      type: 'order.created',
      data: { object: 'order', id: crypto.randomUUID() },
      at: systemClock.now(),
    }));
    const tickStart = performance.now();
    const deliveries = await db.transaction((tx) => writeEvents(tx, liveStore, rows));
    const committed = Date.now();
    const ids = await db.query<{ event_id: string }>('SELECT event_id FROM webhook_deliveries WHERE id = ANY($1::uuid[])', [deliveries]);
    for (const { event_id } of ids) createdAt.set(event_id, committed);
    const wait = tick - (performance.now() - tickStart);
    if (wait > 0) await Bun.sleep(wait);
  }
  const created = createdAt.size;
  const genSeconds = (performance.now() - liveStart) / 1000;
  while ((await succeeded(liveStore)) < created) await Bun.sleep(100);
  const liveSeconds = (performance.now() - liveStart) / 1000;
  const delays = [...createdAt]
    .map(([id, at]) => arrivals.get(id)! - at)
    .filter((d) => Number.isFinite(d))
    .sort((a, b) => a - b);

  console.log('\n| webhook delivery, 1 worker, PostgreSQL | figure |');
  console.log('|---|---|');
  console.log(`| backlog of ${BACKLOG}: sustained deliveries/s | ${(BACKLOG / steady).toFixed(0)} |`);
  console.log(`| backlog of ${BACKLOG}: deliveries/s incl. worker start-up | ${(BACKLOG / total).toFixed(0)} |`);
  console.log(`| live: events committed/s for ${SECONDS} s (target ${RATE}) | ${(created / genSeconds).toFixed(0)} |`);
  console.log(`| live: last delivery recorded after creation stopped (s) | ${(liveSeconds - genSeconds).toFixed(1)} |`);
  console.log(`| live: commit-to-receipt median / p95 / p99 (ms) | ${pct(delays, 50)} / ${pct(delays, 95)} / ${pct(delays, 99)} |`);
  console.log(`| requests received (duplicates: ${received - BACKLOG - created}) | ${received} |`);
  if (process.env.BENCH_DIAG)
    console.log(
      await db.query(
        `SELECT state, retry_count, left(output::text, 300) AS output, count(*)::int FROM pgboss.job WHERE name = 'core.webhooks' GROUP BY 1, 2, 3`,
      ),
    );
} finally {
  worker?.kill('SIGTERM');
  await worker?.exited;
  receiver.stop(true);
  await db.close();
  await drop();
  rmSync(certDir, { recursive: true, force: true });
}
