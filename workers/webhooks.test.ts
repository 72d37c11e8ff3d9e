/**
 * Webhook delivery (SPEC 6.1) against a real HTTPS receiver on 127.0.0.1. deliver() is called
 * directly with the harness's manual clock, so the retry schedule is walked without waiting.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { product, setup, withoutStandingListeners, type Harness } from '../test/kit/setup';
import { SecretBox } from '../core/secrets';
import { deliveryOptions, startReceiver, type Received, type Responder } from '../test/kit/webhook-receiver';
import { prepareWebhookTests } from '../test/kit/webhooks';
import { deliver } from './webhooks';
import { purgeWebhookLog, RETRY_DELAYS_S } from './webhook-state';

const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
beforeAll(prepareWebhookTests, 120_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A harness with a receiver and an endpoint subscribed to `events` pointing at it. */
async function hooked(opts: { events?: string[]; respond?: Responder; secret?: string; now?: string } = {}) {
  // Without the audit trail, which stores every event for every store: these tests read the outbox's own rule.
  const h = await setup({ now: opts.now, plugins: withoutStandingListeners });
  const rx = await startReceiver(opts.respond);
  receivers.push(rx);
  const res = await h.call('POST', '/webhooks', {
    url: rx.url(),
    events: opts.events ?? ['order.created'],
    ...(opts.secret ? { secret: opts.secret } : {}),
  });
  expect(res.status).toBe(201);
  return { h, rx, ep: res.body };
}

const run = (h: Harness, id: string, attempt?: number) => deliver(h.db, h.clock, id, deliveryOptions(), attempt);

async function placeOrder(h: Harness) {
  const p = (await h.call('POST', '/products', product({ stock_quantity: 100 }))).body;
  return (await h.call('POST', '/orders', { payment_method: 'card', line_items: [{ product_id: p.id, quantity: 1 }] })).body;
}

async function deliveryIds(h: Harness, status?: string) {
  const rows = await h.db.query<{ id: string }>(
    `SELECT id FROM webhook_deliveries WHERE store_id = $1 ${status ? 'AND status = $2' : ''} ORDER BY seq`,
    status ? [h.store.id, status] : [h.store.id],
  );
  return rows.map((r) => r.id);
}

const log = async (h: Harness, endpointId: string) => (await h.call('GET', `/webhooks/${endpointId}/deliveries?limit=100`)).body.data;
const endpointNow = async (h: Harness, id: string) => (await h.call('GET', `/webhooks/${id}`)).body;

/** Receiver-side checks, as a receiver would write them: recompute over the raw body, compare in constant time. */
function sameDigest(expectedHex: string, givenHex: string) {
  const a = Buffer.from(expectedHex, 'utf8');
  const b = Buffer.from(givenHex, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
const verifySpec = (r: Received, secret: string) =>
  sameDigest(`sha256=${createHmac('sha256', secret).update(r.raw).digest('hex')}`, r.headers['x-webhook-signature'] ?? '');
const verifyPlain = (r: Received, secret: string) =>
  sameDigest(createHmac('sha256', secret).update(r.raw).digest('hex'), r.headers['x-svc-signature'] ?? '');

describe('signed deliveries', () => {
  test('the test ping arrives signed: SPEC headers, and both signature variants verify over the raw body', async () => {
    const { h, rx, ep } = await hooked();
    const queued = await h.call('POST', `/webhooks/${ep.id}/test`);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ object: 'webhook_delivery', endpoint_id: ep.id, event_type: 'webhook.test', status: 'pending', attempt: 0 });
    expect((await run(h, queued.body.id)).outcome).toBe('succeeded');
    const [r] = rx.received;
    expect(r.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'svc-Webhook/1.0',
      'x-webhook-event': 'webhook.test',
      'x-webhook-delivery-id': queued.body.id,
      'x-webhook-timestamp': String(Date.parse('2026-04-01T00:00:00Z') / 1000),
      'webhook-id': r.body.id,
      'webhook-timestamp': String(Date.parse('2026-04-01T00:00:00Z') / 1000),
    });
    expect(r.body).toMatchObject({
      object: 'event',
      type: 'webhook.test',
      created_at: '2026-04-01T00:00:00.000Z',
      data: { object: 'outbound_webhook_endpoint', id: ep.id },
    });
    expect(r.raw).not.toContain(ep.signing_secret);
    expect(verifySpec(r, ep.signing_secret)).toBe(true);
    expect(verifyPlain(r, ep.signing_secret)).toBe(true);
    expect(verifySpec(r, 'whsec_wrong')).toBe(false);
    expect(verifySpec({ ...r, raw: r.raw.replace('webhook.test', 'webhook.tesT') }, ep.signing_secret)).toBe(false);
    const [entry] = await log(h, ep.id);
    expect(entry).toMatchObject({ status: 'succeeded', attempt: 1, status_code: 200, response: 'ok', error: null, next_retry_at: null });
    expect(entry.attempts).toEqual([
      {
        object: 'webhook_delivery_attempt',
        attempt: 1,
        succeeded: true,
        status_code: 200,
        duration_ms: expect.any(Number),
        response: 'ok',
        error: null,
        created_at: '2026-04-01T00:00:00.000Z',
      },
    ]);
    expect(await endpointNow(h, ep.id)).toMatchObject({ total_delivered: 1, total_failed: 0 });
  });

  test('the standardwebhooks package verifies a real delivery (generated and caller-supplied secrets)', async () => {
    const now = new Date().toISOString(); // the library checks the timestamp against real time
    const { h, rx, ep } = await hooked({ now });
    const order = await placeOrder(h);
    await run(h, (await deliveryIds(h))[0]);
    const [r] = rx.received;
    expect(new Webhook(ep.signing_secret).verify(r.raw, r.headers)).toEqual(r.body);
    expect(r.body.data.id).toBe(order.id);
    expect(() => new Webhook(ep.signing_secret).verify(r.raw.replace('"pending"', '"paid"'), r.headers)).toThrow();

    const own = await hooked({ now, secret: 'my-receiver-secret-1234' });
    await own.h.call('POST', `/webhooks/${own.ep.id}/test`);
    await run(own.h, (await deliveryIds(own.h))[0]);
    const [o] = own.rx.received;
    expect(new Webhook('my-receiver-secret-1234', { format: 'raw' }).verify(o.raw, o.headers)).toEqual(o.body);
    expect(verifySpec(o, 'my-receiver-secret-1234')).toBe(true);
  });

  test('signing secrets are sealed at rest; one stored in plain text before still signs; a foreign key fails the attempt, sending nothing', async () => {
    const { h, rx, ep } = await hooked({ secret: 'at-rest-canary-secret-5678' });
    const [stored] = await h.db.query('SELECT secret, sealed_secret FROM webhook_endpoints WHERE id = $1', [ep.id]);
    expect(stored.secret).toBeNull();
    expect(stored.sealed_secret).not.toContain('at-rest-canary-secret-5678');
    await h.call('POST', `/webhooks/${ep.id}/test`);
    await run(h, (await deliveryIds(h))[0]);
    expect(verifySpec(rx.received[0], 'at-rest-canary-secret-5678')).toBe(true);

    // A row from before sealing: the plain secret, nothing sealed.
    await h.db.query(`UPDATE webhook_endpoints SET secret = 'legacy-plain-secret-1234', sealed_secret = NULL WHERE id = $1`, [ep.id]);
    await h.call('POST', `/webhooks/${ep.id}/test`);
    await run(h, (await deliveryIds(h, 'pending'))[0]);
    expect(verifySpec(rx.received[1], 'legacy-plain-secret-1234')).toBe(true);

    // Sealed under another key (SVC_SECRET_KEY changed): the attempt fails with the reason.
    const other = new SecretBox(new Uint8Array(32).fill(9));
    await h.db.query('UPDATE webhook_endpoints SET secret = NULL, sealed_secret = $2 WHERE id = $1', [ep.id, other.seal('whatever')]);
    await h.call('POST', `/webhooks/${ep.id}/test`);
    await run(h, (await deliveryIds(h, 'pending'))[0]);
    expect(rx.received).toHaveLength(2);
    expect((await log(h, ep.id))[0]).toMatchObject({ status_code: null, error: expect.stringContaining('SVC_SECRET_KEY') });
  });

  test('the response kept in the log is at most 500 characters', async () => {
    const { h, ep } = await hooked({ respond: () => ({ status: 200, body: 'x'.repeat(3000) }) });
    await h.call('POST', `/webhooks/${ep.id}/test`);
    await run(h, (await deliveryIds(h))[0]);
    expect((await log(h, ep.id))[0].response).toHaveLength(500);
  });
});

describe('retries (30 s, 2 m, 10 m, 1 h, 6 h) on the clock', () => {
  test('a failing delivery is retried on the schedule, each retry a pg-boss job due then, and fails after the fifth retry', async () => {
    const { h, rx, ep } = await hooked({ respond: () => 500 });
    await placeOrder(h);
    const [id] = await deliveryIds(h);
    for (let i = 0; i <= RETRY_DELAYS_S.length; i++) {
      const t = h.clock.now();
      const r = await run(h, id, i);
      if (i === RETRY_DELAYS_S.length) {
        expect(r).toEqual({ outcome: 'failed', disabled: false, nextRetryAt: null });
        break;
      }
      expect(r.outcome).toBe('retrying');
      expect(r.nextRetryAt!.getTime() - t.getTime()).toBe(RETRY_DELAYS_S[i] * 1000);
      const [entry] = await log(h, ep.id);
      expect(entry).toMatchObject({ status: 'pending', attempt: i + 1, status_code: 500, next_retry_at: r.nextRetryAt!.toISOString() });
      // The follow-up job: for the next attempt, due the delay after it was written (database time).
      const [job] = await h.db.query(
        `SELECT extract(epoch FROM start_after - created_on)::float AS delay FROM pgboss.job
         WHERE name = 'core.webhooks' AND data->>'delivery_id' = $1 AND (data->>'attempt')::int = $2`,
        [id, i + 1],
      );
      expect(Math.abs(job.delay - RETRY_DELAYS_S[i])).toBeLessThan(1);
      h.clock.set(r.nextRetryAt!);
    }
    const [entry] = await log(h, ep.id);
    expect(entry).toMatchObject({ status: 'failed', attempt: 6, next_retry_at: null, error: 'The endpoint answered 500.' });
    expect(entry.attempts.map((a: any) => a.succeeded)).toEqual([false, false, false, false, false, false]);
    expect(rx.received).toHaveLength(6);
    expect(new Set(rx.received.map((r) => r.raw)).size).toBe(1); // the same bytes every time
    expect(new Set(rx.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(await endpointNow(h, ep.id)).toMatchObject({ total_delivered: 0, total_failed: 1, is_active: true });
  });

  test('a receiver failing twice then succeeding gets exactly one success logged after two failures', async () => {
    const { h, rx, ep } = await hooked({ respond: (_r, n) => (n <= 2 ? 503 : 204) });
    await placeOrder(h);
    const [id] = await deliveryIds(h);
    expect((await run(h, id)).outcome).toBe('retrying');
    h.clock.advance(30_000);
    expect((await run(h, id)).outcome).toBe('retrying');
    h.clock.advance(120_000);
    expect((await run(h, id)).outcome).toBe('succeeded');
    expect((await run(h, id)).outcome).toBe('skipped'); // nothing left to do
    const [entry] = await log(h, ep.id);
    expect(entry.status).toBe('succeeded');
    expect(entry.attempts.map((a: any) => [a.attempt, a.succeeded, a.status_code])).toEqual([
      [1, false, 503],
      [2, false, 503],
      [3, true, 204],
    ]);
    expect(rx.received).toHaveLength(3);
    expect(await endpointNow(h, ep.id)).toMatchObject({ total_delivered: 1, total_failed: 0 });
  });

  test('a job for an attempt already made (a duplicate, or one voided by a resend) does nothing', async () => {
    const { h, rx } = await hooked();
    await placeOrder(h);
    const [id] = await deliveryIds(h);
    expect((await run(h, id, 3)).outcome).toBe('skipped');
    expect((await run(h, id, 0)).outcome).toBe('succeeded');
    expect((await run(h, id, 0)).outcome).toBe('skipped');
    expect(rx.received).toHaveLength(1);
  });

  test('a redirect is not followed and counts as a failure; so does a refused connection', async () => {
    const { h, rx, ep } = await hooked({ respond: () => ({ status: 302, headers: { location: '/elsewhere' } }) });
    await placeOrder(h);
    expect((await run(h, (await deliveryIds(h))[0])).outcome).toBe('retrying');
    expect(rx.received.map((r) => r.path)).toEqual(['/hook']);
    expect((await log(h, ep.id))[0]).toMatchObject({ status_code: 302, error: 'The endpoint answered 302.' });

    await h.call('PATCH', `/webhooks/${ep.id}`, { url: 'https://localhost:1/closed' });
    await placeOrder(h);
    const [newest] = await log(h, ep.id);
    expect((await run(h, newest.id)).outcome).toBe('retrying');
    const [after] = await log(h, ep.id);
    expect(after).toMatchObject({ status: 'pending', status_code: null });
    expect(after.error).toContain('failed');
  });
});

describe('endpoint health', () => {
  test('a 410 answer disables the endpoint at once; events stop being stored; PATCH re-enables it', async () => {
    const { h, rx, ep } = await hooked({ respond: () => 410 });
    await placeOrder(h);
    await placeOrder(h);
    const [first, second] = await deliveryIds(h);
    expect(await run(h, first)).toEqual({ outcome: 'failed', disabled: true, nextRetryAt: null });
    expect(await endpointNow(h, ep.id)).toMatchObject({ is_active: false, disabled_reason: 'The endpoint answered 410 Gone.', total_failed: 1 });
    // Queued before the 410: failed without a request.
    expect((await run(h, second)).outcome).toBe('failed');
    expect(rx.received).toHaveLength(1);
    const events = async () => (await h.db.query('SELECT count(*)::int AS n FROM events WHERE store_id = $1', [h.store.id]))[0].n;
    const before = await events();
    await placeOrder(h);
    expect(await events()).toBe(before);

    expect((await h.call('PATCH', `/webhooks/${ep.id}`, { is_active: true })).body).toMatchObject({ is_active: true, disabled_reason: null });
    await placeOrder(h);
    expect(await events()).toBe(before + 1);
  });

  test('an endpoint whose deliveries all failed for 5 days in a row is disabled; any success resets the count', async () => {
    const day = 24 * 3600_000;
    const { h, rx, ep } = await hooked({ respond: () => 500 });
    const attemptNewest = async () => {
      await placeOrder(h);
      const ids = await deliveryIds(h, 'pending');
      return run(h, ids[ids.length - 1]);
    };
    expect((await attemptNewest()).disabled).toBe(false); // day 0: failing since now
    h.clock.advance(3 * day);
    rx.respond(() => 200);
    expect((await attemptNewest()).outcome).toBe('succeeded'); // day 3: healthy again
    rx.respond(() => 500);
    h.clock.advance(day);
    expect((await attemptNewest()).disabled).toBe(false); // day 4: failing since day 4
    h.clock.advance(4 * day);
    expect((await attemptNewest()).disabled).toBe(false); // day 8: 4 days of failures
    h.clock.advance(day);
    expect((await attemptNewest()).disabled).toBe(true); // day 9: 5 days
    expect(await endpointNow(h, ep.id)).toMatchObject({ is_active: false, disabled_reason: 'Every delivery failed for 5 days.' });
  });
});

describe('resend and replay', () => {
  async function failAll(h: Harness) {
    for (const id of await deliveryIds(h, 'pending')) for (let i = 0; i <= RETRY_DELAYS_S.length; i++) await run(h, id);
  }

  test('resend sends one delivery again with a fresh schedule, continuing its attempt log', async () => {
    const { h, rx, ep } = await hooked({ respond: () => 500 });
    await placeOrder(h);
    await failAll(h);
    const [failed] = await log(h, ep.id);
    expect(failed.status).toBe('failed');
    rx.respond(() => 200);
    const r = await h.call('POST', `/webhooks/${ep.id}/deliveries/${failed.id}/resend`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: failed.id, status: 'pending', attempt: 6 });
    const [job] = await h.db.query(
      `SELECT data FROM pgboss.job WHERE name = 'core.webhooks' AND data->>'delivery_id' = $1 AND (data->>'attempt')::int = 6`,
      [failed.id],
    );
    expect(job.data).toEqual({ delivery_id: failed.id, attempt: 6 });
    expect((await run(h, failed.id, 6)).outcome).toBe('succeeded');
    const [entry] = await log(h, ep.id);
    expect(entry).toMatchObject({ status: 'succeeded', attempt: 7 });
    expect(entry.attempts.at(-1)).toMatchObject({ attempt: 7, succeeded: true });
    expect(await endpointNow(h, ep.id)).toMatchObject({ total_delivered: 1, total_failed: 1 });
    expect((await h.call('POST', `/webhooks/${ep.id}/deliveries/${crypto.randomUUID()}/resend`)).status).toBe(404);
  });

  test('replay-failed sends every failed delivery of the endpoint again', async () => {
    const { h, rx, ep } = await hooked({ respond: () => 500 });
    const orders = [await placeOrder(h), await placeOrder(h), await placeOrder(h)];
    await failAll(h);
    rx.respond(() => 200);
    const seen = rx.received.length;
    const r = await h.call('POST', `/webhooks/${ep.id}/replay-failed`);
    expect(r.body).toEqual({ object: 'webhook_replay', endpoint_id: ep.id, replayed: 3 });
    for (const id of await deliveryIds(h, 'pending')) expect((await run(h, id)).outcome).toBe('succeeded');
    expect(
      rx.received
        .slice(seen)
        .map((x) => x.body.data.id)
        .sort(),
    ).toEqual(orders.map((o) => o.id).sort());
    expect((await h.call('POST', `/webhooks/${ep.id}/replay-failed`)).body.replayed).toBe(0);
    expect((await h.call('GET', `/webhooks/${ep.id}/deliveries?status=succeeded`)).body.data).toHaveLength(3);
  });
});

describe('retention', () => {
  test('maintenance forgets events (and their log) after 30 days, but never one still pending', async () => {
    const { h } = await hooked();
    await placeOrder(h);
    await placeOrder(h);
    const [done, pending] = await deliveryIds(h);
    await run(h, done);
    h.clock.advance(31 * 24 * 3600_000);
    await purgeWebhookLog(h.db, h.clock);
    expect(await deliveryIds(h)).toEqual([pending]);
    expect((await h.db.query('SELECT count(*)::int AS n FROM events WHERE store_id = $1', [h.store.id]))[0].n).toBe(1);
  });
});
