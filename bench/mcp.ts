/**
 * MCP `tools/call` against the REST GET of the same product (issue 10: at least 70%), in process
 * (app.handle, no sockets), so the figure is the server's own cost per request: alternating rounds
 * of N requests each (BENCH_CONCURRENCY at once), the median round compared. Uses the test kit (a throwaway database: PGlite,
 * or PostgreSQL at DATABASE_URL). `npm run bench` measures the same pair over sockets with wrk.
 *
 *   bun bench/mcp.ts            # prints both medians and the ratio
 */
import { closeSharedDb } from '../test/kit/db';
import { flushAudits } from '../core/tools/executions';
import { setup } from '../test/kit/setup';

const N = Number(process.env.BENCH_N ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
/** Requests in flight at once, as wrk's connections (32 in `npm run bench`). */
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const h = await setup();
const product = await h.call('POST', '/products', { name: 'Mug', sku: 'MUG-1', type: 'simple', status: 'active', pricing_data: { retail: 12.5 } });
const key = await h.newKey(['products:read']);
const id = product.body.id;

const mcpUrl = 'http://localhost/agent/mcp';
const mcpHeaders = { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const init = await h.app.handle(
  new Request(mcpUrl, {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  }),
);
const session = init.headers.get('mcp-session-id')!;
await init.text();
const callBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'products', arguments: { action: 'get_product', id } },
});
const viaMcp = () =>
  new Request(mcpUrl, {
    method: 'POST',
    headers: { ...mcpHeaders, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' },
    body: callBody,
  });
const viaRest = () => new Request(`http://localhost${h.base}/products/${id}`, { headers: { 'x-api-key': key } });

/** One round: wall time and this process's CPU time, each in µs per request. */
async function round(make: () => Request): Promise<{ wall: number; cpu: number }> {
  const t = performance.now();
  const c = process.cpuUsage();
  let next = 0;
  const worker = async () => {
    while (next++ < N) {
      const res = await h.app.handle(make());
      const text = await res.text();
      if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`answered ${res.status}: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const used = process.cpuUsage(c);
  return { wall: ((performance.now() - t) * 1000) / N, cpu: (used.user + used.system) / N };
}

await round(viaRest); // warm both paths (caches, JIT)
await round(viaMcp);
const rest: { wall: number; cpu: number }[] = [];
const mcp: { wall: number; cpu: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  rest.push(await round(viaRest));
  mcp.push(await round(viaMcp));
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
for (const k of ['wall', 'cpu'] as const) {
  const r = median(rest.map((x) => x[k]));
  const m = median(mcp.map((x) => x[k]));
  console.log(
    `${k === 'wall' ? 'wall time' : 'server CPU'}, median of ${ROUNDS} rounds of ${N}: REST GET ${r.toFixed(1)} µs/req, MCP tools/call ${m.toFixed(1)} µs/req; MCP / REST throughput ${((r / m) * 100).toFixed(1)}% (target ≥ 70%)`,
  );
}
await flushAudits(); // the reads' records written behind, before the database closes
await closeSharedDb();
process.exit(0);
