/** What the orders tests share: products and orders made through the API, and the lifecycle written out. */
import { expect } from 'bun:test';
import { product, type Harness } from './setup';

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const STATUSES = ['pending', 'paid', 'fulfilled', 'completed', 'cancelled'];

/**
 * The lifecycle users rely on, written out here rather than imported, so a change to
 * TRANSITIONS in plugins/orders/store.ts shows up as a failing test.
 */
export const ALLOWED: Record<string, string[]> = {
  pending: ['paid', 'completed', 'cancelled'],
  paid: ['fulfilled', 'completed', 'cancelled'],
  fulfilled: ['completed'],
  completed: [],
  cancelled: [],
};

export async function mkProduct(h: Harness, over: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/products', product(over));
  expect(r.status).toBe(201);
  return r.body as { id: string; sku: string; name: string };
}
export const stockOf = async (h: Harness, id: string) => (await h.call('GET', `/products/${id}`)).body.stock_quantity as number;
export const lines = (...pairs: [string, number][]) => ({ line_items: pairs.map(([product_id, quantity]) => ({ product_id, quantity })) });

export async function placeOrder(h: Harness, body: Record<string, unknown>) {
  const r = await h.call('POST', '/orders', body);
  expect(r.status).toBe(201);
  return r.body;
}

/** An order for one unit of `productId`, moved to `status` along the allowed path. */
export async function orderIn(h: Harness, productId: string, status: string) {
  const o = await placeOrder(h, lines([productId, 1]));
  const path: Record<string, string[]> = {
    pending: [],
    paid: ['paid'],
    fulfilled: ['paid', 'fulfilled'],
    completed: ['paid', 'fulfilled', 'completed'],
    cancelled: ['cancelled'],
  };
  for (const s of path[status]) expect((await h.call('PATCH', `/orders/${o.id}`, { status: s })).status).toBe(200);
  return o.id as string;
}

export async function orderCount(h: Harness) {
  const r = await h.call('GET', '/orders?limit=100');
  expect(r.body.has_more).toBe(false);
  return r.body.data.length as number;
}
