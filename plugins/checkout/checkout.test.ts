import { describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';
import { mkProduct } from '../../test/kit/inventory';
import { backend } from '../../test/kit/db';

const address = { name: 'Ada Lovelace', line1: '1 Main St', city: 'Springfield', region: 'CA', postal_code: '90001', country: 'US' };
const open = (h: Harness, body: Record<string, unknown>, headers?: Record<string, string>) => h.call('POST', '/checkout/sessions', body, headers);
const patch = (h: Harness, id: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  h.call('PATCH', `/checkout/sessions/${id}`, body, headers);
const complete = (h: Harness, id: string, headers?: Record<string, string>) => h.call('POST', `/checkout/sessions/${id}/complete`, {}, headers);

describe('checkout engine (REST channel)', () => {
  test('a session prices its lines, says what is missing, and completes into an api order', async () => {
    const h = await setup();
    const p = await mkProduct(h, { pricing_data: { retail: 10 }, stock_quantity: 5 });
    const made = await open(h, { line_items: [{ item_id: p.id, quantity: 2 }] });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ status: 'incomplete', totals: { subtotal: 20, total: 20 } });
    expect(made.body.messages.map((m: any) => m.path)).toEqual(['$.buyer.email', '$.shipping_address']);
    const ready = await patch(h, made.body.id, { buyer: { email: 'ada@example.com' }, shipping_address: address });
    expect(ready.body.status).toBe('ready_for_complete');
    const done = await complete(h, made.body.id);
    expect(done.body.status).toBe('completed');
    const order = (await h.call('GET', `/orders/${done.body.order_id}`)).body;
    expect(order).toMatchObject({ status: 'pending', channel: 'api', total: 20, metadata: { buyer_email: 'ada@example.com' } });
    expect(order.agent.protocol).toBe('api');
    expect((await h.call('GET', `/products/${p.id}`)).body.stock_quantity).toBe(3);
    const again = await complete(h, made.body.id);
    expect([again.status, again.body.error.code]).toEqual([409, 'checkout_session_completed']);
    expect((await h.call('POST', `/checkout/sessions/${made.body.id}/cancel`, {})).status).toBe(409);
  });

  test('codes apply in order; one that does not apply is left out with a warning; tax and shipping add up', async () => {
    const h = await setup();
    const p = await mkProduct(h, { pricing_data: { retail: 100 }, stock_quantity: 5, weight_grams: 600 });
    await h.call('POST', '/coupons', { code: 'TENOFF', percent_off: 10 });
    await h.call('POST', '/coupons', { code: 'FIVE', amount_off: 5, currency: 'USD' });
    await h.call('POST', '/tax/rates', { name: 'CA', country: 'US', region: 'CA', percentage: 10 });
    const zone = await h.call('POST', '/shipping/zones', {
      name: 'US',
      countries: ['US'],
      methods: [
        {
          name: 'Standard',
          rate_type: 'by_weight',
          weight_rates: [
            { up_to_grams: 500, amount: 4 },
            { up_to_grams: 2000, amount: 8 },
          ],
          min_days: 2,
          max_days: 5,
        },
        { name: 'Express', rate_type: 'flat', amount: 20, min_days: 1, max_days: 1 },
      ],
    });
    expect(zone.status).toBe(201);
    const s = await open(h, {
      line_items: [{ item_id: p.id, quantity: 1 }],
      discount_codes: ['TENOFF', 'NOPE', 'FIVE'],
      buyer: { email: 'bo@example.com' },
      shipping_address: address,
    });
    expect(s.body.discounts).toEqual([
      { code: 'TENOFF', amount: 10 },
      { code: 'FIVE', amount: 5 },
    ]);
    expect(s.body.messages).toEqual([expect.objectContaining({ type: 'warning', code: 'discount_code_invalid', path: '$.discount_codes[1]' })]);
    // 600 g falls in the second band; the cheapest option is chosen when none is.
    expect(s.body.shipping_options.map((o: any) => [o.title, o.amount])).toEqual([
      ['Standard', 8],
      ['Express', 20],
    ]);
    expect(s.body.totals).toEqual({ subtotal: 100, discount: 15, tax: 8.5, shipping: 8, total: 101.5 });
    expect(s.body.status).toBe('ready_for_complete');
    const express = s.body.shipping_options[1].id;
    const chosen = await patch(h, s.body.id, { shipping_option_id: express });
    expect(chosen.body.totals.total).toBe(113.5);
    const done = await complete(h, s.body.id);
    const order = (await h.call('GET', `/orders/${done.body.order_id}`)).body;
    expect(order).toMatchObject({ total: 113.5, shipping_total: 20, shipping_method: 'Express', discount_total: 15, tax_total: 8.5 });
    expect(order.discounts.map((d: any) => d.code)).toEqual(['TENOFF', 'FIVE']);
  });

  test('an address no zone covers is region_restricted; a rest_of_world zone covers the others', async () => {
    const h = await setup();
    const p = await mkProduct(h, { pricing_data: { retail: 10 }, stock_quantity: 5 });
    await h.call('POST', '/shipping/zones', {
      name: 'US',
      countries: ['US'],
      methods: [{ name: 'Std', rate_type: 'flat', amount: 5, free_over_amount: 50 }],
    });
    const s = await open(h, {
      line_items: [{ item_id: p.id, quantity: 1 }],
      buyer: { email: 'a@example.com' },
      shipping_address: { ...address, country: 'FR', region: undefined },
    });
    expect(s.body.status).toBe('incomplete');
    expect(s.body.messages.map((m: any) => m.code)).toContain('region_restricted');
    const row = await h.call('POST', '/shipping/zones', {
      name: 'World',
      rest_of_world: true,
      methods: [{ name: 'Intl', rate_type: 'flat', amount: 25 }],
    });
    expect(row.status).toBe(201);
    const twice = await h.call('POST', '/shipping/zones', {
      name: 'World 2',
      rest_of_world: true,
      methods: [{ name: 'Intl', rate_type: 'flat', amount: 25 }],
    });
    expect(twice.body.error.code).toBe('rest_of_world_zone_exists');
    const again = await patch(h, s.body.id, { line_items: [{ item_id: p.id, quantity: 5 }] });
    expect(again.body.totals.shipping).toBe(25);
    // Free over 50 at home.
    const home = await patch(h, s.body.id, { shipping_address: address });
    expect(home.body.totals.shipping).toBe(0);
  });

  test('an unknown item is 404 here (a message in the protocols); short stock is a message, checked on every update', async () => {
    const h = await setup();
    const p = await mkProduct(h, { pricing_data: { retail: 10 }, stock_quantity: 2 });
    const unknown = await open(h, {
      line_items: [
        { item_id: p.id, quantity: 1 },
        { item_id: crypto.randomUUID(), quantity: 1 },
      ],
    });
    expect([unknown.status, unknown.body.error.param]).toEqual([404, 'line_items.1.item_id']);
    const s = await open(h, { line_items: [{ item_id: p.id, quantity: 3 }], buyer: { email: 'a@example.com' }, shipping_address: address });
    expect(s.status).toBe(201);
    expect(s.body.messages.map((m: any) => [m.code, m.path])).toEqual([['out_of_stock', '$.line_items[0]']]);
    const fixed = await patch(h, s.body.id, { line_items: [{ item_id: p.id, quantity: 2 }] });
    expect(fixed.body.status).toBe('ready_for_complete');
    // Someone else buys one: the next update says so, and completion makes no order.
    await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] });
    const done = await complete(h, s.body.id);
    expect(done.body.status).toBe('incomplete');
    expect(done.body.order_id).toBeNull();
    expect(done.body.messages[0]).toMatchObject({ code: 'out_of_stock', path: '$.line_items[0]' });
  });

  test('a variable product is bought by its variant id', async () => {
    const h = await setup();
    const made = await h.call('POST', '/products', {
      name: 'Tee',
      type: 'variable',
      pricing_data: { retail: 20 },
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: { Size: 'S' }, stock_quantity: 3, price: 18, weight_grams: 200 },
        { options: { Size: 'M' }, stock_quantity: 3 },
      ],
    });
    expect(made.status).toBe(201);
    const v = made.body.variants[0];
    const s = await open(h, { line_items: [{ item_id: v.id, quantity: 2 }], buyer: { email: 'a@example.com' }, shipping_address: address });
    expect(s.body.line_items[0]).toMatchObject({ product_id: made.body.id, variant_id: v.id, title: 'Tee (S)', unit_price: 18, weight_grams: 200 });
    const done = await complete(h, s.body.id);
    const order = (await h.call('GET', `/orders/${done.body.order_id}`)).body;
    expect(order.line_items[0]).toMatchObject({ variant_id: v.id, quantity: 2 });
  });

  test('sessions expire after the TTL: read as canceled, take no change', async () => {
    const h = await setup({ env: { SVC_CHECKOUT_SESSION_TTL_SECONDS: '5' } });
    const p = await mkProduct(h, { stock_quantity: 2 });
    const s = await open(h, { line_items: [{ item_id: p.id, quantity: 1 }] });
    expect(new Date(s.body.expires_at).getTime() - new Date(s.body.created_at).getTime()).toBe(5000);
    h.clock.advance(6000);
    const read = await h.call('GET', `/checkout/sessions/${s.body.id}`);
    expect(read.body).toMatchObject({ status: 'canceled', messages: [{ code: 'expired' }] });
    const change = await patch(h, s.body.id, { buyer: { email: 'a@example.com' } });
    expect([change.status, change.body.error.code]).toEqual([409, 'checkout_session_expired']);
  });

  test("the REST channel's sessions are the store's; another store's id is 404; the checkout scope opens nothing else", async () => {
    const h = await setup();
    const other = await setup();
    const p = await mkProduct(h, { stock_quantity: 2 });
    const agentA = { 'x-api-key': await h.newKey(['checkout']) };
    const agentB = { 'x-api-key': await h.newKey(['checkout']) };
    const s = await open(h, { line_items: [{ item_id: p.id, quantity: 1 }] }, agentA);
    expect(s.status).toBe(201);
    expect((await h.call('GET', `/checkout/sessions/${s.body.id}`, undefined, agentB)).status).toBe(200);
    expect((await other.call('GET', `/checkout/sessions/${s.body.id}`)).status).toBe(404);
    expect((await h.call('GET', '/orders', undefined, agentA)).status).toBe(403);
    // Another store's product cannot be put in a cart.
    const theirs = await mkProduct(other, { stock_quantity: 2 });
    const t = await open(h, { line_items: [{ item_id: theirs.id, quantity: 1 }] }, agentA);
    expect([t.status, t.body.error.param]).toEqual([404, 'line_items.0.item_id']);
  });

  test.skipIf(backend !== 'postgres')(
    'on PostgreSQL (skipped on the embedded database: it runs one transaction at a time): 50 agents racing for the last 5 units make exactly 5 orders',
    async () => {
      const h = await setup();
      const p = await mkProduct(h, { pricing_data: { retail: 10 }, stock_quantity: 5 });
      const ids: string[] = [];
      for (let i = 0; i < 50; i++)
        ids.push(
          (await open(h, { line_items: [{ item_id: p.id, quantity: 1 }], buyer: { email: `a${i}@example.com` }, shipping_address: address })).body.id,
        );
      const results = await Promise.all(ids.map((id) => complete(h, id)));
      expect(results.every((r) => r.status === 200)).toBe(true);
      const done = results.filter((r) => r.body.status === 'completed');
      expect(done.length).toBe(5);
      expect(results.filter((r) => r.body.messages.some((m: any) => m.code === 'out_of_stock')).length).toBe(45);
      expect((await h.call('GET', `/products/${p.id}`)).body.stock_quantity).toBe(0);
      const orders = await h.db.query("SELECT count(*)::int AS n FROM orders WHERE store_id = $1 AND channel = 'api'", [h.store.id]);
      expect(Number(orders[0].n)).toBe(5);
    },
  );

  test('checkout.completed carries the order', async () => {
    const h = await setup();
    await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/c', events: ['checkout.completed'] });
    const p = await mkProduct(h, { stock_quantity: 2 });
    const s = await open(h, { line_items: [{ item_id: p.id, quantity: 1 }], buyer: { email: 'a@example.com' }, shipping_address: address });
    const done = await complete(h, s.body.id);
    const rows = await h.db.query("SELECT body FROM events WHERE store_id = $1 AND type = 'checkout.completed'", [h.store.id]);
    expect(rows.map((e: any) => JSON.parse(e.body).data.id)).toEqual([done.body.order_id]);
  });
});
