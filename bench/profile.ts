/**
 * `bun bench/profile.ts`: what one svc REST request costs inside the server, without wrk: database
 * round trips per request (every Db.query counted) and server CPU per request, for a product GET
 * and a product list page, over real PostgreSQL. Run it under `bun --cpu-prof` for a profile.
 *
 *   PROFILE_REQUESTS  requests per measurement (default 20000)
 *   PROFILE_ONLY      `get`, `list` or `mcp`: profile just that one
 *   DATABASE_URL      server to create the throwaway database on
 */
import { systemClock } from '../core/clock';
import { openDb, type Db } from '../core/db';
import { createApp } from '../core/http/app';
import { makeServices } from '../core/http/services';
import { createRegistry } from '../core/plugins/registry';
import { pluginList } from '../plugins';
import { createBenchDb } from './seed';
import { HIGH_LIMITS } from './child';
import { mcpSession } from './mcp-session';
import { flushAudits } from '../core/tools/executions';

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const N = Number(process.env.PROFILE_REQUESTS ?? 20_000);
const bench = await createBenchDb(300);
let queries = 0;
const counted = (db: Db): Db => ({
  ...db,
  kind: db.kind,
  native: db.native,
  query: (text, params) => (queries++, db.query(text, params)),
  transaction: (fn) => db.transaction((tx) => fn(counted(tx))),
});
const raw = await openDb({ databaseUrl: bench.url, poolSize: 10 });
try {
  const svc = makeServices({ db: counted(raw), clock: systemClock, registry: createRegistry(pluginList), limits: HIGH_LIMITS });
  const app = createApp(svc);
  const ids = (await Bun.file(bench.idsFile).text()).trim().split('\n');
  const store = `http://svc.test/v1/stores/${bench.storeId}`;
  const headers = { 'x-api-key': bench.apiKey };
  const measure = async (label: string, url: (i: number) => string, init: (i: number) => RequestInit = () => ({ headers })) => {
    // 32 in flight, as wrk -c32 keeps them.
    const run = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < n) {
            const i = next++;
            const res = await app.handle(new Request(url(i), init(i)));
            if (res.status !== 200) throw new Error(`${label}: ${res.status} ${await res.text()}`);
            await res.arrayBuffer();
          }
        }),
      );
    };
    await run(Math.min(N, 3000)); // warm-up: JIT, key cache, pool, rate-limit lease
    queries = 0;
    const cpu = process.cpuUsage();
    const t = performance.now();
    await run(N);
    const used = process.cpuUsage(cpu);
    const ms = performance.now() - t;
    console.log(
      `${label.padEnd(28)} ${(queries / N).toFixed(3)} queries/req  ${((used.user + used.system) / N).toFixed(1)} µs CPU/req  ${Math.round((N / ms) * 1000)} req/s in-process`,
    );
  };
  const only = process.env.PROFILE_ONLY;
  if (!only || only === 'get') await measure('GET product', (i) => `${store}/products/${ids[i % ids.length]}`);
  if (only !== 'get' && only !== 'mcp') await measure('GET products?limit=25', () => `${store}/products?limit=25`);
  if (!only || only === 'mcp') {
    const mcp = 'http://svc.test/agent/mcp';
    const rpc = { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const session = { ...rpc, ...(await mcpSession('http://svc.test', headers, (url, init) => app.handle(new Request(url, init)))) };
    await measure(
      'MCP tools/call get_product',
      () => mcp,
      (i) => ({
        method: 'POST',
        headers: session,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: i + 1,
          method: 'tools/call',
          params: { name: 'products_get_product', arguments: { id: ids[i % ids.length] } },
        }),
      }),
    );
  }
} finally {
  await flushAudits(); // MCP reads' records are written after their answers
  await raw.close();
  await bench.drop();
}
