import { expect, test } from 'bun:test';
import { callTool, resolveTarget } from '../../core/tools/call';
import type { ToolCaller } from '../../core/tools/types';
import { product, setup } from '../kit/setup';

/** Issue 10 §8: where each tool call's audit record is written, and when. */
async function caller() {
  const h = await setup();
  const { principal, store } = await h.svc.keys.resolve(h.key);
  const c: ToolCaller = { db: h.db, clock: h.clock, registry: h.registry, principal, store, source: 'mcp' };
  const call = async (name: string, args: Record<string, unknown>) => callTool(c, (await resolveTarget(h.db, h.registry, store.id, name, args))!);
  const record = async (id: string) => (await h.db.query('SELECT status, tool, action FROM tool_execution_log() WHERE id = $1', [id]))[0];
  return { h, call, record };
}

test('a change and its audit record commit together: the record is there the moment the call returns', async () => {
  const { call, record } = await caller();
  const out = await call('products_create_product', product({ name: 'Audited' }));
  expect(out.kind).toBe('result');
  expect(await record(out.executionId)).toEqual({ status: 'success', tool: 'products', action: 'create_product' });
});

test('a failed change leaves nothing changed and a durable error record', async () => {
  const { h, call, record } = await caller();
  const sku = `DUP-${crypto.randomUUID().slice(0, 6)}`;
  await call('products_create_product', product({ sku }));
  const out = await call('products_create_product', product({ sku }));
  expect(out.kind).toBe('error');
  expect(await record(out.executionId)).toMatchObject({ status: 'error', action: 'create_product' });
  expect((await h.call('GET', `/products?limit=100`)).body.data.filter((p: any) => p.sku === sku)).toHaveLength(1);
});

test('a read answers before its record is stored, and the record follows within moments', async () => {
  const { call, record } = await caller();
  const out = await call('products_list_products', { limit: 1 });
  expect(out.kind).toBe('result');
  let row;
  for (let i = 0; i < 50 && !row; i++) {
    row = await record(out.executionId);
    if (!row) await Bun.sleep(20);
  }
  expect(row).toEqual({ status: 'success', tool: 'products', action: 'list_products' });
});
