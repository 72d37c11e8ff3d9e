import { describe, expect, test } from 'bun:test';
import { manualClock } from '../core/clock';
import { installJobs, startWorkers } from '../core/jobs/run';
import { createRegistry } from '../core/plugins/registry';
import { allJobs } from '.';
import { definePlugin, job } from '../core/plugins/contract';
import { Type } from '@sinclair/typebox';
import { product, setup } from '../test/kit/setup';
import { fixtureJobs, fixturePoints } from '../test/fixtures/jobs';
import { MAINTENANCE_QUEUE, runMaintenance } from './maintenance';

const countKeys = async (h: Awaited<ReturnType<typeof setup>>) =>
  Number(
    (
      await h.db.query('SELECT count(*)::int AS n FROM idempotency_keys WHERE api_key_id IN (SELECT id FROM api_keys WHERE store_id = $1)', [
        h.store.id,
      ])
    )[0].n,
  );

describe('workers (pg-boss on the same database)', () => {
  test('maintenance forgets idempotency records older than 24 hours and keeps newer ones', async () => {
    const h = await setup();
    await h.call('POST', '/products', { name: 'A' }, { 'Idempotency-Key': 'old' });
    h.clock.advance(23 * 3600_000);
    await h.call('POST', '/products', { name: 'B' }, { 'Idempotency-Key': 'new' });
    h.clock.advance(2 * 3600_000);
    await runMaintenance(h.db, h.clock);
    expect(await countKeys(h)).toBe(1);
  });

  test('a worker runs queued jobs, and a graceful stop lets the job in hand finish', async () => {
    const h = await setup();
    const done: string[] = [];
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const workers = await startWorkers(
      h.db,
      [
        {
          queue: `test.slow.${h.store.id}`,
          run: async (batch) => {
            started();
            await Bun.sleep(300);
            done.push(...batch.map((d: any) => d.n));
          },
        },
      ],
      () => {},
    );
    await workers.boss.send(`test.slow.${h.store.id}`, { n: 'first' });
    await running;
    await workers.stop();
    expect(done).toEqual(['first']);
  }, 30_000);

  test("a plugin's declared job runs on a worker under the <plugin>.<name> queue", async () => {
    const h = await setup();
    const seen: unknown[] = [];
    const plugin = definePlugin({
      name: `jobs_fixture`,
      category: 'platform',
      scopes: { read: ['products'], write: ['products'] },
      actions: {},
      jobs: { record: job({ input: Type.Object({ n: Type.Number() }), handler: async (ctx, input) => void seen.push([ctx.store.id, input]) }) },
    });
    const jobs = allJobs(h.db, h.clock, createRegistry([plugin])).filter((j) => j.queue === 'jobs_fixture.record');
    expect(jobs).toHaveLength(1);
    const workers = await startWorkers(h.db, jobs, () => {});
    try {
      // As ctx.enqueue writes it: the input and its store.
      await workers.boss.send('jobs_fixture.record', { input: { n: 1 }, store_id: h.store.id });
      for (let i = 0; i < 100 && !seen.length; i++) await Bun.sleep(100);
      expect(seen).toEqual([[h.store.id, { n: 1 }]]);
    } finally {
      await workers.stop();
    }
  }, 30_000);

  test('a reaction runs on a started worker once its order is paid, and an action-started job runs to succeeded', async () => {
    const h = await setup({ extra: [fixturePoints, fixtureJobs] });
    const queues = ['fixture_points.on', 'fixture_jobs.count'];
    const workers = await startWorkers(
      h.db,
      allJobs(h.db, h.clock, h.registry).filter((j) => queues.includes(j.queue)),
      () => {},
    );
    try {
      const p = (await h.call('POST', '/products', product({ pricing_data: { retail: 4 } }))).body.id;
      const order = (await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }], status: 'paid' })).body;
      const started = (await h.call('POST', '/fixture-jobs/count', { to: 2 })).body;
      const points = () => h.db.query('SELECT order_id, points FROM fixture_points WHERE store_id = $1', [h.store.id]);
      const status = async () => (await h.call('GET', `/jobs/${started.id}`)).body.status;
      for (let i = 0; i < 100 && (!(await points()).length || (await status()) !== 'succeeded'); i++) await Bun.sleep(100);
      expect(await points()).toEqual([{ order_id: order.id, points: 4 }]);
      expect((await h.call('GET', `/jobs/${started.id}`)).body).toMatchObject({ status: 'succeeded', result: { counted: 2 } });
    } finally {
      await workers.stop();
    }
  }, 30_000);

  test('the maintenance queue is served by a started worker', async () => {
    const h = await setup({ now: new Date().toISOString() });
    await h.call('POST', '/products', { name: 'A' }, { 'Idempotency-Key': 'stale' });
    // Run maintenance as if a day had passed, through the real queue.
    const later = manualClock(new Date(Date.now() + 25 * 3600_000));
    let ran = 0;
    const workers = await startWorkers(
      h.db,
      [{ queue: MAINTENANCE_QUEUE, run: async () => void (await runMaintenance(h.db, later), ran++) }],
      () => {},
    );
    try {
      await workers.boss.send(MAINTENANCE_QUEUE, {});
      for (let i = 0; i < 100 && !ran; i++) await Bun.sleep(100);
      expect(ran).toBeGreaterThan(0);
      expect(await countKeys(h)).toBe(0);
    } finally {
      await workers.stop();
    }
  }, 30_000);
});

describe('queues and schedules at start', () => {
  test('a start writes no queue or schedule already as declared, and updates one whose settings changed', async () => {
    const h = await setup();
    const queue = `test.install.${h.store.id}`;
    const row = async () =>
      (
        await h.db.query<{ retry_limit: number; updated_on: string }>(
          'SELECT retry_limit, updated_on::text AS updated_on FROM pgboss.queue WHERE name = $1',
          [queue],
        )
      )[0];
    const schedule = async () =>
      (
        await h.db.query<{ cron: string; updated_on: string }>('SELECT cron, updated_on::text AS updated_on FROM pgboss.schedule WHERE name = $1', [
          queue,
        ])
      )[0];
    const declared = (retryLimit: number, cron: string) => [
      { queue, cron, options: { retryLimit, retryDelay: 5, retryBackoff: true }, run: async () => {} },
    ];

    await installJobs(h.db, declared(3, '*/5 * * * *'));
    const made = await row();
    expect(made.retry_limit).toBe(3);
    await installJobs(h.db, declared(3, '*/5 * * * *'));
    expect(await row()).toEqual(made);

    let workers = await startWorkers(h.db, declared(3, '*/5 * * * *'), () => {});
    await workers.stop();
    const scheduled = await schedule();
    expect(scheduled.cron).toBe('*/5 * * * *');
    workers = await startWorkers(h.db, declared(3, '*/5 * * * *'), () => {});
    await workers.stop();
    expect(await schedule()).toEqual(scheduled);
    expect(await row()).toEqual(made);

    await installJobs(h.db, declared(7, '*/5 * * * *'));
    expect((await row()).retry_limit).toBe(7);
    workers = await startWorkers(h.db, declared(7, '0 * * * *'), () => {});
    await workers.stop();
    expect((await schedule()).cron).toBe('0 * * * *');
  }, 30_000);
});

describe('waking workers', () => {
  test('idle queues are not fetched; a job sent, and one whose start time arrives, runs within about a second', async () => {
    const h = await setup();
    const queues = Array.from({ length: 8 }, (_, i) => `test.wake${i}.${h.store.id}`);
    const ran: { queue: string; at: number }[] = [];
    const workers = await startWorkers(
      h.db,
      queues.map((queue) => ({ queue, run: async () => void ran.push({ queue, at: Date.now() }) })),
      () => {},
    );
    try {
      const fetched = () => new Map(workers.boss.getWipData().map((w) => [w.name, w.lastFetchedOn]));
      await Bun.sleep(300); // each worker's first fetch, at start
      const before = fetched();
      await Bun.sleep(2000);
      expect(fetched()).toEqual(before); // no queue was polled while nothing was ready

      const sent = Date.now();
      await workers.boss.send(queues[3], { n: 1 });
      for (let i = 0; i < 50 && !ran.length; i++) await Bun.sleep(50);
      expect(ran.map((r) => r.queue)).toEqual([queues[3]]);
      expect(ran[0].at - sent).toBeLessThan(1500);
      const after = fetched();
      for (const q of queues) if (q !== queues[3]) expect(after.get(q)).toEqual(before.get(q));

      const due = Date.now() + 1000;
      await workers.boss.send(queues[5], { n: 2 }, { startAfter: new Date(due) });
      for (let i = 0; i < 80 && ran.length < 2; i++) await Bun.sleep(50);
      expect(ran[1]?.queue).toBe(queues[5]);
      expect(ran[1].at).toBeGreaterThanOrEqual(due - 50);
      expect(ran[1].at - due).toBeLessThan(1500);
    } finally {
      await workers.stop();
    }
  }, 30_000);
});
