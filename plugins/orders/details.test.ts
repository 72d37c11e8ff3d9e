/** Orders (issue 21): addresses and notes kept as given, cancel reason, metadata, list filters. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

const ADDRESS = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  line2: 'Apt 2',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
  phone: '+1 217 555 0100',
};

let h: Harness;
let productId: string;
beforeAll(async () => {
  h = await setup();
  productId = (await h.call('POST', '/products', product({ stock_quantity: 1000 }))).body.id;
});

const place = async (extra: Record<string, unknown> = {}) => {
  const r = await h.call('POST', '/orders', { line_items: [{ product_id: productId, quantity: 1 }], ...extra });
  expect(r.status).toBe(201);
  return r.body;
};

describe('addresses and notes', () => {
  test('shipping and billing addresses, customer and merchant notes are kept as given and shown', async () => {
    const billing = { line1: '9 Rue de Rivoli', city: 'Paris', postal_code: '75001', country: 'FR' };
    const o = await place({ shipping_address: ADDRESS, billing_address: billing, customer_note: 'Leave at the door', merchant_note: 'VIP' });
    expect(o).toMatchObject({
      shipping_address: ADDRESS,
      billing_address: billing,
      customer_note: 'Leave at the door',
      merchant_note: 'VIP',
      cancel_reason: null,
    });
    expect((await h.call('GET', `/orders/${o.id}`)).body).toEqual(o);
    const bare = await place();
    expect(bare).toMatchObject({
      shipping_address: null,
      billing_address: null,
      customer_note: null,
      merchant_note: null,
      metadata: {},
      amount_refunded: 0,
      refunds: [],
    });
  });

  test('a snapshot: the customer changing (or erasing) their address later leaves the order as it was', async () => {
    const c = (
      await h.call('POST', '/customers', {
        email: `snap-${crypto.randomUUID()}@example.com`,
        addresses: [{ line1: '1 Main St', city: 'Springfield', country: 'US' }],
      })
    ).body;
    const o = await place({ customer_id: c.id, shipping_address: ADDRESS });
    expect((await h.call('PATCH', `/customers/${c.id}`, { addresses: [{ line1: '5 Elm St', city: 'Shelbyville', country: 'US' }] })).status).toBe(
      200,
    );
    expect((await h.call('GET', `/orders/${o.id}`)).body.shipping_address).toEqual(ADDRESS);
    expect((await h.call('DELETE', `/customers/${c.id}`)).status).toBe(200);
    expect((await h.call('GET', `/orders/${o.id}`)).body.shipping_address).toEqual(ADDRESS);
  });

  test('addresses are validated, each failure a 400 naming the field, and nothing is placed', async () => {
    const before = (await h.call('GET', `/products/${productId}`)).body.stock_quantity;
    const cases: [Record<string, unknown>, string][] = [
      [{ shipping_address: { ...ADDRESS, country: 'XX' } }, 'shipping_address.country'],
      [{ shipping_address: { ...ADDRESS, country: 'us' } }, 'shipping_address.country'],
      [{ billing_address: { ...ADDRESS, country: 'USA' } }, 'billing_address.country'],
      [{ shipping_address: { ...ADDRESS, line1: undefined } }, 'shipping_address.line1'],
      [{ shipping_address: { ...ADDRESS, city: '' } }, 'shipping_address.city'],
      [{ shipping_address: { ...ADDRESS, phone: '555-0100' } }, 'shipping_address.phone'],
      [{ shipping_address: { ...ADDRESS, postal_code: '627;01' } }, 'shipping_address.postal_code'],
      [{ shipping_address: { ...ADDRESS, street: 'x' } }, 'shipping_address.street'],
      [{ customer_note: 'x'.repeat(5001) }, 'customer_note'],
    ];
    for (const [extra, param] of cases) {
      const r = await h.call('POST', '/orders', { line_items: [{ product_id: productId, quantity: 1 }], ...extra });
      expect(r.status, param).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', param });
    }
    expect((await h.call('GET', `/products/${productId}`)).body.stock_quantity).toBe(before);
  });

  test('PATCH sets, keeps and clears addresses and notes, and emits order.updated', async () => {
    expect((await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/svc', events: ['order.updated'] })).status).toBe(201);
    const o = await place({ shipping_address: ADDRESS, customer_note: 'ring twice' });
    const r = await h.call('PATCH', `/orders/${o.id}`, {
      merchant_note: 'called the customer',
      billing_address: { line1: '2 Side St', city: 'Berlin', country: 'DE' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      shipping_address: ADDRESS,
      customer_note: 'ring twice',
      merchant_note: 'called the customer',
      billing_address: { country: 'DE' },
    });
    const cleared = await h.call('PATCH', `/orders/${o.id}`, { shipping_address: null, customer_note: null });
    expect(cleared.body).toMatchObject({ shipping_address: null, customer_note: null, merchant_note: 'called the customer' });
    const bad = await h.call('PATCH', `/orders/${o.id}`, { billing_address: { line1: 'x', city: 'y', country: 'ZZ' } });
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'billing_address.country' });
    const events = await h.db.query<{ body: string }>("SELECT body FROM events WHERE store_id = $1 AND type = 'order.updated'", [h.store.id]);
    expect(events.filter((e) => JSON.parse(e.body).data.id === o.id).length).toBe(2);
  });

  test('cancel takes an optional reason, kept as cancel_reason; without one it is null', async () => {
    const o = await place();
    const r = await h.call('POST', `/orders/${o.id}/cancel`, { reason: 'customer changed their mind' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'cancelled', cancel_reason: 'customer changed their mind' });
    expect((await h.call('GET', `/orders/${o.id}`)).body.cancel_reason).toBe('customer changed their mind');
    const plain = await place();
    expect((await h.call('POST', `/orders/${plain.id}/cancel`)).body.cancel_reason).toBeNull();
    const bad = await h.call('POST', `/orders/${(await place()).id}/cancel`, { reason: '' });
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'reason' });
  });
});

describe('metadata', () => {
  test('Stripe rules: set on create, merged on update, "" removes a key, limits named', async () => {
    const o = await place({ metadata: { channel: 'pos', till: '4' } });
    expect(o.metadata).toEqual({ channel: 'pos', till: '4' });
    const r = await h.call('PATCH', `/orders/${o.id}`, { metadata: { till: '', clerk: 'ann' } });
    expect(r.body.metadata).toEqual({ channel: 'pos', clerk: 'ann' });
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect((await h.call('POST', '/orders', { line_items: [{ product_id: productId, quantity: 1 }], metadata: tooMany })).body.error.param).toBe(
      'metadata',
    );
    expect((await h.call('PATCH', `/orders/${o.id}`, { metadata: { ['k'.repeat(41)]: 'v' } })).body.error.param).toBe('metadata');
    expect((await h.call('PATCH', `/orders/${o.id}`, { metadata: { k: 'v'.repeat(501) } })).body.error).toMatchObject({ code: 'validation_failed' });
  });
});

describe('list filters', () => {
  let fresh: Harness;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    fresh = await setup();
    const p = (await fresh.call('POST', '/products', product({ stock_quantity: 100 }))).body.id;
    const order = async (name: string, status: string[], extra: Record<string, unknown> = {}) => {
      const r = await fresh.call('POST', '/orders', { line_items: [{ product_id: p, quantity: 1 }], ...extra });
      for (const s of status) await fresh.call('PATCH', `/orders/${r.body.id}`, { status: s });
      ids[name] = r.body.id;
      return r.body;
    };
    await order('pending', [], { metadata: { channel: 'web' } });
    fresh.clock.advance(24 * 3600 * 1000);
    await order('paid', ['paid'], { metadata: { channel: 'pos' } });
    fresh.clock.advance(24 * 3600 * 1000);
    await order('fulfilled', ['paid', 'fulfilled'], { metadata: { channel: 'pos', till: '2' } });
    await order('cancelled', ['cancelled']);
  });
  const listed = async (query: string) => {
    const r = await fresh.call('GET', `/orders?${query}`);
    expect(r.status, query).toBe(200);
    return (r.body.data as { id: string }[]).map((o) => Object.entries(ids).find(([, id]) => id === o.id)![0]).sort();
  };

  test('status takes several, comma-separated; an unknown one is 400 naming status', async () => {
    expect(await listed('status=paid')).toEqual(['paid']);
    expect(await listed('status=paid,fulfilled')).toEqual(['fulfilled', 'paid']);
    const bad = await fresh.call('GET', '/orders?status=paid,shipped');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ param: 'status' });
    expect(bad.body.error.message).toContain('separated by commas');
  });

  test('q finds an order by its number, with or without #', async () => {
    const o = (await fresh.call('GET', `/orders/${ids.paid}`)).body;
    expect(await listed(`q=${o.order_number}`)).toEqual(['paid']);
    expect(await listed(`q=%23${o.order_number}`)).toEqual(['paid']);
    expect(await listed('q=999999')).toEqual([]);
  });

  test('metadata[key]=value: every pair must match', async () => {
    expect(await listed('metadata[channel]=pos')).toEqual(['fulfilled', 'paid']);
    expect(await listed('metadata[channel]=pos&metadata[till]=2')).toEqual(['fulfilled']);
    expect(await listed('metadata[channel]=none')).toEqual([]);
  });

  test('created[gte]/[lte] bound the placing time; a malformed bound is 400 naming created.gte', async () => {
    expect(await listed('created[gte]=2026-04-02')).toEqual(['cancelled', 'fulfilled', 'paid']);
    expect(await listed('created[lte]=2026-04-02T12:00:00Z')).toEqual(['paid', 'pending']);
    expect(await listed('created[gte]=2026-04-02&created[lte]=2026-04-02T12:00:00Z&status=paid,pending')).toEqual(['paid']);
    const bad = await fresh.call('GET', '/orders?created[gte]=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('created.gte');
  });

  test('filters combine with customer_id and cursor pagination', async () => {
    const page1 = await fresh.call('GET', '/orders?status=paid,fulfilled,cancelled&limit=2');
    expect(page1.body.has_more).toBe(true);
    const page2 = await fresh.call('GET', `/orders?status=paid,fulfilled,cancelled&limit=2&starting_after=${page1.body.data[1].id}`);
    expect(page2.body.data.length).toBe(1);
    expect(page2.body.has_more).toBe(false);
    expect(await listed(`customer_id=${crypto.randomUUID()}&status=paid`)).toEqual([]);
  });
});
