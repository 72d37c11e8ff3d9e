/**
 * `bun bench/checkout.ts`: completed agentic checkouts per second as a ratio of plain order
 * creation (issue 50's target: at least 50%). In process (app.handle, no port), on the embedded
 * database unless DATABASE_URL is set; BENCH_ITERATIONS (default 300), BENCH_CONCURRENCY (default
 * 1 on the embedded database, which runs one transaction at a time; 8 on PostgreSQL).
 *   - plain: POST /orders (one line, a shipping address);
 *   - checkout: POST /checkout/sessions with the whole cart (lines, buyer, address: priced, stock
 *     checked, shipping chosen) then POST .../complete (locks, prices again, creates the order
 *     through orders' own action, checkout.completed). Two requests: an agent needs both.
 * Prints figures; not a test.
 */
import { product, setup } from '../test/kit/setup';

const N = Number(process.env.BENCH_ITERATIONS ?? 300);
const C = Number(process.env.BENCH_CONCURRENCY ?? (process.env.DATABASE_URL ? 8 : 1));
const h = await setup();
const address = { name: 'Ada', line1: '1 Main St', city: 'Springfield', region: 'CA', postal_code: '90001', country: 'US' };
const p = (await h.call('POST', '/products', product({ name: 'Lamp', stock_quantity: 1_000_000, weight_grams: 500 }))).body;
await h.call('POST', '/shipping/zones', {
  name: 'US',
  countries: ['US'],
  methods: [{ name: 'Standard', rate_type: 'flat', amount: 5, min_days: 2, max_days: 5 }],
});
await h.call('POST', '/tax/rates', { name: 'CA', country: 'US', region: 'CA', percentage: 7.25 });

async function plain() {
  const r = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }], shipping_address: address });
  if (r.status !== 201) throw new Error(`order: ${r.status} ${JSON.stringify(r.body)}`);
}
async function checkout() {
  const s = await h.call('POST', '/checkout/sessions', {
    line_items: [{ item_id: p.id, quantity: 1 }],
    buyer: { email: 'ada@example.com' },
    shipping_address: address,
  });
  if (s.body.status !== 'ready_for_complete') throw new Error(`session: ${JSON.stringify(s.body)}`);
  const d = await h.call('POST', `/checkout/sessions/${s.body.id}/complete`, {});
  if (d.body.status !== 'completed') throw new Error(`complete: ${JSON.stringify(d.body)}`);
}

async function rate(fn: () => Promise<void>, n: number) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next++ < n) await fn();
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

// Warm-up, then alternate rounds so both see the same machine load.
await rate(plain, 30);
await rate(checkout, 30);
const plains: number[] = [];
const checkouts: number[] = [];
for (let round = 0; round < 3; round++) {
  plains.push(await rate(plain, Math.ceil(N / 3)));
  checkouts.push(await rate(checkout, Math.ceil(N / 3)));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const po = median(plains);
const co = median(checkouts);
console.log(`backend: ${process.env.DATABASE_URL ? 'postgres' : 'pglite'}, concurrency ${C}, ${N} of each`);
console.log(`plain orders:        ${po.toFixed(1)} /s`);
console.log(`completed checkouts: ${co.toFixed(1)} /s (create with the whole cart + complete)`);
console.log(`ratio: ${((co / po) * 100).toFixed(0)}% (target >= 50%)`);
process.exit(0);
