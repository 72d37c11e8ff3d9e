/**
 * Confirmations by elicitation and the store-wide tool-config (issue 51), through the SDK's own
 * client: accepted, declined, cancelled, not confirmed, and refused for a client without the
 * elicitation capability; the store's requires_approval gating MCP calls.
 */
import { beforeAll, setDefaultTimeout, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitationCompleteNotificationSchema, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { addUser, browser } from '../kit/users';
import { authorize, discover, exchange, register } from '../kit/oauth';
import { runApproved } from '../../core/tools/approvals';
import { product, setup, type Harness } from '../kit/setup';
import { mcpClient } from '../kit/mcp';
import { sharedDb } from '../kit/db';

// The first test of a file pays for a store's set-up, slow on a loaded machine.
setDefaultTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  await sharedDb();
  h = await setup();
  const r = await h.call('PATCH', '/tool-config', { tool_overrides: { products: { requires_confirmation: ['create_product'] } } });
  expect(r.status).toBe(200);
}, 60_000);

/** A client declaring form elicitation, answering each request with the next of `answers`. */
async function eliciting(answers: ElicitResult[]) {
  const asked: any[] = [];
  const transport = new StreamableHTTPClientTransport(new URL('http://svc.test/agent/mcp'), {
    fetch: ((input: string | URL | Request, init?: RequestInit) => h.app.handle(new Request(input, init))) as typeof fetch,
    requestInit: { headers: { 'x-api-key': h.key } },
  });
  const client = new Client({ name: 'eliciting', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return answers.shift()!;
  });
  await client.connect(transport);
  return { client, asked };
}

const count = async (name: string) => ((await h.call('GET', `/products?limit=100`)).body.data as any[]).filter((p) => p.name === name).length;

test('the store tool-config reads back, and refuses unknown tools and actions', async () => {
  const got = await h.call('GET', '/tool-config');
  expect(got.status).toBe(200);
  expect(got.body).toEqual({ object: 'tool_config', tool_overrides: { products: { requires_confirmation: ['create_product'] } } });
  const bad = await h.call('PATCH', '/tool-config', { tool_overrides: { products: { requires_confirmation: ['explode'] } } });
  expect(bad.status).toBe(400);
  expect(bad.body.error.param).toBe('tool_overrides.products.requires_confirmation');
  expect((await h.call('PATCH', '/tool-config', { tool_overrides: { nope: null } })).status).toBe(400);
});

test('a confirmed call runs; the form names the tool, the action and the input in plain words', async () => {
  const { client, asked } = await eliciting([{ action: 'accept', content: { confirm: true } }]);
  const r: any = await client.callTool({
    name: 'products_create_product',
    arguments: product({ name: 'Mug', sku: 'MUG-1', pricing_data: { retail: 12.5 } }),
  });
  expect(r.isError).toBeUndefined();
  expect(r.structuredContent.name).toBe('Mug');
  expect(asked).toHaveLength(1);
  expect(asked[0].mode).toBe('form');
  expect(asked[0].message).toStartWith("Create product 'Mug' (SKU MUG-1) at 12.50");
  expect(asked[0].message).toContain('products.create_product');
  expect(asked[0].requestedSchema.properties.confirm.type).toBe('boolean');
  // Reads are not asked about.
  await client.callTool({ name: 'products_list_products', arguments: { limit: 1 } });
  expect(asked).toHaveLength(1);
  await client.close();
});

test('declined, cancelled or not confirmed: a tool error, audited as rejected with decision declined, and nothing made', async () => {
  const { client } = await eliciting([{ action: 'decline' }, { action: 'cancel' }, { action: 'accept', content: { confirm: false } }]);
  for (const how of ['declined', 'cancelled', 'did not confirm']) {
    const r: any = await client.callTool({ name: 'products', arguments: { action: 'create_product', ...product({ name: 'Refused' }) } });
    expect(r.isError).toBe(true);
    expect(JSON.parse(r.content[0].text).error.message).toContain(how);
  }
  expect(await count('Refused')).toBe(0);
  const log = (await h.call('GET', '/tool-executions?status=rejected&tool=products&limit=10')).body.executions;
  const declined = log.filter((e: any) => e.approval?.decision === 'declined');
  expect(declined.length).toBeGreaterThanOrEqual(3);
  expect(declined[0]).toMatchObject({ action: 'create_product', source: 'mcp', status: 'rejected' });
  await client.close();
});

test('a client without the elicitation capability gets a tool error naming it; the call never runs', async () => {
  const { client } = await mcpClient(h);
  const r: any = await client.callTool({ name: 'products_create_product', arguments: product({ name: 'Unasked' }) });
  expect(r.isError).toBe(true);
  const e = JSON.parse(r.content[0].text).error;
  expect(e.code).toBe('confirmation_required');
  expect(e.message).toContain('elicitation');
  expect(await count('Unasked')).toBe(0);
  await client.close();
});

test("the store's requires_approval gates an MCP client's call", async () => {
  const own = await setup();
  expect((await own.call('PATCH', '/tool-config', { tool_overrides: { products: { requires_approval: ['delete_product'] } } })).status).toBe(200);
  const p = await own.call('POST', '/products', product({ name: 'Kept' }));
  const { client } = await mcpClient(own);
  const r: any = await client.callTool({ name: 'products_delete_product', arguments: { id: p.body.id } });
  expect(r.structuredContent).toMatchObject({ status: 'pending_approval' });
  expect((await own.call('GET', `/products/${p.body.id}`)).status).toBe(200);
  await client.close();
});

test("URL elicitation for an approver: the console's approval page, the call waits, the user's approval, then elicitation/complete and the result", async () => {
  const own = await setup();
  const user = await addUser(own, 'owner');
  const { as } = await discover(own);
  const registered = await register(own, as);
  const { callback, verifier, state } = await authorize(own, as, registered, browser(own), user.email, { scope: 'ai:read ai:write approvals:write' });
  const tokens = await exchange(own, as, registered, callback!, verifier, state);
  const tool = await own.call('POST', '/tools', {
    name: 'order_stock_url',
    description: 'Order stock.',
    parameters: { type: 'object', properties: { quantity: { type: 'integer' } }, required: ['quantity'] },
    execution_type: 'javascript',
    execution_config: { code: 'return { ordered: params.quantity };' },
    requires_approval: true,
  });
  expect(tool.status).toBe(201);

  const asked: any[] = [];
  const completed: string[] = [];
  const transport = new StreamableHTTPClientTransport(new URL('http://svc.test/agent/mcp'), {
    fetch: ((input: string | URL | Request, init?: RequestInit) => own.app.handle(new Request(input, init))) as typeof fetch,
    requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
  });
  const client = new Client({ name: 'approver', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return { action: 'accept' };
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => void completed.push(n.params.elicitationId));
  await client.connect(transport);
  const call = client.callTool({ name: 'order_stock_url', arguments: { quantity: 7 } });
  while (!asked.length) await Bun.sleep(10);
  const [req] = asked;
  expect(req.mode).toBe('url');
  expect(req.url).toBe(`http://svc.test/console#/approvals/${req.elicitationId}`);
  // The user approves on that page (the console calls this route with the user's session).
  const approved = await own.raw(
    'POST',
    `${own.base}/tool-executions/${req.elicitationId}/approve`,
    {},
    { authorization: `Bearer ${tokens.access_token}`, 'x-api-key': '' },
  );
  expect(approved.status).toBe(200);
  expect(approved.body.approval.decided_by).toBe(user.id);
  await runApproved({ db: own.db, clock: own.clock, registry: own.registry }, own.store.id, req.elicitationId);
  const r: any = await call;
  expect(r.structuredContent).toEqual({ ordered: 7 });
  expect(completed).toEqual([req.elicitationId]);
  await client.close();
});
