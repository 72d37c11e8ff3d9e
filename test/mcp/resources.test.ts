/**
 * MCP resources and prompts (issue 51) through the SDK's own client: records by URI read with the
 * REST GET's rights, a subscription hearing a change made through REST on another api process,
 * and the three prompts.
 */
import { beforeAll, setDefaultTimeout, expect, test } from 'bun:test';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createApp } from '../../core/http/app';
import { LOCAL_HOSTS, makeServices } from '../../core/http/services';
import { NO_LIMITS, product, setup, type Harness } from '../kit/setup';
import { mcpClient } from '../kit/mcp';
import { sharedDb } from '../kit/db';

// The first test of a file pays for a store's set-up, slow on a loaded machine.
setDefaultTimeout(30_000);

let h: Harness;
beforeAll(async () => {
  await sharedDb();
  h = await setup();
}, 60_000);

const processOf = (x: Harness) =>
  createApp(makeServices({ db: x.db, clock: x.clock, registry: x.registry, limits: NO_LIMITS, allowedHosts: ['svc.test', ...LOCAL_HOSTS] }));

test('resource templates for the records the key may read; a read answers the REST GET, allowed exactly when it is', async () => {
  const { client } = await mcpClient(h);
  expect(client.getServerCapabilities()).toMatchObject({ resources: { subscribe: true }, prompts: {} });
  const { resourceTemplates } = await client.listResourceTemplates();
  expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
    'svc://agents/{id}',
    'svc://customers/{id}',
    'svc://orders/{id}',
    'svc://products/{id}',
    'svc://tool-executions/{id}',
  ]);
  for (const t of resourceTemplates) {
    expect(t.mimeType).toBe('application/json');
    expect(t.icons?.[0].mimeType).toBe('image/svg+xml');
  }
  expect((await client.listResources()).resources).toEqual([]);

  const p = await h.call('POST', '/products', product({ name: 'Resource mug' }));
  const read = await client.readResource({ uri: `svc://products/${p.body.id}` });
  expect(read.contents).toHaveLength(1);
  const [content] = read.contents as { uri: string; mimeType: string; text: string }[];
  expect(content.mimeType).toBe('application/json');
  expect(JSON.parse(content.text)).toEqual((await h.call('GET', `/products/${p.body.id}`)).body);

  // Another store's record is not found here; an unknown kind is -32602.
  const other = await setup();
  const theirs = await other.call('POST', '/products', product({ name: 'Not yours' }));
  await expect(client.readResource({ uri: `svc://products/${theirs.body.id}` })).rejects.toMatchObject({ code: -32002 });
  await expect(client.readResource({ uri: 'svc://invoices/1' })).rejects.toMatchObject({ code: -32602 });
  await client.close();

  // A key without orders:read: no orders template, and a read is refused, never answered.
  const narrow = (await mcpClient(h, { key: await h.newKey(['products:read']) })).client;
  expect((await narrow.listResourceTemplates()).resourceTemplates.map((t) => t.name)).toEqual(['products']);
  const o = await h.call('POST', '/orders', { line_items: [{ product_id: p.body.id, quantity: 1 }] });
  const refused = narrow.readResource({ uri: `svc://orders/${o.body.id}` });
  await expect(refused).rejects.toThrow(/insufficient_scope/);
  await narrow.close();
});

test('a subscription hears a change made through REST on another api process', async () => {
  const p = await h.call('POST', '/products', product({ name: 'Watched' }));
  const uri = `svc://products/${p.body.id}`;
  const { client } = await mcpClient(h, { apps: [processOf(h)] });
  const heard: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
  await Bun.sleep(50); // the client's GET stream opens after initialize
  await client.subscribeResource({ uri });
  // Events of a subscribed type are kept from now on; the change is made elsewhere.
  await Bun.sleep(100);
  const elsewhere = processOf(h);
  const patched = await elsewhere.handle(
    new Request(`http://svc.test${h.base}/products/${p.body.id}`, {
      method: 'PATCH',
      headers: { 'x-api-key': h.key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Watched, renamed' }),
    }),
  );
  expect(patched.status).toBe(200);
  const end = Date.now() + 7000;
  while (!heard.includes(uri) && Date.now() < end) await Bun.sleep(20);
  expect(heard).toContain(uri);
  const after = await client.readResource({ uri });
  expect(JSON.parse((after.contents[0] as { text: string }).text).name).toBe('Watched, renamed');

  await client.unsubscribeResource({ uri });
  await client.close();
});

test('prompts are listed and fetched, naming the tools as this connection lists them; an unknown one is -32602', async () => {
  const { client } = await mcpClient(h);
  const { prompts } = await client.listPrompts();
  expect(prompts.map((p) => p.name)).toEqual(['daily_operations_summary', 'review_pending_approvals', 'low_stock_check']);
  // The store's own day: 2026-04-01T00:00Z is still March 31st in New York.
  expect((await h.call('PATCH', '/settings', { timezone: 'America/New_York' })).status).toBe(200);
  const daily = await client.getPrompt({ name: 'daily_operations_summary' });
  const text = (daily.messages[0].content as { text: string }).text;
  expect(text).toContain('2026-03-31');
  expect(text).toContain('analytics (action sales_report)');
  const approvals = await client.getPrompt({ name: 'review_pending_approvals' });
  expect((approvals.messages[0].content as { text: string }).text).toContain('limit 20');
  const low = await client.getPrompt({ name: 'low_stock_check', arguments: { threshold: '3' } });
  expect((low.messages[0].content as { text: string }).text).toContain('3 units or fewer');
  await expect(client.getPrompt({ name: 'no_such_prompt' })).rejects.toMatchObject({ code: -32602 });
  await client.close();

  const flat = (await mcpClient(h, { query: '?tools=flat' })).client;
  const t = ((await flat.getPrompt({ name: 'low_stock_check' })).messages[0].content as { text: string }).text;
  expect(t).toContain('inventory_list_inventory');
  expect(t).toContain('5 units or fewer');
  await flat.close();
});
