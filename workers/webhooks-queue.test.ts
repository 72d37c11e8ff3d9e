/**
 * Webhook delivery through the real pg-boss queue: in-process workers, and a worker process that is
 * killed with SIGKILL in the middle of a backlog and started again.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { startWorkers } from '../core/jobs/run';
import { writeEvents } from '../core/events/outbox';
import { backend, sharedDbUrl } from '../test/kit/db';
import { product, setup } from '../test/kit/setup';
import { deliveryOptions, startReceiver, testCerts } from '../test/kit/webhook-receiver';
import { webhookJob } from './webhooks';

const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

async function receiver() {
  const rx = await startReceiver();
  receivers.push(rx);
  return rx;
}

describe('delivery through the queue', () => {
  test('an order placed through REST reaches the receiver as order.created (SPEC 2.8); a refused order sends nothing', async () => {
    const h = await setup();
    const rx = await receiver();
    const ep = (await h.call('POST', '/webhooks', { url: rx.url(), events: ['order.created'] })).body;
    const workers = await startWorkers(h.db, [webhookJob(h.db, h.clock, deliveryOptions())], () => {});
    try {
      const p = (await h.call('POST', '/products', product({ stock_quantity: 1, pricing_data: { retail: 9.5 } }))).body;
      const refused = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 5 }] });
      expect(refused.body.error.code).toBe('insufficient_stock');
      const order = (await h.call('POST', '/orders', { payment_method: 'card', line_items: [{ product_id: p.id, quantity: 1 }] })).body;
      await rx.waitFor(1);
      await Bun.sleep(1500); // two more polls: nothing else may arrive
      expect(rx.received).toHaveLength(1);
      const [r] = rx.received;
      expect(r.headers['x-webhook-event']).toBe('order.created');
      expect(r.body).toEqual({ id: r.headers['webhook-id'], object: 'event', type: 'order.created', created_at: order.created_at, data: order });
      expect(r.body.data).toMatchObject({ object: 'order', order_number: order.order_number, status: 'pending', payment_method: 'card', total: 9.5 });
      for (let i = 0; i < 50 && (await h.call('GET', `/webhooks/${ep.id}`)).body.total_delivered < 1; i++) await Bun.sleep(100);
      expect((await h.call('GET', `/webhooks/${ep.id}/deliveries`)).body.data[0]).toMatchObject({
        status: 'succeeded',
        attempt: 1,
        status_code: 200,
      });
    } finally {
      await workers.stop();
    }
  }, 30_000);
});

const CLI = join(import.meta.dir, '..', 'core', 'cli.ts');

describe.skipIf(backend !== 'postgres')('a worker process killed mid-way (PostgreSQL: two processes on one database)', () => {
  test('kill -9 during 1,000 deliveries, restart: every event is delivered at least once', async () => {
    const h = await setup({ now: new Date().toISOString() });
    const rx = await receiver();
    // From the 251st request on, answers are held back: the kill lands with requests in flight.
    rx.respond((_r, n) => (n > 250 ? Bun.sleep(5_000).then(() => 200) : 200));
    await h.call('POST', '/webhooks', { url: rx.url(), events: ['order.created'] });
    const ids = await h.db.transaction((tx) =>
      writeEvents(
        tx,
        h.store.id,
        Array.from({ length: 1000 }, (_, n) => ({ type: 'order.created', data: { object: 'order', id: crypto.randomUUID(), n }, at: h.clock.now() })),
      ),
    );
    expect(ids).toHaveLength(1000);
    const env = {
      ...process.env,
      DATABASE_URL: (await sharedDbUrl())!,
      NODE_EXTRA_CA_CERTS: join(testCerts().dir, 'ca.pem'),
      SVC_EGRESS_ALLOW: 'localhost',
    };
    const worker = () => Bun.spawn([process.execPath, CLI, 'serve', '--role', 'worker'], { env, stdout: 'ignore', stderr: 'ignore' });
    const distinct = () => new Set(rx.received.map((r) => r.body?.id)).size;

    const first = worker();
    for (let i = 0; i < 600 && rx.received.length < 300; i++) await Bun.sleep(50);
    first.kill('SIGKILL');
    await first.exited;
    const atKill = distinct();
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(1000);
    const [held] = await h.db.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE store_id = $1 AND status = 'pending' AND lease_until IS NOT NULL`,
      [h.store.id],
    );
    expect(held.n).toBeGreaterThan(0); // killed with deliveries in flight
    rx.respond(() => 200);

    // Deliveries held by the dead worker come back once their jobs' heartbeat stops (10 s) and are
    // retried: their receiver may see them twice (at least once, SPEC 6.1 rule 3), the log records
    // each once. Issue 36: all within 30 s of the kill (it was about 67 s, the job expiry).
    const killedAt = performance.now();
    const second = worker();
    const succeeded = async () =>
      (await h.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE store_id = $1 AND status = 'succeeded'`, [h.store.id]))[0].n;
    try {
      for (let i = 0; i < 720 && (await succeeded()) < 1000; i++) await Bun.sleep(250);
      const secondsToAll = (performance.now() - killedAt) / 1000;
      console.log(`webhooks-queue: every delivery succeeded ${secondsToAll.toFixed(1)} s after the kill (${held.n} were in flight)`);
      expect(await succeeded()).toBe(1000);
      expect(secondsToAll).toBeLessThan(30);
      expect(distinct()).toBe(1000);
      expect(rx.received.length).toBeGreaterThan(1000); // the in-flight ones were sent again
    } finally {
      second.kill('SIGTERM');
      await second.exited;
    }
  }, 200_000);
});
