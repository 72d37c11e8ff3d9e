/** delete_customer is erasure (GDPR art. 17 / CCPA): personal data scrubbed, the row kept for the books, customer.deleted. */
import { describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

const full = (email: string) => ({
  email,
  first_name: 'Ada',
  last_name: 'Lovelace',
  phone: '+44 20 7946 0958',
  accepts_marketing: true,
  tags: ['vip'],
  metadata: { crm_id: '42' },
  addresses: [{ name: 'Ada Lovelace', line1: '12 St James Sq', city: 'London', country: 'GB' }],
});

async function customer(h: Harness, email = `ada.${crypto.randomUUID().slice(0, 8)}@example.com`) {
  const r = await h.call('POST', '/customers', full(email));
  expect(r.status).toBe(201);
  return r.body;
}

/** The stored row itself: what erasure must have scrubbed, whatever the API shows. */
const storedRow = async (h: Harness, id: string) => (await h.db.query('SELECT * FROM customers WHERE id = $1', [id]))[0];

describe('erasing a customer', () => {
  test('DELETE answers the id only; the customer is then gone from get, list, update, enrich and a second delete (404)', async () => {
    const h = await setup();
    const c = await customer(h);
    const r = await h.call('DELETE', `/customers/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ object: 'customer', id: c.id, deleted: true });
    for (const [method, path, body] of [
      ['GET', `/customers/${c.id}`],
      ['PATCH', `/customers/${c.id}`, { first_name: 'Back' }],
      ['POST', `/customers/${c.id}/enrich`, {}],
      ['DELETE', `/customers/${c.id}`],
    ] as const) {
      const gone = await h.call(method, path, body);
      expect(gone.status).toBe(404);
      expect(gone.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    }
    expect((await h.call('GET', '/customers?limit=100')).body.data.map((x: any) => x.id)).not.toContain(c.id);
    expect((await h.call('GET', `/customers?email=${encodeURIComponent(c.email)}`)).body.data).toEqual([]);
  });

  test('every personal field is scrubbed from the stored row, which stays, marked erased', async () => {
    const h = await setup();
    const c = await customer(h);
    await h.call('POST', `/customers/${c.id}/enrich`, {});
    h.clock.advance(60_000);
    await h.call('DELETE', `/customers/${c.id}`);
    const row = await storedRow(h, c.id);
    expect(row).toMatchObject({
      email: null,
      first_name: null,
      last_name: null,
      phone: null,
      accepts_marketing: false,
      tags: [],
      metadata: {},
      addresses: [],
      enrichment: null,
    });
    expect(new Date(row.erased_at).toISOString()).toBe(h.clock.now().toISOString());
    // Nothing of the person survives anywhere in the row.
    const text = JSON.stringify(row);
    for (const pii of ['Ada', 'Lovelace', c.email, '4420', 'St James', 'crm_id', 'vip']) expect(text).not.toContain(pii);
  });

  test('orders keep pointing at the erased customer, for the books', async () => {
    const h = await setup();
    const c = await customer(h);
    const p = (await h.call('POST', '/products', product({ stock_quantity: 5 }))).body;
    const order = (await h.call('POST', '/orders', { customer_id: c.id, line_items: [{ product_id: p.id, quantity: 2 }] })).body;
    expect((await h.call('DELETE', `/customers/${c.id}`)).status).toBe(200);
    const after = await h.call('GET', `/orders/${order.id}`);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ id: order.id, customer_id: c.id, total: order.total });
    expect((await storedRow(h, c.id)).id).toBe(c.id);
  });

  test('the erased email is free: a new customer may register with it and is a different customer', async () => {
    const h = await setup();
    const c = await customer(h, 'Returning@Example.com');
    await h.call('DELETE', `/customers/${c.id}`);
    const again = await h.call('POST', '/customers', { email: 'returning@example.com' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(c.id);
    expect(again.body).toMatchObject({ first_name: null, metadata: {}, addresses: [] });
  });

  test('parallel erasures of one customer: exactly one 200, every other 404, one customer.deleted', async () => {
    const h = await setup();
    expect((await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/svc', events: ['customer.deleted'] })).status).toBe(201);
    const c = await customer(h);
    const answers = await Promise.all(Array.from({ length: 8 }, () => h.call('DELETE', `/customers/${c.id}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404, 404, 404, 404, 404, 404, 404]);
    const events = await h.db.query<{ body: string }>("SELECT body FROM events WHERE store_id = $1 AND type = 'customer.deleted'", [h.store.id]);
    expect(events.length).toBe(1);
  });

  test('customer.deleted is a subscribable event carrying the id only, no personal data', async () => {
    const h = await setup();
    expect((await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/svc', events: ['customer.deleted'] })).status).toBe(201);
    const c = await customer(h);
    await h.call('DELETE', `/customers/${c.id}`);
    const [row] = await h.db.query<{ body: string }>("SELECT body FROM events WHERE store_id = $1 AND type = 'customer.deleted'", [h.store.id]);
    const event = JSON.parse(row.body);
    expect(event).toMatchObject({ type: 'customer.deleted', data: { object: 'customer', id: c.id, deleted: true } });
    expect(row.body).not.toContain(c.email);
  });

  test("erasure needs a write scope; another store's customer is 404 and stays intact", async () => {
    const h = await setup();
    const c = await customer(h);
    const readOnly = await h.newKey(['customers:read']);
    const denied = await h.call('DELETE', `/customers/${c.id}`, undefined, { 'x-api-key': readOnly });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
    const other = await setup();
    expect((await other.call('DELETE', `/customers/${c.id}`)).status).toBe(404);
    expect((await h.call('GET', `/customers/${c.id}`)).body.email).toBe(c.email);
  });
});
