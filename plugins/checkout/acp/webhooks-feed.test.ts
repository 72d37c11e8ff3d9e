import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { mkProduct } from '../../../test/kit/inventory';
import { runCron, runJob, takeQueued } from '../../../test/kit/jobs';
import { acpErrors, acpStore } from '../../../test/kit/acp';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import feedSchema from './spec/schema.feed.json';

const received: { headers: Headers; body: string }[] = [];
let status = 200;
const receiver = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(r) {
    received.push({ headers: r.headers, body: await r.text() });
    return Response.json({ received: true }, { status });
  },
});
const saved = process.env.SVC_EGRESS_ALLOW;
beforeAll(() => void (process.env.SVC_EGRESS_ALLOW = '127.0.0.1'));
afterAll(() => {
  receiver.stop(true);
  if (saved === undefined) delete process.env.SVC_EGRESS_ALLOW;
  else process.env.SVC_EGRESS_ALLOW = saved;
});

const address = { name: 'Jo', line_one: '1 Main St', city: 'Austin', state: 'TX', country: 'US', postal_code: '73301' };

describe('ACP order webhooks and the product feed', () => {
  test('a completed ACP checkout and its later changes reach the agent signed Merchant-Signature; a refused delivery is retried', async () => {
    const s = await acpStore();
    const secret = 'whsec_acp_test_secret';
    await s.h.call('PATCH', '/agentic', { acp: { webhook_url: `http://127.0.0.1:${receiver.port}/orders`, webhook_secret: secret } });
    const p = await mkProduct(s.h, { stock_quantity: 3 });
    const made = await s.acp('POST', '/acp/checkout_sessions', {
      line_items: [{ id: p.id }],
      buyer: { email: 'jo@example.com' },
      fulfillment_details: { name: 'Jo', address },
    });
    const done = await s.acp('POST', `/acp/checkout_sessions/${made.body.id}/complete`, {
      payment_data: { handler_id: 'manual', instrument: { type: 'card', credential: { type: 'spt', token: 'spt_1' } } },
    });
    expect(done.body.status).toBe('completed');
    const queued = await takeQueued({ ...s.h, store: s.h.store }, 'checkout.acp_order_created');
    expect(queued).toHaveLength(1);
    const before = received.length;
    status = 503;
    const [refused] = (await runJob(s.h, 'checkout.acp_order_created', queued))!;
    expect(refused.status).not.toBe('completed');
    status = 200;
    // pg-boss tries the job again; this time the agent takes it.
    const [retried] = (await runJob(
      s.h,
      'checkout.acp_order_created',
      queued.map((j) => ({ ...j, retryCount: 1 })),
    ))!;
    expect(retried.status).toBe('completed');
    await s.h.call('PATCH', `/orders/${done.body.order.id}`, { status: 'paid' });
    await runJob(s.h, 'checkout.on', await takeQueued({ ...s.h, store: s.h.store }, 'checkout.on'));
    const sent = received.slice(before);
    expect(sent.map((r) => JSON.parse(r.body).type)).toEqual(['order_create', 'order_create', 'order_update']);
    for (const hit of sent) {
      const [t, v1] = hit.headers.get('merchant-signature')!.split(',');
      expect(v1).toBe(
        `v1=${createHmac('sha256', secret)
          .update(`${t.slice(2)}.${hit.body}`)
          .digest('hex')}`,
      );
    }
    const body = JSON.parse(sent[2].body);
    expect(body.data).toMatchObject({ type: 'order', id: done.body.order.id, checkout_session_id: made.body.id, status: 'confirmed' });
    expect(acpErrors('Order', body.data)).toEqual([]);
  });

  test('orders of other channels send nothing', async () => {
    const s = await acpStore();
    await s.h.call('PATCH', '/agentic', { acp: { webhook_url: `http://127.0.0.1:${receiver.port}/orders`, webhook_secret: 'whsec_other_12345' } });
    const p = await mkProduct(s.h, { stock_quantity: 3 });
    const before = received.length;
    const o = await s.h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] });
    await s.h.call('PATCH', `/orders/${o.body.id}`, { status: 'paid' });
    await runJob(s.h, 'checkout.on', await takeQueued({ ...s.h, store: s.h.store }, 'checkout.on'));
    expect(received.length).toBe(before);
  });

  test('the feed export: a download in the ACP feed format, and the daily job keeps a snapshot', async () => {
    const s = await acpStore();
    await mkProduct(s.h, { name: 'Mug', pricing_data: { retail: 12.5, compare_at: 15 }, stock_quantity: 3, description: 'A mug.' });
    await s.h.call('POST', '/products', {
      name: 'Tee',
      type: 'variable',
      pricing_data: { retail: 20 },
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { options: { Size: 'S' }, stock_quantity: 0 },
        { options: { Size: 'M' }, stock_quantity: 2 },
      ],
    });
    const r = await s.h.call('GET', '/checkout/feed');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/jsonl');
    const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
    const products = text
      .trim()
      .split('\n')
      .map((l: string) => JSON.parse(l));
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema(feedSchema as object, 'feed');
    const check = ajv.getSchema('feed#/$defs/Product')!;
    for (const p of products) expect(check(p) ? [] : check.errors).toEqual([]);
    expect(products.map((p: any) => p.title)).toEqual(['Mug', 'Tee']);
    expect(products[0].variants[0]).toMatchObject({
      price: { amount: 1250, currency: 'USD' },
      list_price: { amount: 1500 },
      availability: { available: true },
    });
    expect(products[1].variants.map((v: any) => v.availability.status)).toEqual(['out_of_stock', 'in_stock']);
    await runCron(s.h, 'checkout.export_feeds');
    const [snap] = await s.h.db.query('SELECT products FROM checkout_feeds WHERE store_id = $1', [s.h.store.id]);
    expect(Number(snap.products)).toBe(2);
  });
});
