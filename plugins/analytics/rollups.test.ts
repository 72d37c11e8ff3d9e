import { describe, expect, test } from 'bun:test';
import { runCron, runJob, takeQueued } from '../../test/kit/jobs';
import { product, setup, type Harness } from '../../test/kit/setup';

/**
 * The daily rollups answer exactly what the orders answer: every report is asked twice, once with
 * the rollups (the store's state row present) and once from the orders alone (the row taken away,
 * as for a store never backfilled), and the two must be equal.
 */
const mkProduct = async (h: Harness, retail: number, name: string) =>
  (await h.call('POST', '/products', product({ name, pricing_data: { retail }, stock_quantity: 1000 }))).body.id as string;

async function order(h: Harness, at: string, lines: [string, number][], statuses: string[] = ['paid'], customer_id?: string) {
  h.clock.set(at);
  const r = await h.call('POST', '/orders', {
    line_items: lines.map(([product_id, quantity]) => ({ product_id, quantity })),
    ...(customer_id ? { customer_id } : {}),
  });
  expect(r.status).toBe(201);
  for (const s of statuses) expect((await h.call('PATCH', `/orders/${r.body.id}`, { status: s })).status).toBe(200);
  return r.body.id as string;
}

/** Runs what the reactions queued (twice when `replay`: a worker dying before acknowledging), then any backfill. */
async function react(h: Harness, replay = false) {
  const held = await takeQueued(h, 'analytics.on');
  await runJob(h, 'analytics.on', held);
  if (replay) await runJob(h, 'analytics.on', held);
  const backfills = await takeQueued(h, 'analytics.backfill');
  if (backfills.length) await runJob(h, 'analytics.backfill', backfills.slice(0, 1));
  return held.length;
}

const PATHS = [
  '/analytics/sales?from=2026-03-01&to=2026-03-31&group_by=day&compare=true',
  '/analytics/sales?from=2026-01-01&to=2026-04-10&group_by=week',
  '/analytics/sales?from=2026-01-01&to=2026-04-10&group_by=month&compare=true',
  '/analytics/sales',
  '/analytics/inventory?from=2026-03-01&to=2026-03-31&compare=true',
  '/analytics/inventory',
  '/analytics/customers?from=2026-03-01&to=2026-03-31&compare=true',
  '/analytics/customers?from=2026-03-03&to=2026-03-12',
  '/analytics/customers?from=2026-01-15&to=2026-04-10&compare=true',
  '/analytics/customers',
];

/** Every report read through the rollups and from the orders alone. */
async function both(h: Harness) {
  const read = async () => Promise.all(PATHS.map(async (p) => (await h.call('GET', p)).body));
  const rolled = await read();
  const [state] = await h.db.query('DELETE FROM analytics_rollup_state WHERE store_id = $1 RETURNING *', [h.store.id]);
  expect(state).toBeDefined();
  const raw = await read();
  await h.db.query('INSERT INTO analytics_rollup_state (store_id, tz, currency, built_at) VALUES ($1, $2, $3, $4)', [
    h.store.id,
    state.tz,
    state.currency,
    state.built_at,
  ]);
  return { rolled, raw };
}

describe('analytics rollups', () => {
  test('equal the orders after creates, refunds, a cancellation and a replayed event; reports read them', async () => {
    const h = await setup({ now: '2026-02-01T00:00:00Z' });
    expect((await h.call('PATCH', '/settings', { timezone: 'America/New_York' })).status).toBe(200);
    const a = await mkProduct(h, 10, 'Apple');
    const b = await mkProduct(h, 25, 'Banana');
    const [ada, bo, cy] = await Promise.all(
      ['ada', 'bo', 'cy'].map(async (n) => (await h.call('POST', '/customers', { email: `${n}@example.com` })).body.id as string),
    );
    await order(h, '2026-02-20T12:00:00Z', [[a, 1]], ['paid'], ada);
    // The first reactions find no rollups: they queue the backfill, which builds every day.
    expect(await react(h)).toBeGreaterThan(0);
    expect((await h.db.query('SELECT tz FROM analytics_rollup_state WHERE store_id = $1', [h.store.id]))[0].tz).toBe('America/New_York');

    const o1 = await order(h, '2026-03-02T09:00:00Z', [[a, 2]], ['paid'], ada);
    // 03:30 UTC on the 4th is still the 3rd in New York.
    const o2 = await order(
      h,
      '2026-03-04T03:30:00Z',
      [
        [b, 1],
        [a, 1],
      ],
      ['paid'],
      bo,
    );
    await order(h, '2026-03-10T10:00:00Z', [[a, 3]], ['paid', 'fulfilled'], bo);
    await order(h, '2026-03-11T10:00:00Z', [[b, 1]], ['paid'], cy);
    await order(h, '2026-04-05T10:00:00Z', [[b, 2]], ['paid'], cy);
    await order(h, '2026-04-06T10:00:00Z', [[a, 1]], ['paid'], ada);
    await order(h, '2026-03-10T11:00:00Z', [[a, 5]], []);
    await order(h, '2026-03-10T12:00:00Z', [[b, 4]], ['cancelled']);
    h.clock.set('2026-03-12T08:00:00Z');
    expect((await h.call('POST', `/orders/${o1}/refunds`, { amount: 5 })).status).toBe(201);
    expect((await h.call('POST', `/orders/${o2}/refunds`, { amount: 7 })).status).toBe(201);
    // Cancelling a refunded order takes its sale and its refund (on another day) out.
    h.clock.set('2026-03-15T08:00:00Z');
    expect((await h.call('POST', `/orders/${o2}/cancel`, {})).status).toBe(200);
    h.clock.set('2026-04-10T12:00:00Z');
    // Before the reactions run, the rollups lag: the figures differ from the orders'.
    const stale = await both(h);
    expect(stale.rolled[0]).not.toEqual(stale.raw[0]);

    await react(h, true);
    const { rolled, raw } = await both(h);
    expect(rolled).toEqual(raw);
    expect(rolled[0]).toMatchObject({ gross_sales: 75, refunds: 5, orders: 3 });
    expect(rolled[6]).toMatchObject({ customers: 3, new_customers: 2, returning_customers: 1 });
    // An order of today is read from the orders (the rollups answer whole days before today).
    await order(h, '2026-04-10T13:00:00Z', [[b, 2]]);
    expect((await h.call('GET', '/analytics/sales?from=2026-04-01&to=2026-04-10')).body.gross_sales).toBe(50 + 50 + 10);
    const today = await both(h);
    expect(today.rolled).toEqual(today.raw);
    // Today's orders the reactions already rolled up are taken out of the rollups' side, not counted twice.
    await order(h, '2026-04-10T14:00:00Z', [[a, 2]], ['paid'], ada);
    await order(h, '2026-04-10T14:30:00Z', [[a, 1]], ['paid'], bo);
    await react(h);
    const rolledToday = await both(h);
    expect(rolledToday.rolled).toEqual(rolledToday.raw);
    expect(rolledToday.rolled[9]).toMatchObject({ customers: 3 });

    // The reports do read the rollups: a tampered day shows.
    await h.db.query(`UPDATE analytics_daily_sales SET gross = gross + 100000 WHERE store_id = $1 AND day = '2026-03-02'`, [h.store.id]);
    expect((await h.call('GET', '/analytics/sales?from=2026-03-01&to=2026-03-31')).body.gross_sales).toBe(1075);
    // A backfill rebuilds them from the orders.
    await runJob(h, 'analytics.backfill', [{ data: { store_id: h.store.id, input: {} } }]);
    expect((await h.call('GET', '/analytics/sales?from=2026-03-01&to=2026-03-31')).body.gross_sales).toBe(75);
  }, 120_000);

  test('running totals, cohorts and names across months: a later refund, a cancelled first order, a month boundary in the zone, a rename', async () => {
    const h = await setup({ now: '2026-01-01T00:00:00Z' });
    expect((await h.call('PATCH', '/settings', { timezone: 'America/New_York' })).status).toBe(200);
    const a = await mkProduct(h, 10, 'Apple');
    const b = await mkProduct(h, 25, 'Banana');
    const [ada, bo, cy, dee] = await Promise.all(
      ['ada', 'bo', 'cy', 'dee'].map(async (n) => (await h.call('POST', '/customers', { email: `${n}@example.com` })).body.id as string),
    );
    const adaJan = await order(h, '2026-01-10T15:00:00Z', [[a, 1]], ['paid'], ada);
    await react(h); // the first reaction finds no rollups: the backfill builds them; the rest is kept by reactions
    // 23:30 on 31 January in New York (February in UTC): dee's first order is January's.
    await order(h, '2026-02-01T04:30:00Z', [[a, 2]], ['paid'], dee);
    await order(h, '2026-02-05T15:00:00Z', [[b, 1]], ['paid'], bo);
    await order(h, '2026-02-20T15:00:00Z', [[b, 2]], ['paid', 'fulfilled'], ada);
    const cyMar = await order(h, '2026-03-03T15:00:00Z', [[a, 1]], ['paid'], cy);
    await order(h, '2026-03-05T15:00:00Z', [[b, 3]], []); // pending: not counted
    await order(h, '2026-03-06T15:00:00Z', [[b, 5]], ['cancelled']);
    await react(h);
    h.clock.set('2026-03-10T15:00:00Z');
    expect((await h.call('PATCH', `/products/${a}`, { name: 'Apple II' })).status).toBe(200);
    await order(h, '2026-03-18T15:00:00Z', [[a, 3]], ['paid'], bo);
    h.clock.set('2026-03-25T15:00:00Z');
    expect((await h.call('POST', `/orders/${adaJan}/refunds`, { amount: 5 })).status).toBe(201);
    await order(h, '2026-04-02T15:00:00Z', [[b, 1]], ['paid'], cy);
    // cy's first order is cancelled a month later: cy's cohort moves from March to April.
    h.clock.set('2026-04-05T15:00:00Z');
    expect((await h.call('POST', `/orders/${cyMar}/cancel`, {})).status).toBe(200);
    await order(h, '2026-04-20T15:00:00Z', [[a, 1]], ['paid'], dee);
    h.clock.set('2026-05-10T15:00:00Z');
    await react(h, true);

    const paths = [
      '/analytics/sales?from=2026-01-01&to=2026-04-30&group_by=month',
      '/analytics/sales?from=2026-01-01&to=2026-02-28',
      '/analytics/sales?from=2026-01-20&to=2026-04-12&group_by=week&compare=true',
      '/analytics/sales?from=2026-02-16&to=2026-03-17',
      '/analytics/inventory?from=2026-01-20&to=2026-04-12',
      '/analytics/customers?from=2026-02-01&to=2026-04-30&compare=true',
      '/analytics/customers?from=2026-01-20&to=2026-03-17',
      '/analytics/customers?from=2026-03-01&to=2026-05-10',
      '/analytics/customers?from=2026-04-01&to=2026-04-18',
    ];
    const read = async () => Promise.all(paths.map(async (p) => (await h.call('GET', p)).body));
    const rolled = await read();
    const [state] = await h.db.query('DELETE FROM analytics_rollup_state WHERE store_id = $1 RETURNING *', [h.store.id]);
    const raw = await read();
    await h.db.query('INSERT INTO analytics_rollup_state (store_id, tz, currency, built_at) VALUES ($1, $2, $3, $4)', [
      h.store.id,
      state.tz,
      state.currency,
      state.built_at,
    ]);
    expect(rolled).toEqual(raw);
    // By hand: a sold 1 + 2 in January (as Apple), 3 + 1 later (as Apple II); b 1 + 2, then 1 (cy's March order cancelled).
    expect(rolled[0].top_products.map((t: any) => [t.name, t.units])).toEqual([
      ['Apple II', 7],
      ['Banana', 4],
    ]);
    expect(rolled[0]).toMatchObject({ gross_sales: 170, refunds: 5, orders: 7 });
    expect(rolled[0].series.map((s: any) => s.refunds)).toEqual([0, 0, 5, 0]);
    // Over January and February only, a's name is the one it sold under then.
    expect(rolled[1].top_products.map((t: any) => [t.name, t.units])).toEqual([
      ['Banana', 3],
      ['Apple', 3],
    ]);
    // February to April: bo and cy are new (dee's first order was January's in New York), ada and dee return.
    expect(rolled[5]).toMatchObject({ customers: 4, new_customers: 2, returning_customers: 2, average_lifetime_value: 41.25 });
    expect(rolled[5].cohorts).toEqual([
      { cohort: '2026-02', customers: 1, retained: [1, 0] },
      { cohort: '2026-04', customers: 1, retained: [] },
    ]);

    // What the reactions kept is what a rebuild makes.
    const kept = async () =>
      Promise.all(
        ['analytics_product_history', 'analytics_customer_history', 'analytics_cohorts'].map((t) =>
          h.db.query(`SELECT * FROM ${t} WHERE store_id = $1 ORDER BY 1, 2, 3`, [h.store.id]),
        ),
      );
    const before = await kept();
    expect(before[2].length).toBeGreaterThan(0);
    await runJob(h, 'analytics.backfill', [{ data: { store_id: h.store.id, input: {} } }]);
    expect(await kept()).toEqual(before);
  }, 120_000);

  test('a time zone change falls back to the orders until the backfill rebuilds the days', async () => {
    const h = await setup({ now: '2026-03-01T00:00:00Z' });
    const a = await mkProduct(h, 10, 'Apple');
    await order(h, '2026-03-02T02:00:00Z', [[a, 1]]);
    await react(h);
    h.clock.set('2026-03-20T00:00:00Z');
    const q = '/analytics/sales?from=2026-03-01&to=2026-03-02&group_by=day';
    expect((await h.call('GET', q)).body.series.map((s: any) => s.orders)).toEqual([0, 1]);
    expect((await h.call('PATCH', '/settings', { timezone: 'America/Los_Angeles' })).status).toBe(200);
    // 02:00 UTC on the 2nd is the 1st in Los Angeles: the rollups (cut in UTC) are not used.
    expect((await h.call('GET', q)).body.series.map((s: any) => s.orders)).toEqual([1, 0]);
    await order(h, '2026-03-20T01:00:00Z', [[a, 1]]);
    await react(h);
    expect((await h.db.query('SELECT tz FROM analytics_rollup_state WHERE store_id = $1', [h.store.id]))[0].tz).toBe('America/Los_Angeles');
    const { rolled, raw } = await both(h);
    expect(rolled).toEqual(raw);
  }, 60_000);

  test('concurrent orders of one day: reactions run in parallel leave the rollups equal to the orders', async () => {
    const h = await setup({ now: '2026-03-01T00:00:00Z' });
    const a = await mkProduct(h, 10, 'Apple');
    const b = await mkProduct(h, 3, 'Berry');
    await order(h, '2026-03-01T01:00:00Z', [[a, 1]]);
    await react(h);
    h.clock.set('2026-03-05T10:00:00Z');
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        h.call('POST', '/orders', {
          line_items: [
            { product_id: a, quantity: 1 + (i % 3) },
            { product_id: b, quantity: 1 },
          ],
        }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual(Array(12).fill(201));
    await Promise.all(made.map((r) => h.call('PATCH', `/orders/${r.body.id}`, { status: 'paid' })));
    const held = await takeQueued(h, 'analytics.on');
    // Each reaction its own job, all at once (on PostgreSQL: separate connections, the day's lock serialising them).
    await Promise.all(held.map((j) => runJob(h, 'analytics.on', [j])));
    h.clock.set('2026-03-06T10:00:00Z');
    const { rolled, raw } = await both(h);
    expect(rolled).toEqual(raw);
    const [day] = await h.db.query(`SELECT orders, gross FROM analytics_daily_sales WHERE store_id = $1 AND day = '2026-03-05'`, [h.store.id]);
    expect({ orders: Number(day.orders), gross: Number(day.gross) }).toEqual({ orders: 12, gross: 24 * 1000 + 12 * 300 });
  }, 60_000);

  test('the sweep backfills a store whose orders no reaction has seen', async () => {
    const h = await setup({ now: '2026-03-01T00:00:00Z' });
    const a = await mkProduct(h, 10, 'Apple');
    await order(h, '2026-03-02T10:00:00Z', [[a, 4]]);
    await takeQueued(h, 'analytics.on'); // lost, as for orders that predate the rollups
    h.clock.set('2026-03-09T00:00:00Z');
    // The sweep visits every store without rollups (in a shared test database, other files' too).
    await runCron(h, 'analytics.sweep');
    const [day] = await h.db.query(`SELECT gross FROM analytics_daily_sales WHERE store_id = $1 AND day = '2026-03-02'`, [h.store.id]);
    expect(Number(day.gross)).toBe(4000);
    const { rolled, raw } = await both(h);
    expect(rolled).toEqual(raw);
  }, 120_000);
});
