/**
 * `bun --cpu-prof bench/profile-http.ts`: svc's REST GET of a product under `wrk -t1 -c32` for
 * PROFILE_SECONDS (default 8), served from this process so the profile shows the whole server
 * side (Bun.serve, Elysia, the conventions, the driver). wrk runs as its own process.
 * PROFILE_ONLY=mcp profiles MCP `tools/call` of the same products instead.
 */
import { systemClock } from '../core/clock';
import { openDb } from '../core/db';
import { createApp } from '../core/http/app';
import { makeServices } from '../core/http/services';
import { createRegistry } from '../core/plugins/registry';
import { pluginList } from '../plugins';
import { HIGH_LIMITS } from './child';
import { createBenchDb } from './seed';
import { requireWrk, runWrk } from './wrk';
import { mcpSession } from './mcp-session';
import { flushAudits } from '../core/tools/executions';

process.env.DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/postgres';
const wrk = requireWrk();
const bench = await createBenchDb(300);
const db = await openDb({ databaseUrl: bench.url, poolSize: 10 });
try {
  const app = createApp(makeServices({ db, clock: systemClock, registry: createRegistry(pluginList), limits: HIGH_LIMITS })).listen({
    hostname: '127.0.0.1',
    port: 0,
  });
  const url = `http://127.0.0.1:${app.server!.port}`;
  const auth = { 'x-api-key': bench.apiKey };
  const shape =
    process.env.PROFILE_ONLY === 'mcp'
      ? {
          url: `${url}/agent/mcp`,
          headers: { ...auth, 'content-type': 'application/json', ...(await mcpSession(url, auth)) },
          script: `${import.meta.dir}/mcp-call.lua`,
          scriptArgs: [bench.idsFile],
        }
      : { url, headers: auth, script: `${import.meta.dir}/get-rotate.lua`, scriptArgs: [`/v1/stores/${bench.storeId}/products/`, bench.idsFile] };
  const run = (seconds: number) => runWrk(wrk, { seconds, connections: 32, threads: 1, ...shape });
  await run(2);
  const cpu = process.cpuUsage();
  const r = await run(Number(process.env.PROFILE_SECONDS ?? 8));
  const used = process.cpuUsage(cpu);
  console.log(
    `${Math.round(r.rps)} req/s, p99 ${r.p99} ms, ${((used.user + used.system) / r.requests).toFixed(1)} µs server CPU/req, errors ${r.errors}`,
  );
  await app.stop();
  await Bun.sleep(200); // the last calls wrk left in flight finish and hand over their records
  await flushAudits();
} finally {
  await db.close();
  await bench.drop();
}
