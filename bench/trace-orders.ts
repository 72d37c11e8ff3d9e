/**
 * `bun bench/trace-orders.ts`: every statement PostgreSQL runs for one plain order and for one
 * order with a coupon, tax and a wholesale price (the bench's two bodies, bench/commerce.ts), read
 * from the server's own log (`log_statement = all` on the throwaway database only), so what the
 * drivers send besides `Db.query` (BEGIN, COMMIT, the job queue's inserts) is counted too.
 *
 * `TRACE_ORDERS=n` then places n orders of each body, 32 in flight through a second server in
 * the same process (two rounds, alternating), and prints req/s and CPU per order of the process
 * (server and client) and of the database's backends: a check without wrk, not the benchmark.
 *
 *   DATABASE_URL  server to create the throwaway database on (default 127.0.0.1:5432)
 *   PG_LOG        the server's log file (default /var/log/postgresql/postgresql-15-main.log)
 */
import { systemClock } from '../core/clock';
import { openDb } from '../core/db';
import { createApp } from '../core/http/app';
import { makeServices } from '../core/http/services';
import { createRegistry } from '../core/plugins/registry';
import { pluginList } from '../plugins';
import { createBenchDb } from './seed';
import { HIGH_LIMITS } from './child';
import { commerceOrders } from './commerce';
import { postgresCpuMs, postgresCpuSince } from './proc-cpu';

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const LOG = process.env.PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
const bench = await createBenchDb(10);
const dbName = new URL(bench.url).pathname.slice(1);
const admin = new Bun.SQL(process.env.DATABASE_URL, { max: 1 });
await admin.unsafe(`ALTER DATABASE ${dbName} SET log_statement = 'all'`);
const serve = async (poolSize: number) => {
  const db = await openDb({ databaseUrl: bench.url, poolSize });
  const app = createApp(makeServices({ db, clock: systemClock, registry: createRegistry(pluginList), limits: HIGH_LIMITS })).listen({
    hostname: '127.0.0.1',
    port: 0,
  });
  return { db, app, base: `http://127.0.0.1:${app.server!.port}` };
};
const servers = [await serve(4)];
try {
  const { db: raw, base } = servers[0];
  const storePath = `/v1/stores/${bench.storeId}`;
  const auth = { 'x-api-key': bench.apiKey };
  const bodies = await commerceOrders(base, storePath, auth);
  const order = async (body: string) => {
    const res = await fetch(`${base}${storePath}/orders`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
    if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    await Bun.sleep(300); // afterCommit work
  };
  await order(bodies.plain); // warm: caches, prepared plans
  await order(bodies.commerce);
  const mark = (m: string) => raw.query(`SELECT 'TRACE ${m}'`);
  const start = (await Bun.file(LOG).text()).length;
  await mark('plain');
  await order(bodies.plain);
  await mark('commerce');
  await order(bodies.commerce);
  await mark('end');
  await Bun.sleep(200);
  const log = (await Bun.file(LOG).text()).slice(start);
  const section = (from: string, to: string) => log.slice(log.indexOf(`TRACE ${from}`), log.indexOf(`TRACE ${to}`));
  for (const [name, text] of [
    ['plain', section('plain', 'commerce')],
    ['commerce', section('commerce', 'end')],
  ]) {
    const statements = text
      .split('\n')
      .filter((l) => /LOG:\s+(statement|execute [^:]*):/.test(l) && !l.includes('TRACE'))
      .map((l) =>
        l
          .replace(/^.*?LOG:\s+(statement|execute [^:]*): /, '')
          .replace(/\s+/g, ' ')
          .slice(0, 150),
      );
    console.log(`\n== ${name}: ${statements.length} statements`);
    for (const s of statements) console.log('  ' + s);
  }
  const n = Number(process.env.TRACE_ORDERS ?? 0);
  await admin.unsafe(`ALTER DATABASE ${dbName} RESET log_statement`);
  // A second server whose connections were opened without the statement log (as the bench's svc, pool of 10).
  const quiet = n ? (servers[1] = await serve(10)).base : base;
  const rate = async (body: string) => {
    let next = 0;
    const t = performance.now();
    const cpu = process.cpuUsage();
    const dbCpu = postgresCpuMs(dbName)!;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next++ < n) {
          const res = await fetch(`${quiet}${storePath}/orders`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body });
          if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return {
      perSecond: (n / (performance.now() - t)) * 1000,
      server: (used.user + used.system) / n,
      db: (postgresCpuSince(dbCpu, postgresCpuMs(dbName)!) * 1000) / n,
    };
  };
  const show = (r: Awaited<ReturnType<typeof rate>>) =>
    `${r.perSecond.toFixed(0)}/s (server+client ${r.server.toFixed(0)} µs, database ${r.db.toFixed(0)} µs per order)`;
  for (let round = 0; n && round < 2; round++) {
    const plain = await rate(bodies.plain);
    const commerce = await rate(bodies.commerce);
    console.log(
      `round ${round + 1}: plain ${show(plain)}, commerce ${show(commerce)}: ${((commerce.perSecond / plain.perSecond) * 100).toFixed(1)}%`,
    );
  }
} finally {
  for (const s of servers) {
    s.app.stop(true);
    await s.db.close();
  }
  await admin.unsafe(`ALTER DATABASE ${dbName} RESET log_statement`);
  await admin.close();
  await bench.drop();
}
