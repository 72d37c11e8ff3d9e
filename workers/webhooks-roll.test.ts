/**
 * Rolling a signing secret, as the receiver sees it (a real HTTPS receiver, the `standardwebhooks`
 * package): during the overlap window a delivery verifies with the old secret and with the new;
 * after it, with the new only. The SPEC 6.1 headers always carry the new secret's signature.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Harness } from '../test/kit/setup';
import {
  deliverPending,
  prepareWebhookTests,
  deliveryIds,
  hooked,
  placeOrder,
  run,
  standardSignature,
  verifyPlain,
  verifySpec,
  verifyStandard,
  type Receiver,
} from '../test/kit/webhooks';
import { writeEvents } from '../core/events/outbox';
import { runMaintenance } from './maintenance';

const receivers: Receiver[] = [];
beforeAll(prepareWebhookTests, 120_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

const HOUR = 3600_000;
const roll = async (h: Harness, id: string, body: Record<string, unknown> = {}) => {
  const r = await h.call('POST', `/webhooks/${id}/roll-secret`, body);
  expect(r.status).toBe(200);
  return r.body.signing_secret as string;
};
const ping = async (h: Harness, id: string) => {
  await h.call('POST', `/webhooks/${id}/test`);
  await deliverPending(h);
};

describe('the overlap window', () => {
  test('before a roll one signature; during the window both secrets verify (standardwebhooks), SPEC headers use the new; after it only the new', async () => {
    const { h, rx, ep } = await hooked(receivers);
    const old = ep.signing_secret;
    await ping(h, ep.id);
    expect(rx.received[0].headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verifyStandard(rx.received[0], old)).toBe(true);

    const fresh = await roll(h, ep.id, { expires_in_hours: 2 });
    h.clock.advance(2 * HOUR - 1000);
    await ping(h, ep.id);
    const during = rx.received[1];
    expect(verifyStandard(during, old)).toBe(true);
    expect(verifyStandard(during, fresh)).toBe(true);
    // New first, then the replaced one, space-separated (Standard Webhooks).
    expect(during.headers['webhook-signature']).toBe(`${standardSignature(during, fresh)} ${standardSignature(during, old)}`);
    expect(verifySpec(during, fresh)).toBe(true);
    expect(verifyPlain(during, fresh)).toBe(true);
    expect(verifySpec(during, old)).toBe(false);
    expect(verifyPlain(during, old)).toBe(false);

    h.clock.advance(1000); // the window has ended (its end is exclusive)
    await ping(h, ep.id);
    const after = rx.received[2];
    expect(after.headers['webhook-signature']).toBe(standardSignature(after, fresh));
    expect(verifyStandard(after, fresh)).toBe(true);
    expect(verifyStandard(after, old)).toBe(false);
    expect(verifySpec(after, fresh)).toBe(true);
  });

  test('a retry of a delivery queued before the roll is signed with both secrets at its attempt', async () => {
    const { h, rx, ep } = await hooked(receivers, { respond: (_r, n) => (n === 1 ? 500 : 200) });
    await placeOrder(h);
    const [id] = await deliveryIds(h);
    expect((await run(h, id)).outcome).toBe('retrying');
    const fresh = await roll(h, ep.id);
    h.clock.advance(30_000);
    expect((await run(h, id)).outcome).toBe('succeeded');
    expect(rx.received[0].raw).toBe(rx.received[1].raw);
    expect(verifyStandard(rx.received[0], fresh)).toBe(false);
    expect(verifyStandard(rx.received[1], fresh)).toBe(true);
    expect(verifyStandard(rx.received[1], ep.signing_secret)).toBe(true);
  });

  test('expires_in_hours: 0 signs with the new secret only, from the next attempt', async () => {
    const { h, rx, ep } = await hooked(receivers);
    const fresh = await roll(h, ep.id, { expires_in_hours: 0 });
    await ping(h, ep.id);
    const [r] = rx.received;
    expect(r.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(verifyStandard(r, fresh)).toBe(true);
    expect(verifyStandard(r, ep.signing_secret)).toBe(false);
  });

  test('rolling again within a window: the newest and the one it replaced sign; the first is gone', async () => {
    const { h, rx, ep } = await hooked(receivers);
    const second = await roll(h, ep.id);
    const third = await roll(h, ep.id);
    await ping(h, ep.id);
    const [r] = rx.received;
    expect(r.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyStandard(r, third)).toBe(true);
    expect(verifyStandard(r, second)).toBe(true);
    expect(verifyStandard(r, ep.signing_secret)).toBe(false);
    expect(verifySpec(r, third)).toBe(true);
  });

  test('caller-supplied (raw) secrets roll too, and a plain secret from before sealing keeps signing through its window', async () => {
    const { h, rx, ep } = await hooked(receivers, { body: { secret: 'receiver-own-secret-0001' } });
    await h.db.query(`UPDATE webhook_endpoints SET secret = 'legacy-plain-secret-0002', sealed_secret = NULL WHERE id = $1`, [ep.id]);
    const fresh = await roll(h, ep.id, { secret: 'receiver-own-secret-0003' });
    await ping(h, ep.id);
    const [r] = rx.received;
    expect(verifyStandard(r, 'legacy-plain-secret-0002')).toBe(true);
    expect(verifyStandard(r, fresh)).toBe(true);
    expect(verifySpec(r, 'receiver-own-secret-0003')).toBe(true);
  });

  test('maintenance forgets the replaced secret once its window has passed, not before', async () => {
    const { h, ep } = await hooked(receivers);
    await roll(h, ep.id, { expires_in_hours: 1 });
    const previous = async () => (await h.db.query('SELECT previous_sealed_secret AS s FROM webhook_endpoints WHERE id = $1', [ep.id]))[0].s;
    h.clock.advance(HOUR - 1000);
    await runMaintenance(h.db, h.clock);
    expect(await previous()).toMatch(/^v1:/);
    h.clock.advance(1000);
    await runMaintenance(h.db, h.clock);
    expect(await previous()).toBeNull();
  });
});

describe('a roll racing deliveries', () => {
  test('every delivery is signed consistently: one secret S for all SPEC headers, and webhook-signature is S (plus the secret S replaced)', async () => {
    // A receiver taking a moment per request, so deliveries are still being claimed and sent while each roll commits.
    const { h, rx, ep } = await hooked(receivers, { respond: () => new Promise((r) => setTimeout(() => r(200), 10)) });
    const N = 24;
    const events = Array.from({ length: N }, () => ({
      type: 'order.created',
      data: { object: 'order', id: crypto.randomUUID() },
      at: h.clock.now(),
    }));
    await h.db.transaction((tx) => writeEvents(tx, h.store.id, events));
    const ids = await deliveryIds(h, 'pending');
    expect(ids).toHaveLength(N);
    // Three workers deliver the queue; meanwhile the rolls run one after another (so the order of
    // secrets is known), each once a few more deliveries have arrived.
    const issued = [ep.signing_secret as string];
    const rolling = (async () => {
      for (let i = 1; i <= 5; i++) {
        await rx.waitFor(i * 3);
        issued.push(await roll(h, ep.id));
      }
    })();
    const queue = [...ids];
    const worker = async () => {
      const outcomes = [];
      for (let id = queue.shift(); id; id = queue.shift()) outcomes.push((await run(h, id)).outcome);
      return outcomes;
    };
    const outcomes = (await Promise.all([worker(), worker(), worker()])).flat();
    await rolling;
    expect(outcomes).toEqual(Array(N).fill('succeeded'));
    expect(rx.received).toHaveLength(N);
    const used = new Set<number>();
    for (const r of rx.received) {
      const k = issued.findIndex((s) => verifySpec(r, s));
      expect(k).toBeGreaterThanOrEqual(0);
      expect(verifyPlain(r, issued[k])).toBe(true);
      const expected = k === 0 ? standardSignature(r, issued[0]) : `${standardSignature(r, issued[k])} ${standardSignature(r, issued[k - 1])}`;
      expect(r.headers['webhook-signature']).toBe(expected);
      used.add(k);
    }
    // The race was real: deliveries went out under several of the secrets.
    expect(used.size).toBeGreaterThan(2);
    // After the last roll: the last two issued secrets sign.
    await ping(h, ep.id);
    const last = rx.received.at(-1)!;
    expect(verifyStandard(last, issued[5])).toBe(true);
    expect(verifyStandard(last, issued[4])).toBe(true);
    expect(verifyStandard(last, issued[3])).toBe(false);
  }, 30_000);
});
