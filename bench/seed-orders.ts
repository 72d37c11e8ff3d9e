/**
 * The analytics benchmark (issue 48): a store with 1M orders over the last 24 months, 100k
 * customers and 10k products, 5% of counted orders refunded and 3% cancelled, made from a fixed
 * seed, loaded with COPY (psql, FROM STDIN), then VACUUM ANALYZE; then each analytics report is
 * asked through the app (REST with every convention on, as a client would) and timed.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/seed-orders.ts [--orders 1000000] [--runs 5] [--keep]
 *
 * A throwaway database is made on that server and dropped at the end (`--keep` keeps it and
 * prints its URL; `--seed-only` stops after seeding). `--reuse <url>` times the reports on a
 * database an earlier `--keep` run seeded (migrating it first, so new migrations apply), without
 * seeding again. Figures: docs/benchmarks.md.
 */
import { systemClock } from '../core/clock';
import { openDb } from '../core/db';
import { migrate } from '../core/db/migrate';
import { createApp } from '../core/http/app';
import { makeServices } from '../core/http/services';
import { createKey, createStore } from '../core/keys';
import { allMigrations } from '../core/migrations';
import { createRegistry } from '../core/plugins/registry';
import { pluginList } from '../plugins';
import { createThrowawayDatabase } from '../test/kit/db';
import { runJob } from '../test/kit/jobs';
import { HIGH_LIMITS } from './child';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ORDERS = arg('orders', 1_000_000);
const CUSTOMERS = arg('customers', 100_000);
const PRODUCTS = arg('products', 10_000);
const RUNS = arg('runs', 5);
const SEED = 48;
const DAY = 86_400_000;
if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL (a PostgreSQL server the benchmark may make a database on) is required');

/** mulberry32: a small, fixed-seed generator, so every run loads the same rows. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const hex8 = (r: () => number) =>
  Math.floor(r() * 4294967296)
    .toString(16)
    .padStart(8, '0');
const uuid = (r: () => number) => {
  const s = hex8(r) + hex8(r) + hex8(r) + hex8(r);
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-a${s.slice(17, 20)}-${s.slice(20, 32)}`;
};

/** COPY ... FROM STDIN through psql, fed in chunks; FK triggers off (rows are consistent by construction). */
async function copy(url: string, table: string, columns: string[], rows: (write: (line: string) => void) => void) {
  const proc = Bun.spawn(
    [
      'psql',
      url,
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      '-c',
      'SET session_replication_role = replica',
      '-c',
      `COPY ${table} (${columns.join(', ')}) FROM STDIN`,
    ],
    { stdin: 'pipe', stdout: 'inherit', stderr: 'inherit' },
  );
  let buf: string[] = [];
  let n = 0;
  rows((line) => {
    buf.push(line);
    if (++n % 20_000 === 0) {
      proc.stdin.write(buf.join(''));
      buf = [];
    }
  });
  proc.stdin.write(buf.join(''));
  await proc.stdin.end();
  if ((await proc.exited) !== 0) throw new Error(`COPY ${table} failed`);
  return n;
}
const line = (...v: (string | number | boolean | null)[]) => v.map((x) => (x === null ? '\\N' : String(x))).join('\t') + '\n';

const now = Date.now();
const start = now - 730 * DAY;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The orders, regenerated identically for each table from the seed (orders must be committed
 * before their lines are loaded, and 2.5M lines held in memory would be most of this machine's).
 */
function* orders(products: { id: string; price: number; name: string; sku: string }[], customers: string[]) {
  const r = rng(SEED + 1);
  // Creation times spread over 24 months, in order (as they would arrive), growing a little each month.
  const times = new Float64Array(ORDERS);
  for (let i = 0; i < ORDERS; i++) times[i] = start + Math.sqrt(r()) * (now - start);
  times.sort();
  for (let i = 0; i < ORDERS; i++) {
    const created = Math.floor(times[i]);
    const x = r();
    const status = x < 0.03 ? 'cancelled' : x < 0.05 ? 'pending' : x < 0.35 ? 'paid' : x < 0.65 ? 'fulfilled' : 'completed';
    // 90% of orders have a customer; a few customers order often (a skewed pick).
    const customer = r() < 0.9 ? customers[Math.floor(r() ** 2 * customers.length)] : null;
    const discounted = r() < 0.15;
    const lines = [];
    const n = 1 + Math.floor(r() * 4);
    let subtotal = 0;
    let discount = 0;
    let tax = 0;
    for (let k = 0; k < n; k++) {
      const p = products[Math.floor(r() ** 2 * products.length)];
      const quantity = 1 + Math.floor(r() ** 3 * 3);
      const total = p.price * quantity;
      const d = discounted ? Math.floor(total / 10) : 0;
      const t = Math.round((total - d) * 0.08);
      subtotal += total;
      discount += d;
      tax += t;
      lines.push({ id: uuid(r), product: p, quantity, total, discount: d, tax: t });
    }
    const counted = status === 'paid' || status === 'fulfilled' || status === 'completed';
    const totalMinor = subtotal - discount + tax;
    // 5% of counted orders refunded, half of them in full, the refund 1 to 20 days later.
    let refund: { id: string; amount: number; at: number } | null = null;
    if (counted && r() < 0.05) {
      const amount = r() < 0.5 ? totalMinor : Math.max(1, Math.floor(totalMinor * (0.1 + r() * 0.8)));
      refund = { id: uuid(r), amount, at: Math.min(now, created + (1 + Math.floor(r() * 20)) * DAY) };
    }
    yield { id: uuid(r), n: i + 1, created, status, customer, subtotal, discount, tax, total: totalMinor, lines, refund };
  }
}

async function seed(db: Awaited<ReturnType<typeof openDb>>, url: string, S: string) {
  const t0 = performance.now();
  const r = rng(SEED);
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({
    id: uuid(r),
    price: 500 + Math.floor(r() * 19_500),
    name: `Product ${i + 1}`,
    sku: `SKU-${i + 1}`,
  }));
  const stock = products.map(() => (r() < 0.1 ? Math.floor(r() * 5) : Math.floor(r() * 300)));
  await copy(url, 'products', ['id', 'store_id', 'name', 'sku', 'type', 'status', 'price_minor', 'currency', 'created_at', 'updated_at'], (w) =>
    products.forEach((p, i) => w(line(p.id, S, p.name, p.sku, 'simple', 'active', p.price, 'USD', iso(start), iso(start)))),
  );
  const [home] = await db.query(
    `INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'Default', true, now(), now()) RETURNING id`,
    [S],
  );
  await copy(url, 'inventory_levels', ['store_id', 'product_id', 'variant_id', 'location_id', 'quantity', 'updated_at'], (w) =>
    products.forEach((p, i) => stock[i] > 0 && w(line(S, p.id, p.id, home.id, stock[i], iso(now)))),
  );
  const customers = Array.from({ length: CUSTOMERS }, () => uuid(r));
  await copy(url, 'customers', ['id', 'store_id', 'email', 'first_name', 'accepts_marketing', 'created_at', 'updated_at'], (w) =>
    customers.forEach((id, i) => {
      const at = iso(start + Math.floor(r() * (now - start)));
      w(line(id, S, `c${i + 1}@bench.test`, `Customer ${i + 1}`, r() < 0.6, at, at));
    }),
  );
  const tSeed = performance.now();
  await copy(
    url,
    'orders',
    [
      'id',
      'store_id',
      'order_number',
      'status',
      'currency',
      'total_minor',
      'customer_id',
      'created_at',
      'updated_at',
      'cancelled_at',
      'subtotal_minor',
      'discount_total_minor',
      'tax_total_minor',
      'amount_refunded_minor',
    ],
    (w) => {
      for (const o of orders(products, customers)) {
        const at = iso(o.created);
        w(
          line(
            o.id,
            S,
            String(o.n),
            o.status,
            'USD',
            o.total,
            o.customer,
            at,
            at,
            o.status === 'cancelled' ? at : null,
            o.subtotal,
            o.discount,
            o.tax,
            o.refund?.amount ?? 0,
          ),
        );
      }
    },
  );
  let refunds = 0;
  const lines = await copy(
    url,
    'order_line_items',
    [
      'id',
      'order_id',
      'store_id',
      'position',
      'product_id',
      'name',
      'sku',
      'quantity',
      'unit_price_minor',
      'total_minor',
      'discount_minor',
      'tax_minor',
      'amount_paid_minor',
    ],
    (w) => {
      for (const o of orders(products, customers))
        o.lines.forEach((l, k) =>
          w(
            line(
              l.id,
              o.id,
              S,
              k,
              l.product.id,
              l.product.name,
              l.product.sku,
              l.quantity,
              l.product.price,
              l.total,
              l.discount,
              l.tax,
              l.total - l.discount + l.tax,
            ),
          ),
        );
    },
  );
  await copy(url, 'order_refunds', ['id', 'store_id', 'order_id', 'amount_minor', 'currency', 'reason', 'restock', 'created_at'], (w) => {
    for (const o of orders(products, customers))
      if (o.refund) (refunds++, w(line(o.refund.id, S, o.id, o.refund.amount, 'USD', 'bench', false, iso(o.refund.at))));
  });
  const tCopy = performance.now();
  await db.exec('VACUUM ANALYZE');
  const tVacuum = performance.now();
  console.log(
    `seeded ${ORDERS.toLocaleString('en')} orders, ${lines.toLocaleString('en')} lines, ${refunds.toLocaleString('en')} refunds, ` +
      `${CUSTOMERS.toLocaleString('en')} customers, ${PRODUCTS.toLocaleString('en')} products: ` +
      `COPY ${((tCopy - tSeed) / 1000).toFixed(1)} s (orders, lines, refunds), VACUUM ANALYZE ${((tVacuum - tCopy) / 1000).toFixed(1)} s, all ${((tVacuum - t0) / 1000).toFixed(1)} s`,
  );
}

const reuseAt = process.argv.indexOf('--reuse');
const REUSE = reuseAt > 0 ? process.argv[reuseAt + 1] : null;

async function main() {
  const { url, drop } = REUSE ? { url: REUSE, drop: async () => {} } : await createThrowawayDatabase();
  const keep = REUSE !== null || process.argv.includes('--keep');
  const db = await openDb({ databaseUrl: url, poolSize: 4 });
  try {
    await migrate(db, allMigrations(pluginList));
    const registry = createRegistry(pluginList);
    const [reused] = REUSE ? await db.query(`SELECT id FROM stores WHERE name = 'Analytics bench' LIMIT 1`) : [];
    const store = reused ?? (await createStore(db, systemClock, { name: 'Analytics bench', plan: 'enterprise' }));
    const key = await createKey(db, systemClock, { storeId: store.id, scopes: [...registry.scopes], livemode: false });
    const S = store.id;
    if (!reused) await seed(db, url, S);
    if (process.argv.includes('--seed-only')) return;
    // COPY bypasses the reactions: build the daily rollups as a store's first order event would
    // (analytics' backfill job, through the core's job runner), unless an earlier run built them.
    const [built] = await db.query(`SELECT 1 FROM analytics_rollup_state WHERE store_id = $1`, [S]);
    if (!built) {
      const tb = performance.now();
      await runJob({ db, clock: systemClock, registry }, 'analytics.backfill', [{ data: { store_id: S, input: {} } }]);
      // As autovacuum would after such a load: the planner needs the new tables' sizes.
      await db.exec('ANALYZE');
      console.log(`analytics backfill: ${((performance.now() - tb) / 1000).toFixed(1)} s (and ANALYZE)`);
    }

    const svc = makeServices({ db, clock: systemClock, registry, limits: HIGH_LIMITS });
    const app = createApp(svc);
    const ask = async (path: string) => {
      const t = performance.now();
      const res = await app.handle(new Request(`http://bench.test/v1/stores/${S}${path}`, { headers: { 'x-api-key': key.key! } }));
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body.slice(0, 300)}`);
      return performance.now() - t;
    };
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const year = `from=${day(now - 364 * DAY)}&to=${day(now)}`;
    const cases: [string, string][] = [
      ['sales_report, last 30 days by day', '/analytics/sales'],
      ['sales_report, 12 months by month, compare', `/analytics/sales?${year}&group_by=month&compare=true`],
      ['sales_report, 24 months by week', `/analytics/sales?from=${day(start)}&to=${day(now)}&group_by=week`],
      ['inventory_report, last 30 days', '/analytics/inventory'],
      ['customer_report, last 30 days', '/analytics/customers'],
      ['customer_report, 12 months, compare', `/analytics/customers?${year}&compare=true`],
    ];
    console.log(`\n| report (${ORDERS.toLocaleString('en')} orders, PostgreSQL) | median | max (of ${RUNS}, after one warm-up) |\n|---|---:|---:|`);
    for (const [name, path] of cases) {
      await ask(path);
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) ms.push(await ask(path));
      ms.sort((a, b) => a - b);
      console.log(`| ${name} | ${ms[Math.floor(ms.length / 2)].toFixed(0)} ms | ${ms[ms.length - 1].toFixed(0)} ms |`);
    }
  } finally {
    await db.close();
    if (keep) console.log(`kept: ${url}`);
    else await drop();
  }
}

await main();
