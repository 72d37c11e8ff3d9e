import { afterEach, expect, test } from 'bun:test';
import { product, setup } from '../kit/setup';
import { runJob, takeQueued } from '../kit/jobs';
import { createLogger } from '../../core/log';
import { fixturePoints, reactionFaults } from '../fixtures/jobs';

/** Reactions to events (`on`), through the real pipeline: an order's change, its event, the reaction's job. Both backends. */

afterEach(() => void (reactionFaults.failures = 0));

const QUEUE = 'fixture_points.on';

async function world() {
  const h = await setup({ extra: [fixturePoints] });
  const p = (await h.call('POST', '/products', product({ pricing_data: { retail: 12.5 }, stock_quantity: 50 }))).body.id;
  const order = async (extra: Record<string, unknown> = {}) => {
    const r = await h.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 2 }], payment_method: 'card', ...extra });
    expect(r.status).toBe(201);
    return r.body;
  };
  const points = () =>
    h.db.query<{ order_id: string; points: number; lines: number; event_id: string }>(
      'SELECT order_id, points, lines, event_id FROM fixture_points WHERE store_id = $1 ORDER BY order_id',
      [h.store.id],
    );
  const jobs = async () => (await h.call('GET', '/jobs?limit=100')).body.data as any[];
  return { h, order, points, jobs };
}

test('an order created paid, and one updated to paid, each give one reaction, even when its job runs again after a crash before the acknowledgement', async () => {
  const { h, order, points, jobs } = await world();
  // No webhook subscribes: the event is stored because a plugin reacts to its type.
  const paidAtOnce = await order({ status: 'paid' });
  expect(paidAtOnce.status).toBe('paid');
  const later = await order();
  const taken = await takeQueued(h, QUEUE);
  expect(taken).toHaveLength(1); // the pending order made none
  const [{ id: eventId }] = await h.db.query<{ id: string }>(`SELECT id FROM events WHERE store_id = $1 AND type = 'order.paid'`, [h.store.id]);
  // Run, then run the same job again, as pg-boss would after the worker died between the commit and its acknowledgement.
  const [held] = taken;
  expect(await runJob(h, QUEUE, [held])).toEqual([expect.objectContaining({ status: 'completed' })]);
  expect(await runJob(h, QUEUE, [held])).toEqual([expect.objectContaining({ status: 'completed' })]);
  expect(await points()).toEqual([{ order_id: paidAtOnce.id, points: 25, lines: 1, event_id: eventId }]);

  expect((await h.call('PATCH', `/orders/${later.id}`, { status: 'paid' })).status).toBe(200);
  expect((await h.call('PATCH', `/orders/${later.id}`, { status: 'fulfilled' })).status).toBe(200); // already paid: no second reaction
  const queued = await takeQueued(h, QUEUE);
  expect(queued).toHaveLength(1);
  // Two workers hold the same job at once (a lost heartbeat): still one application.
  await Promise.all([runJob(h, QUEUE, queued), runJob(h, QUEUE, queued)]);
  expect((await points()).map((r) => r.order_id).sort()).toEqual([paidAtOnce.id, later.id].sort());

  const listed = await jobs();
  expect(listed.filter((j) => j.type === 'fixture_points.on:order.paid').map((j) => j.status)).toEqual(['succeeded', 'succeeded']);
});

test('a pending order moved straight to completed became paid: one reaction', async () => {
  const { h, order, points } = await world();
  const o = await order();
  await h.call('PATCH', `/orders/${o.id}`, { status: 'completed' });
  await runJob(h, QUEUE, await takeQueued(h, QUEUE));
  expect((await points()).map((r) => r.order_id)).toEqual([o.id]);
});

test('a failing reaction is retried with its work rolled back, then applied once; one that keeps failing is failed, logged and listed by name', async () => {
  const { h, order, points, jobs } = await world();
  await order({ status: 'paid' });
  const [held] = await takeQueued(h, QUEUE);
  reactionFaults.failures = 1;
  expect((await runJob(h, QUEUE, [held]))![0].status).toBe('failed');
  expect(await points()).toEqual([]); // its insert rolled back with it
  let [listed] = await jobs();
  // The client sees that it failed and will be retried, never the internal error's text (the log has it).
  expect(listed).toMatchObject({ type: 'fixture_points.on:order.paid', status: 'queued', error: { code: 'api_error' } });
  expect(listed.error.message).not.toContain('points service');
  expect((await runJob(h, QUEUE, [{ ...held, retryCount: 1 }]))![0].status).toBe('completed');
  expect(await points()).toHaveLength(1);
  [listed] = await jobs();
  expect(listed.status).toBe('succeeded');

  await order({ status: 'paid' });
  const [next] = await takeQueued(h, QUEUE);
  reactionFaults.failures = 99;
  const lines: string[] = [];
  const log = createLogger({ sink: (l) => void lines.push(l) });
  expect((await runJob(h, QUEUE, [{ ...next, retryCount: 5 }], { retryLimit: 5, log }))![0].status).toBe('failed');
  // The log names it and keeps the error the client does not see.
  expect(lines.map((l) => JSON.parse(l))).toContainEqual(
    expect.objectContaining({ level: 'error', msg: 'job fixture_points.on:order.paid failed', error: 'the points service fell over' }),
  );
  [listed] = await jobs();
  expect(listed).toMatchObject({ type: 'fixture_points.on:order.paid', status: 'failed', error: { code: 'api_error' } });
  expect((await h.call('GET', '/jobs?status=failed')).body.data.map((j: any) => j.id)).toEqual([listed.id]);
  expect(await points()).toHaveLength(1);
});
