/**
 * MCP Apps on svc's own MCP server: only a client declaring io.modelcontextprotocol/ui gets the
 * views (ui:// resources, text/html;profile=mcp-app, strict CSP), the `_meta.ui.resourceUri` links
 * and the `cart` tool (quote: a cart priced through the checkout engine, nothing created); any
 * other client sees exactly the tools it saw before.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpClient } from '../../../test/kit/mcp';
import { product, setup, type Harness } from '../../../test/kit/setup';

const UI = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

let h: Harness;
const clients: Client[] = [];
beforeAll(async () => {
  h = await setup();
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
});

async function uiClient(query = '') {
  const transport = new StreamableHTTPClientTransport(new URL(`http://svc.test/agent/mcp${query}`), {
    fetch: ((input: string | URL | Request, init?: RequestInit) => h.app.handle(new Request(input, init))) as typeof fetch,
    requestInit: { headers: { 'x-api-key': h.key } },
  });
  const client = new Client({ name: 'apps-host', version: '1.0.0' }, { capabilities: { extensions: UI } as never });
  await client.connect(transport);
  clients.push(client);
  return client;
}

test('a client without the extension sees exactly the same tools, no ui links, no resources', async () => {
  const { client } = await mcpClient(h);
  clients.push(client);
  const plain = (await client.listTools()).tools;
  expect(plain.some((t) => t._meta?.ui)).toBe(false);
  expect(plain.map((t) => t.name)).not.toContain('cart');
  // Records are resources for every client (svc://, issue 51); the ui:// views are only for MCP Apps clients.
  expect((await client.listResources()).resources).toEqual([]);
  const ui = (await (await uiClient()).listTools()).tools;
  // The UI client's list is the plain list plus `cart`, in the same order.
  expect(ui.map((t) => t.name)).toEqual([...plain.map((t) => t.name), 'cart']);
});

test('a UI client gets the three views, linked from products, orders and cart; each view is self-contained under a strict CSP', async () => {
  const client = await uiClient();
  const tools = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t]));
  expect(tools.products._meta?.ui).toMatchObject({ resourceUri: 'ui://svc/product-card' });
  expect(tools.orders._meta?.ui).toMatchObject({ resourceUri: 'ui://svc/order' });
  expect(tools.cart._meta?.ui).toMatchObject({ resourceUri: 'ui://svc/cart' });
  expect(tools.customers._meta).toBeUndefined();
  const resources = (await client.listResources()).resources;
  expect(resources.map((r) => [r.uri, r.mimeType])).toEqual([
    ['ui://svc/product-card', 'text/html;profile=mcp-app'],
    ['ui://svc/order', 'text/html;profile=mcp-app'],
    ['ui://svc/cart', 'text/html;profile=mcp-app'],
  ]);
  for (const r of resources) {
    const read = await client.readResource({ uri: r.uri });
    const [content] = read.contents as { uri: string; mimeType: string; text: string; _meta: any }[];
    expect(content.mimeType).toBe('text/html;profile=mcp-app');
    expect(content.text).toStartWith('<!doctype html>');
    expect(content.text).toContain(`content="default-src 'none'`);
    // Nothing fetched from anywhere: no external script, style, image or frame.
    expect(content.text).not.toMatch(/(src|href)=["']?https?:/i);
    expect(content.text).not.toMatch(/<input|<form|card number/i);
    expect(content._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
  }
  await expect(client.readResource({ uri: 'ui://svc/nope' })).rejects.toThrow(/Unknown resource/);
});

test('cart quote prices lines, codes and shipping through the checkout engine and creates nothing', async () => {
  const p = (await h.call('POST', '/products', product({ pricing_data: { retail: 25 }, stock_quantity: 5 }))).body.id;
  await h.call('POST', '/coupons', { code: 'APPS10', percent_off: 10 });
  await h.call('POST', '/shipping/zones', { name: 'US', countries: ['US'], methods: [{ name: 'Ground', rate_type: 'flat', amount: 4 }] });
  const before = await h.db.query('SELECT count(*)::int AS n FROM checkout_sessions WHERE store_id = $1', [h.store.id]);
  const client = await uiClient();
  const r = await client.callTool({
    name: 'cart',
    arguments: {
      action: 'quote',
      line_items: [{ item_id: p, quantity: 2 }],
      discount_codes: ['APPS10', 'NOPE'],
      shipping_address: { line1: '1 Main St', city: 'Austin', region: 'TX', postal_code: '78701', country: 'US' },
    },
  });
  expect(r.isError).toBeFalsy();
  const quote = r.structuredContent as any;
  expect(quote.totals).toEqual({ subtotal: 5000, discount: 500, shipping: 400, tax: 0, total: 4900 });
  expect(quote.messages).toContainEqual(expect.objectContaining({ type: 'warning', code: 'discount_code_invalid' }));
  const after = await h.db.query('SELECT count(*)::int AS n FROM checkout_sessions WHERE store_id = $1', [h.store.id]);
  expect(after[0].n).toBe(before[0].n);
  expect((await h.call('GET', `/products/${p}`)).body.stock_quantity).toBe(5);
  const bad = await client.callTool({ name: 'cart', arguments: { action: 'checkout' } });
  expect(bad.isError).toBe(true);
});

test('flat mode: the UI client gets cart_quote and the linked flat actions', async () => {
  const client = await uiClient('?tools=flat');
  const tools = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t]));
  expect(tools.cart_quote._meta?.ui).toMatchObject({ resourceUri: 'ui://svc/cart' });
  expect(tools.products_get_product._meta?.ui).toMatchObject({ resourceUri: 'ui://svc/product-card' });
  expect(tools.orders_get_order._meta?.ui).toMatchObject({ resourceUri: 'ui://svc/order' });
  expect(tools.products_create_product._meta).toBeUndefined();
  const r = await client.callTool({
    name: 'cart_quote',
    arguments: { line_items: [{ item_id: '00000000-0000-4000-8000-000000000000', quantity: 1 }] },
  });
  expect((r.structuredContent as any).messages[0]).toMatchObject({ type: 'error', path: '$.line_items[0]' });
});
