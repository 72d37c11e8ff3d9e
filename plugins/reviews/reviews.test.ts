import { describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { product as newProduct, setup, withoutStandingListeners, type Harness } from '../../test/kit/setup';

const product = async (h: Harness) => (await h.call('POST', '/products', newProduct())).body.id as string;
const review = async (h: Harness, product_id: string, rating: number, extra: object = {}) => {
  const r = await h.call('POST', '/reviews', { product_id, rating, body: 'Nice.', author_name: 'Ada', ...extra });
  expect(r.status).toBe(201);
  return r.body;
};

describe('reviews', () => {
  test('a key holding only catalog scopes can write, moderate, answer, list and summarise reviews', async () => {
    const h = await setup();
    const p = await product(h);
    const key = await h.newKey(['catalog:read', 'catalog:write']);
    const as = { 'x-api-key': key };
    const made = await h.call('POST', '/reviews', { product_id: p, rating: 5, body: 'Great.', author_name: 'Bo' }, as);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: 'review', product_id: p, rating: 5, status: 'pending', response: null });
    expect((await h.call('POST', `/reviews/${made.body.id}/approve`, {}, as)).body.status).toBe('approved');
    expect((await h.call('POST', `/reviews/${made.body.id}/respond`, { body: 'Thanks!' }, as)).body.response.body).toBe('Thanks!');
    expect((await h.call('GET', `/reviews?product_id=${p}`, undefined, as)).body.data.map((r: any) => r.id)).toEqual([made.body.id]);
    expect((await h.call('GET', `/reviews/summary?product_id=${p}`, undefined, as)).body).toMatchObject({ review_count: 1, average_rating: 5 });
    // The products plugin is reached as the reviews plugin, not with the key's scopes: products itself stays closed.
    expect((await h.call('GET', `/products/${p}`, undefined, as)).status).toBe(403);
  });

  test('a review of an unknown, deleted or other store product is 404 naming product_id', async () => {
    const h = await setup();
    const other = await setup();
    const deleted = await product(h);
    expect((await h.call('DELETE', `/products/${deleted}`)).status).toBe(200);
    for (const product_id of [crypto.randomUUID(), deleted, await product(other)]) {
      const r = await h.call('POST', '/reviews', { product_id, rating: 3, body: 'Hm.', author_name: 'Cy' });
      expect(r.status).toBe(404);
      expect(r.body.error).toMatchObject({ code: 'resource_missing', param: 'product_id' });
      const s = await h.call('GET', `/reviews/summary?product_id=${product_id}`);
      expect(s.status).toBe(404);
      expect(s.body.error.param).toBe('product_id');
    }
  });

  test('moderation is one final decision: pending becomes approved or rejected, a second decision is 409', async () => {
    const h = await setup();
    const p = await product(h);
    const a = await review(h, p, 4);
    const b = await review(h, p, 1);
    expect((await h.call('POST', `/reviews/${a.id}/approve`, {})).body).toMatchObject({ status: 'approved' });
    expect((await h.call('POST', `/reviews/${b.id}/reject`, {})).body).toMatchObject({ status: 'rejected' });
    for (const [id, verb] of [
      [a.id, 'reject'],
      [b.id, 'approve'],
      [a.id, 'approve'],
    ]) {
      const again = await h.call('POST', `/reviews/${id}/${verb}`, {});
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('review_already_moderated');
    }
    expect((await h.call('GET', '/reviews?status=pending')).body.data).toEqual([]);
    expect((await h.call('GET', '/reviews?status=rejected')).body.data.map((r: any) => r.id)).toEqual([b.id]);
  });

  test('a response replaces the earlier one; a rejected review takes none', async () => {
    const h = await setup();
    const p = await product(h);
    const r = await review(h, p, 2);
    await h.call('POST', `/reviews/${r.id}/respond`, { body: 'Sorry about that.' });
    h.clock.advance(60_000);
    const second = await h.call('POST', `/reviews/${r.id}/respond`, { body: 'We sent a replacement.' });
    expect(second.body.response.body).toBe('We sent a replacement.');
    expect(second.body.status).toBe('pending');
    const rejected = await review(h, p, 1);
    await h.call('POST', `/reviews/${rejected.id}/reject`, {});
    const refused = await h.call('POST', `/reviews/${rejected.id}/respond`, { body: 'Hello?' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('review_rejected');
  });

  test('the summary counts approved reviews only, per star, with the mean to 2 decimals', async () => {
    const h = await setup();
    const p = await product(h);
    const empty = await h.call('GET', `/reviews/summary?product_id=${p}`);
    expect(empty.body).toEqual({
      object: 'review_summary',
      product_id: p,
      review_count: 0,
      average_rating: null,
      ratings: { '1': 0, '2': 0, '3': 0, '4': 0, '5': 0 },
      pending_count: 0,
    });
    for (const rating of [5, 4, 4]) await h.call('POST', `/reviews/${(await review(h, p, rating)).id}/approve`, {});
    await h.call('POST', `/reviews/${(await review(h, p, 1)).id}/reject`, {});
    await review(h, p, 2); // pending
    await review(h, await product(h), 1); // another product
    const s = (await h.call('GET', `/reviews/summary?product_id=${p}`)).body;
    expect(s).toMatchObject({ review_count: 3, average_rating: 4.33, ratings: { '1': 0, '2': 0, '3': 0, '4': 2, '5': 1 }, pending_count: 1 });
  });

  test('invalid ratings are 400 naming rating', async () => {
    const h = await setup();
    const p = await product(h);
    for (const rating of [0, 6, 4.5]) {
      const r = await h.call('POST', '/reviews', { product_id: p, rating, body: 'x', author_name: 'x' });
      expect(r.status).toBe(400);
      expect(r.body.error.param).toBe('rating');
    }
  });

  test('events are stored only for a store with a subscriber: the moderation trail reaches an endpoint', async () => {
    // Without the audit trail, which hears every type (and so stores every event).
    const h = await setup({ plugins: withoutStandingListeners });
    const p = await product(h);
    const stored = async () =>
      (await h.db.query<{ body: string }>('SELECT body FROM events WHERE store_id = $1 ORDER BY created_at, type', [h.store.id])).map((r) =>
        JSON.parse(r.body),
      );
    await review(h, p, 5);
    expect(await stored()).toEqual([]); // nobody listens: nothing is kept
    const hook = await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/reviews', events: ['review.created', 'review.approved'] });
    expect(hook.status).toBe(201);
    const r = await review(h, p, 4);
    h.clock.advance(1000);
    const approved = (await h.call('POST', `/reviews/${r.id}/approve`, {})).body;
    await h.call('POST', `/reviews/${r.id}/respond`, { body: 'Thanks' }); // review.responded: not subscribed
    expect((await stored()).map((e) => [e.type, e.data])).toEqual([
      ['review.created', r],
      ['review.approved', approved],
    ]);
  });
});

describe('verified purchases', () => {
  const customer = async (h: Harness) =>
    (await h.call('POST', '/customers', { email: `r${crypto.randomUUID().slice(0, 8)}@example.com` })).body.id as string;
  const order = async (h: Harness, customer_id: string, product_id: string, status?: string) => {
    const o = (await h.call('POST', '/orders', { customer_id, line_items: [{ product_id, quantity: 1 }] })).body;
    for (const s of status === 'fulfilled' ? ['paid', 'fulfilled'] : status ? [status] : []) await h.call('PATCH', `/orders/${o.id}`, { status: s });
    return o;
  };

  test('a review with the customer_id of a buyer (paid, fulfilled or completed order) is a verified purchase; pending, cancelled or no order is not', async () => {
    const h = await setup();
    const p = await product(h);
    const cases: [string | undefined, boolean][] = [
      ['paid', true],
      ['fulfilled', true],
      ['completed', true],
      [undefined, false],
      ['cancelled', false],
    ];
    for (const [status, verified] of cases) {
      const c = await customer(h);
      await order(h, c, p, status);
      expect({ status, verified: (await review(h, p, 4, { customer_id: c })).verified_purchase }).toEqual({ status, verified });
    }
    // Another product bought, or no customer given: not verified.
    const c = await customer(h);
    await order(h, c, await product(h), 'paid');
    expect(await review(h, p, 3, { customer_id: c })).toMatchObject({ customer_id: c, verified_purchase: false });
    expect(await review(h, p, 3)).toMatchObject({ customer_id: null, verified_purchase: false });
    const listed = (await h.call('GET', `/reviews?product_id=${p}&verified_purchase=true`)).body.data;
    expect(listed.length).toBe(3);
    expect(listed.every((r: any) => r.verified_purchase)).toBe(true);
  });

  test("another store's customer is 404 naming customer_id; a catalog-only key still writes a verified review", async () => {
    const h = await setup();
    const other = await setup();
    const p = await product(h);
    const r = await h.call('POST', '/reviews', { product_id: p, rating: 5, body: 'x', author_name: 'A', customer_id: await customer(other) });
    expect({ status: r.status, param: r.body.error.param }).toEqual({ status: 404, param: 'customer_id' });
    const c = await customer(h);
    await order(h, c, p, 'paid');
    const as = { 'x-api-key': await h.newKey(['catalog:write']) };
    const made = await h.call('POST', '/reviews', { product_id: p, rating: 5, body: 'x', author_name: 'A', customer_id: c }, as);
    expect(made.body).toMatchObject({ customer_id: c, verified_purchase: true });
  });

  test('over MCP: reviews tool lists a verified review', async () => {
    const h = await setup();
    const p = await product(h);
    const c = await customer(h);
    await order(h, c, p, 'paid');
    const made = await review(h, p, 5, { customer_id: c });
    const { client } = await mcpClient(h);
    const out: any = await client.callTool({ name: 'reviews', arguments: { action: 'list_reviews', verified_purchase: true } });
    await client.close();
    expect(JSON.parse(out.content[0].text).data.map((r: any) => r.id)).toEqual([made.id]);
  });
});
