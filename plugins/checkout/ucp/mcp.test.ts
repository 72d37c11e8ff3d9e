/**
 * The UCP MCP binding at /ucp/mcp: the spec's tool names on an endpoint of their own, the same
 * checkout through tools/call (signed at the HTTP layer, profile in meta), results in
 * structuredContent, protocol errors as JSON-RPC errors with the spec's codes.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { runJob, takeQueued } from '../../../test/kit/jobs';
import { ADDRESS, BUYER, cart, item, MANUAL, ucpWorld, type UcpWorld } from '../../../test/kit/ucp';
import { expectUcp } from '../../../test/kit/ucp-schemas';

let w: UcpWorld;
let p: string;
let seq = 0;
beforeAll(async () => {
  w = await ucpWorld();
  p = await item(w.h);
});
afterAll(() => w.stop());

/** One JSON-RPC call to the UCP MCP endpoint, as the fake agent (signed unless told). */
async function rpc(method: string, params: object = {}, o: { sign?: boolean; key?: string | null } = {}) {
  const r = await w.ucp(
    'POST',
    '/ucp/mcp',
    { jsonrpc: '2.0', id: ++seq, method, params },
    { sign: o.sign, idempotencyKey: o.key === undefined ? null : o.key },
  );
  return { status: r.status, ...r.body, headers: r.headers, raw: r.raw };
}
const meta = (extra: object = {}) => ({ 'ucp-agent': { profile: w.agent.profileUrl }, ...extra });
const tool = (name: string, args: object, o?: { sign?: boolean }) => rpc('tools/call', { name, arguments: args }, o);

test("initialize and tools/list answer UCP's tools only, never svc's own", async () => {
  const init = await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'agent', version: '1' } });
  expect(init.result.serverInfo.name).toBe('svc-ucp');
  const names = (await rpc('tools/list')).result.tools.map((t: any) => t.name);
  expect(names).toEqual([
    'create_checkout',
    'get_checkout',
    'update_checkout',
    'complete_checkout',
    'cancel_checkout',
    'get_order',
    'search_catalog',
    'lookup_catalog',
    'get_product',
  ]);
  expect(names).not.toContain('products');
});

test('create, update, complete through tools/call; structuredContent is the UCP checkout; complete needs an idempotency key; the order webhook follows', async () => {
  const created = await tool('create_checkout', { meta: meta(), checkout: cart({ id: p, quantity: 2 }) });
  const c = expectUcp('checkout', created.result.structuredContent);
  expect(JSON.parse(created.result.content[0].text)).toEqual(c);
  const updated = await tool('update_checkout', {
    meta: meta(),
    id: c.id,
    checkout: { ...cart({ id: p, quantity: 2 }), buyer: BUYER, fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS] }] } },
  });
  expect(expectUcp('checkout', updated.result.structuredContent).status).toBe('ready_for_complete');

  const noKey = await tool('complete_checkout', { meta: meta(), id: c.id, checkout: MANUAL });
  expect(noKey.error.code).toBe(-32602);
  const key = crypto.randomUUID();
  const done = await tool('complete_checkout', { meta: meta({ 'idempotency-key': key }), id: c.id, checkout: MANUAL });
  const d = expectUcp('checkout', done.result.structuredContent);
  expect(d.status).toBe('completed');
  // The same key again replays; the order exists once.
  const again = await tool('complete_checkout', { meta: meta({ 'idempotency-key': key }), id: c.id, checkout: MANUAL });
  expect(again.result.structuredContent).toEqual(d);
  const order = await tool('get_order', { meta: meta(), id: d.order.id });
  expect(expectUcp('order', order.result.structuredContent).id).toBe(d.order.id);
  const jobs = await takeQueued(w.h, 'checkout.ucp_order_webhook');
  expect(jobs).toHaveLength(1);
  await runJob(w.h, 'checkout.ucp_order_webhook', jobs);
  expect(w.agent.webhooks.map((x) => JSON.parse(x.body).id)).toContain(d.order.id);
});

test('catalog tools: search by text, lookup by ids (an unknown one warned about), get_product', async () => {
  const found = await tool('search_catalog', { meta: meta(), catalog: { query: 'Widget', pagination: { limit: 5 } } });
  const s = expectUcp('search', found.result.structuredContent);
  expect(s.products.map((x: any) => x.id)).toContain(p);
  const looked = expectUcp('lookup', (await tool('lookup_catalog', { meta: meta(), catalog: { ids: [p, 'nope'] } })).result.structuredContent);
  expect(looked.products.map((x: any) => x.id)).toEqual([p]);
  expect(looked.messages).toEqual([expect.objectContaining({ type: 'warning', code: 'not_found' })]);
  const one = expectUcp('product', (await tool('get_product', { meta: meta(), catalog: { id: p } })).result.structuredContent);
  expect(one.product).toMatchObject({ id: p, title: 'Widget', price_range: { min: { amount: 2500, currency: 'USD' } } });
});

test('protocol errors are JSON-RPC errors with the spec codes and HTTP statuses: -32001 for discovery, -32000 for signatures', async () => {
  const noMeta = await tool('get_checkout', { id: 'x' });
  expect(noMeta.status).toBe(400);
  expect(noMeta.error).toMatchObject({ code: -32001, data: { code: 'invalid_profile_url' } });
  const gone = 'http://127.0.0.1:9/p.json';
  const call = (profile: string) => ({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'get_checkout', arguments: { meta: { 'ucp-agent': { profile } }, id: 'x' } },
  });
  const badProfile = await w.ucp('POST', '/ucp/mcp', call(gone), { sign: false, profile: gone });
  expect(badProfile.status).toBe(424);
  expect(badProfile.body.error).toMatchObject({ code: -32001, data: { code: 'profile_unreachable' } });
  // The header names one agent, meta another: refused (identity binding).
  const mixed = await w.ucp('POST', '/ucp/mcp', call(gone), { sign: false });
  expect(mixed.body.error).toMatchObject({ code: -32001, data: { code: 'invalid_profile_url' } });
  const forged = await w.ucp(
    'POST',
    '/ucp/mcp',
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_checkout', arguments: { meta: meta(), id: 'x' } } },
    { tamper: (_h, b) => b.replace('"id":1', '"id":2') },
  );
  expect(forged.status).toBe(400);
  expect(forged.body.error).toMatchObject({ code: -32600, data: { code: 'digest_mismatch' } });
  const unknown = await tool('get_checkout', { meta: meta(), id: '00000000-0000-4000-8000-000000000000' });
  expect(expectUcp('error', unknown.result.structuredContent).messages[0].code).toBe('not_found');
  expect(unknown.result.isError).toBe(true);
  const badTool = await tool('products_list_products', { meta: meta() });
  expect(badTool.error.code).toBe(-32602);
});
