import { describe, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { mkProduct } from '../../test/kit/inventory';

const address = { name: 'Ada Lovelace', line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' };

describe('checkout engine through the REST channel', () => {
  test('a session prices its lines, says what is missing, and completes into an api order', async () => {
    const h = await setup();
    const p = await mkProduct(h, { pricing_data: { retail: 10 }, stock_quantity: 5 });
    const made = await h.call('POST', '/checkout/sessions', { line_items: [{ item_id: p.id, quantity: 2 }] });
    expect(made.body.error?.message ?? made.status).toBe(201);
    expect(made.body).toMatchObject({ status: 'incomplete', totals: { subtotal: 20, total: 20 } });
    expect(made.body.messages.map((m: any) => m.path)).toEqual(['$.buyer.email', '$.shipping_address']);
    const ready = await h.call('PATCH', `/checkout/sessions/${made.body.id}`, { buyer: { email: 'ada@example.com' }, shipping_address: address });
    expect(ready.body.status).toBe('ready_for_complete');
    const done = await h.call('POST', `/checkout/sessions/${made.body.id}/complete`, {});
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    const order = (await h.call('GET', `/orders/${done.body.order_id}`)).body;
    expect(order).toMatchObject({ status: 'pending', channel: 'api', total: 20 });
    expect(order.agent.protocol).toBe('api');
    const again = await h.call('POST', `/checkout/sessions/${made.body.id}/complete`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('checkout_session_completed');
  });
});
