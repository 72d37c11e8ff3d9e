/** Helpers shared by the inventory tests: fixtures and the ledger invariant, checked the way a client sees it. */
import { expect } from 'bun:test';
import { product, type Harness } from './setup';

export type Level = { location_id: string; location_name: string; quantity: number };

export async function mkProduct(h: Harness, over: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/products', product(over));
  expect(r.status).toBe(201);
  return r.body as { id: string; sku: string; name: string };
}

export async function mkLocation(h: Harness, name: string) {
  const r = await h.call('POST', '/locations', { name });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

export async function defaultLocationId(h: Harness) {
  const r = await h.call('GET', '/locations?limit=100');
  return r.body.data.find((l: any) => l.is_default).id as string;
}

export async function item(h: Harness, productId: string) {
  const r = await h.call('GET', `/inventory/${productId}`);
  expect(r.status).toBe(200);
  return r.body as { total: number; levels: Level[]; adjustments?: any[] };
}

/** The quantity at each location the product is stocked at, by location id. */
export async function levelsOf(h: Harness, productId: string) {
  return Object.fromEntries((await item(h, productId)).levels.map((l) => [l.location_id, l.quantity])) as Record<string, number>;
}

/** The ledger invariant, read the way a client would: the product's stock equals the sum of its levels. */
export async function expectConsistent(h: Harness, productId: string, total?: number) {
  const p = (await h.call('GET', `/products/${productId}`)).body;
  const inv = await item(h, productId);
  const sum = inv.levels.reduce((s, l) => s + l.quantity, 0);
  expect(p.stock_quantity).toBe(sum);
  expect(inv.total).toBe(sum);
  if (total !== undefined) expect(sum).toBe(total);
}

export const adjust = (h: Harness, body: Record<string, unknown>) => h.call('POST', '/inventory/adjust', body);
export const transfer = (h: Harness, body: Record<string, unknown>) => h.call('POST', '/inventory/transfer', body);
