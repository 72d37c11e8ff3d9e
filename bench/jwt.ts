/**
 * A REST GET with a user's access token (JWT) against the same GET with an API key (issue 11:
 * at most 10% more). In process (app.handle, no sockets), so the figure is the server's own cost:
 * alternating rounds of N requests each, the median round compared. Uses the test kit (a
 * throwaway database: PGlite, or PostgreSQL at DATABASE_URL).
 *
 *   bun bench/jwt.ts            # prints both medians and the ratio; exits 1 above the target
 */
import { randomBytes } from 'node:crypto';
import { closeSharedDb } from '../test/kit/db';
import { setup } from '../test/kit/setup';
import { authorize, discover, exchange, register } from '../test/kit/oauth';
import { addUser, browser } from '../test/kit/users';

const N = Number(process.env.BENCH_N ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const TARGET = 1.1;
// The token signing key is sealed with SVC_SECRET_KEY (on PostgreSQL there is no data folder to make one in).
process.env.SVC_SECRET_KEY ??= randomBytes(32).toString('base64');

const h = await setup();
const product = await h.call('POST', '/products', { name: 'Mug', sku: 'MUG-1', type: 'simple', status: 'active', pricing_data: { retail: 12.5 } });
const owner = await addUser(h, 'owner');
const { as } = await discover(h);
const client = await register(h, as);
const a = await authorize(h, as, client, browser(h), owner.email, { scope: 'products:read', storeId: h.store.id });
const jwt = (await exchange(h, as, client, a.callback!, a.verifier, a.state)).access_token;
const key = await h.newKey(['products:read']);

// Absolute URL on the MCP audience's origin: the token's audience is this server.
const url = `http://svc.test${h.base}/products/${product.body.id}`;
const viaKey = () => new Request(url, { headers: { 'x-api-key': key } });
const viaJwt = () => new Request(url, { headers: { authorization: `Bearer ${jwt}` } });

async function round(make: () => Request): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < N; i++) {
    const res = await h.app.handle(make());
    if (res.status !== 200) throw new Error(`GET answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
  return ((performance.now() - t) * 1000) / N; // µs per request
}

await round(viaKey); // warm both paths (caches, JIT)
await round(viaJwt);
const keyTimes: number[] = [];
const jwtTimes: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  keyTimes.push(await round(viaKey));
  jwtTimes.push(await round(viaJwt));
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const k = median(keyTimes);
const j = median(jwtTimes);
const ratio = j / k;
console.log(`REST GET, ${ROUNDS} rounds of ${N} (median): API key ${k.toFixed(1)} µs/req, JWT ${j.toFixed(1)} µs/req`);
console.log(`JWT / API key: ${(ratio * 100).toFixed(1)}% (target ≤ ${Math.round(TARGET * 100)}%): ${ratio <= TARGET ? 'met' : 'NOT met'}`);
await closeSharedDb();
process.exit(ratio <= TARGET ? 0 : 1);
