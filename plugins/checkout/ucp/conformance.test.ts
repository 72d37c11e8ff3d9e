/**
 * The official UCP conformance checks (Universal-Commerce-Protocol/conformance: checkout_lifecycle,
 * business_logic, idempotency, protocol), ported to svc with its fake agent. Where the suite
 * accepts any non-200 the port names the status svc answers; where it disagrees with the
 * 2026-04-08 text (a business outcome is 200 with messages), the spec wins. Every UCP answer is
 * validated against the vendored schemas.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { runCron } from '../../../test/kit/jobs';
import { ADDRESS, BUYER, cart, enableUcp, item, MANUAL, ucpWorld, type UcpWorld } from '../../../test/kit/ucp';
import { fakeAgent } from '../../../test/kit/ucp-agent';
import { expectUcp } from '../../../test/kit/ucp-schemas';

let w: UcpWorld;
let p: string;
beforeAll(async () => {
  w = await ucpWorld();
  p = await item(w.h, { stock_quantity: 1000 });
});
afterAll(() => w.stop());

const CO = '/ucp/v1/checkout-sessions';
const ready = () => ({ ...cart({ id: p }), buyer: BUYER, fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS] }] } });
async function session(body: object = ready()) {
  const r = await w.ucp('POST', CO, body);
  expect(r.status).toBe(201);
  return expectUcp('checkout', r.body);
}
const total = (c: any) => c.totals.find((t: any) => t.type === 'total').amount;

describe('checkout lifecycle', () => {
  test('create, get, update, cancel: each answers the session, cancel leaves it canceled', async () => {
    const c = await session(cart({ id: p }));
    const got = await w.ucp('GET', `${CO}/${c.id}`);
    expect(got.status).toBe(200);
    expect(expectUcp('checkout', got.body).id).toBe(c.id);
    const up = await w.ucp('PUT', `${CO}/${c.id}`, { id: c.id, ...cart({ id: p, quantity: 2 }) });
    expect(up.status).toBe(200);
    expect(expectUcp('checkout', up.body).line_items[0].quantity).toBe(2);
    const canceled = await w.ucp('POST', `${CO}/${c.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(expectUcp('checkout', canceled.body).status).toBe('canceled');
  });

  test('a canceled session takes no second cancel, no update and no completion (409)', async () => {
    const c = await session();
    await w.ucp('POST', `${CO}/${c.id}/cancel`);
    for (const [method, path, body] of [
      ['POST', `${CO}/${c.id}/cancel`, undefined],
      ['PUT', `${CO}/${c.id}`, ready()],
      ['POST', `${CO}/${c.id}/complete`, MANUAL],
    ] as const) {
      const r = await w.ucp(method, path, body);
      expect(r.status).toBe(409);
      expect(expectUcp('error', r.body).messages[0].code).toBe('checkout_canceled');
    }
  });

  test('completion gives an order with id and permalink; a completed session takes no second completion, update or cancel', async () => {
    const c = await session();
    const done = await w.ucp('POST', `${CO}/${c.id}/complete`, MANUAL);
    expect(done.status).toBe(200);
    const d = expectUcp('checkout', done.body);
    expect(d.status).toBe('completed');
    expect(d.order.permalink_url).toMatch(/^http:\/\/.+\/ucp\/v1\/orders\//);
    for (const [method, path, body] of [
      ['POST', `${CO}/${c.id}/complete`, MANUAL],
      ['PUT', `${CO}/${c.id}`, ready()],
      ['POST', `${CO}/${c.id}/cancel`, undefined],
    ] as const) {
      const r = await w.ucp(method, path, body);
      expect(r.status).toBe(409);
      expect(expectUcp('error', r.body).messages[0].code).toBe('checkout_completed');
    }
  });

  test('escalation: a store handing payment to its own page answers requires_escalation with continue_url and a requires_buyer_input message', async () => {
    const other = await ucpWorld();
    try {
      await enableUcp(other.h, other.host, {}, { adapter: 'manual', manual_mode: 'escalate', continue_url: 'https://shop.example.com/checkout' });
      const q = await item(other.h);
      const c = (await other.ucp('POST', CO, { ...cart({ id: q }), buyer: BUYER, fulfillment: { methods: [{ destinations: [ADDRESS] }] } })).body;
      const r = await other.ucp('POST', `${CO}/${c.id}/complete`, MANUAL);
      expect(r.status).toBe(200);
      const e = expectUcp('checkout', r.body);
      expect(e.status).toBe('requires_escalation');
      expect(e.continue_url).toBe('https://shop.example.com/checkout');
      expect(e.messages.some((m: any) => m.severity === 'requires_buyer_input')).toBe(true);
      expect(e.order).toBeUndefined();
    } finally {
      other.agent.stop();
    }
  });
});

describe('business logic', () => {
  test("totals come from the store's prices, whatever title or price the request carries", async () => {
    const c = await session({ line_items: [{ item: { id: p, title: 'Cheap', price: 1 }, quantity: 3 }] });
    expect(c.line_items[0].item).toMatchObject({ id: p, title: 'Widget', price: 2500 });
    expect(c.line_items[0].totals).toContainEqual({ type: 'total', amount: 7500 });
    expect(total(c)).toBe(7500);
    // Platforms check that every entry but total adds up to total before they complete.
    const sum = c.totals.filter((t: any) => t.type !== 'total').reduce((s: number, t: any) => s + t.amount, 0);
    expect(sum).toBe(total(c));
  });

  test('an update to quantity 2 prices 2 × the unit price', async () => {
    const c = await session(cart({ id: p }));
    const u = expectUcp('checkout', (await w.ucp('PUT', `${CO}/${c.id}`, cart({ id: p, quantity: 2 }))).body);
    expect(total(u)).toBe(5000);
  });

  test('discount codes: percent, fixed, both in the order given; an unknown one is left out with a warning', async () => {
    for (const body of [
      { code: 'UCP10OFF', percent_off: 10 },
      { code: 'UCPWELCOME20', percent_off: 20 },
      { code: 'UCPFIXED500', amount_off: 5, currency: 'USD' },
    ]) {
      const r = await w.h.call('POST', '/coupons', body);
      expect(r.status).toBe(201);
    }
    const base = cart({ id: p, quantity: 4 }); // 100.00
    const c = await session(base);
    const apply = async (codes: string[]) => expectUcp('checkout', (await w.ucp('PUT', `${CO}/${c.id}`, { ...base, discounts: { codes } })).body);
    const ten = await apply(['UCP10OFF']);
    expect(total(ten)).toBe(9000);
    expect(ten.discounts.applied).toEqual([{ code: 'UCP10OFF', title: 'UCP10OFF', amount: 1000 }]);
    expect(ten.totals).toContainEqual({ type: 'discount', amount: -1000 });
    const both = await apply(['UCP10OFF', 'UCPWELCOME20']);
    // 10% of 100.00, then 20% of the 90.00 left: 72.00.
    expect(total(both)).toBe(7200);
    expect(both.discounts.applied.map((a: any) => a.code)).toEqual(['UCP10OFF', 'UCPWELCOME20']);
    const fixed = await apply(['UCPFIXED500']);
    expect(total(fixed)).toBe(9500);
    const oneBad = await apply(['UCP10OFF', 'INVALID_CODE']);
    expect(total(oneBad)).toBe(9000);
    expect(oneBad.discounts).toMatchObject({ codes: ['UCP10OFF', 'INVALID_CODE'], applied: [{ code: 'UCP10OFF' }] });
    expect(oneBad.messages).toContainEqual(expect.objectContaining({ type: 'warning', code: 'discount_code_invalid', path: '$.discounts.codes[1]' }));
  });

  test('buyer details persist: an update sets them, a get answers them', async () => {
    const c = await session(cart({ id: p }));
    await w.ucp('PUT', `${CO}/${c.id}`, { ...cart({ id: p }), buyer: { email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee' } });
    const got = expectUcp('checkout', (await w.ucp('GET', `${CO}/${c.id}`)).body);
    expect(got.buyer).toEqual({ email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee' });
  });
});

describe('idempotency', () => {
  const replayTwice = async (method: string, path: string, body: unknown) => {
    const key = crypto.randomUUID();
    const first = await w.ucp(method, path, body, { idempotencyKey: key });
    const again = await w.ucp(method, path, body, { idempotencyKey: key });
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    return { key, first };
  };

  test('create replays its first answer (one session); the same key with another body is 409', async () => {
    const body = cart({ id: p });
    const { key, first } = await replayTwice('POST', CO, body);
    const conflict = await w.ucp('POST', CO, cart({ id: p, quantity: 3 }), { idempotencyKey: key });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ code: 'idempotency_conflict' });
    const sessions = await w.h.db.query('SELECT count(*)::int AS n FROM checkout_sessions WHERE id = $1', [first.body.id]);
    expect(sessions[0].n).toBe(1);
  });

  test('update, complete and cancel replay their first answers; complete makes one order', async () => {
    const c = await session();
    await replayTwice('PUT', `${CO}/${c.id}`, { ...ready(), buyer: { ...BUYER, first_name: 'Janet' } });
    const { key } = await replayTwice('POST', `${CO}/${c.id}/complete`, MANUAL);
    const changed = await w.ucp('POST', `${CO}/${c.id}/complete`, { payment: { instruments: [] } }, { idempotencyKey: key });
    expect(changed.status).toBe(409);
    const orders = await w.h.db.query(`SELECT count(*)::int AS n FROM orders WHERE store_id = $1 AND metadata->>'checkout_session_id' = $2`, [
      w.h.store.id,
      c.id,
    ]);
    expect(orders[0].n).toBe(1);
    const c2 = await session();
    await replayTwice('POST', `${CO}/${c2.id}/cancel`, undefined);
  });
});

test('idempotency records are kept 48 hours: the hourly sweep drops older ones, after which the key is new again', async () => {
  const key = crypto.randomUUID();
  const first = await w.ucp('POST', CO, cart({ id: p }), { idempotencyKey: key });
  w.h.clock.advance(47 * 3600_000);
  await runCron(w.h, 'checkout.ucp_prune_idempotency');
  expect((await w.ucp('POST', CO, cart({ id: p }), { idempotencyKey: key })).body.id).toBe(first.body.id);
  w.h.clock.advance(2 * 3600_000);
  await runCron(w.h, 'checkout.ucp_prune_idempotency');
  const again = await w.ucp('POST', CO, cart({ id: p }), { idempotencyKey: key });
  expect(again.status).toBe(201);
  expect(again.body.id).not.toBe(first.body.id);
});

describe('protocol', () => {
  test('discovery names the version, the capabilities and the payment handlers', async () => {
    const doc = expectUcp('business_profile', (await w.ucp('GET', '/.well-known/ucp', undefined, { sign: false })).body);
    expect(doc.ucp.version).toBe('2026-04-08');
    expect(doc.ucp.capabilities['dev.ucp.shopping.checkout'][0].version).toBe('2026-04-08');
    expect(Object.keys(doc.ucp.payment_handlers)).toEqual(['dev.svc.manual']);
  });

  test('an agent on another protocol version is 422 version_unsupported, and no session is made', async () => {
    const before = await w.h.db.query('SELECT count(*)::int AS n FROM checkout_sessions WHERE store_id = $1', [w.h.store.id]);
    const old = await fakeAgent();
    try {
      old.setVersion('2026-01-11');
      const r = await old.request(w.h.app, w.host, 'POST', CO, cart({ id: p }));
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: 'version_unsupported' });
      expect(r.body.content).toContain('2026-04-08');
    } finally {
      old.stop();
    }
    const after = await w.h.db.query('SELECT count(*)::int AS n FROM checkout_sessions WHERE store_id = $1', [w.h.store.id]);
    expect(after[0].n).toBe(before[0].n);
  });

  test('an agent whose profile lacks the checkout capability gets 200 capabilities_incompatible and no session; its extensions are pruned', async () => {
    const partial = await fakeAgent();
    try {
      partial.dropCapability('dev.ucp.shopping.checkout');
      const r = await partial.request(w.h.app, w.host, 'POST', CO, cart({ id: p }));
      expect(r.status).toBe(200);
      expect(expectUcp('error', r.body)).toMatchObject({
        ucp: { status: 'error' },
        messages: [{ code: 'capabilities_incompatible', severity: 'unrecoverable' }],
      });
    } finally {
      partial.stop();
    }
  });

  test("a checkout answer's ucp.capabilities are the negotiated ones of checkout (its extensions, not order or catalog)", async () => {
    const c = await session();
    expect(Object.keys(c.ucp.capabilities).sort()).toEqual([
      'dev.ucp.shopping.checkout',
      'dev.ucp.shopping.discount',
      'dev.ucp.shopping.fulfillment',
    ]);
  });
});
