import { beforeAll, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { setup, type Harness } from '../../test/kit/setup';

let h: Harness;
beforeAll(async () => {
  h = await setup();
}, 120_000);

test("get_spec is the live document cut to the key's scopes: a products:read key sees product reads, no writes, no orders", async () => {
  const key = await h.newKey(['platform:read', 'products:read']);
  const r = await h.call('GET', '/api-docs/spec', undefined, { 'x-api-key': key });
  expect(r.status).toBe(200);
  expect(r.body.openapi).toBe('3.1.0');
  const ops = Object.values<any>(r.body.paths).flatMap((item) => Object.values<any>(item).map((o) => o.operationId));
  expect(ops).toContain('products_list_products');
  expect(ops).toContain('api_docs_get_spec');
  expect(ops).not.toContain('products_create_product');
  expect(ops).not.toContain('orders_list_orders');
  // The admin API is never a store key's to use.
  expect(ops).not.toContain('admin_create_store');
  // The whole key sees more, and the document is the one /openapi.json serves.
  const all = await h.call('GET', '/api-docs/spec');
  const full = (await h.raw('GET', '/openapi.json')).body;
  expect(all.body.paths['/v1/stores/{storeId}/products'].post).toEqual(full.paths['/v1/stores/{storeId}/products'].post);
  expect(r.body.webhooks['product.created']).toBeDefined();
  expect(r.body.webhooks['order.created']).toBeUndefined();
});

test('get_spec narrowed to a tag; a tag with none of your operations is 404', async () => {
  const r = await h.call('GET', '/api-docs/spec?tag=reviews');
  expect(Object.keys(r.body.paths).every((p) => p.includes('/reviews'))).toBe(true);
  expect(r.body.tags.map((t: any) => t.name)).toEqual(['reviews']);
  const key = await h.newKey(['platform:read']);
  const none = await h.call('GET', '/api-docs/spec?tag=reviews', undefined, { 'x-api-key': key });
  expect(none.status).toBe(404);
  expect(none.body.error.param).toBe('tag');
});

test('list_endpoints names each usable operation with its scopes; get_schema answers one, an unknown or unusable one is 404', async () => {
  const key = await h.newKey(['platform:read', 'catalog:read']);
  const list = await h.call('GET', '/api-docs/endpoints?tag=reviews', undefined, { 'x-api-key': key });
  expect(list.status).toBe(200);
  const ids = list.body.data.map((e: any) => e.operation_id);
  expect(ids).toContain('reviews_list_reviews');
  expect(ids).not.toContain('reviews_approve');
  expect(list.body.data.find((e: any) => e.operation_id === 'reviews_list_reviews')).toMatchObject({
    method: 'GET',
    path: '/v1/stores/{storeId}/reviews',
    tag: 'reviews',
  });
  const one = await h.call('GET', '/api-docs/endpoints/reviews_list_reviews', undefined, { 'x-api-key': key });
  expect(one.status).toBe(200);
  expect(one.body.operation.parameters.some((p: any) => p.name === 'product_id')).toBe(true);
  const writes = await h.call('GET', '/api-docs/endpoints/reviews_approve', undefined, { 'x-api-key': key });
  expect(writes.status).toBe(404);
  const unknown = await h.call('GET', '/api-docs/endpoints/nope_nothing');
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.param).toBe('operation_id');
});

test('over MCP: api_docs get_schema answers the operation', async () => {
  const { client } = await mcpClient(h);
  const r: any = await client.callTool({ name: 'api_docs', arguments: { action: 'get_schema', operation_id: 'products_create_product' } });
  await client.close();
  expect(r.isError).toBeFalsy();
  const body = JSON.parse(r.content[0].text);
  expect(body).toMatchObject({ object: 'operation', method: 'POST', path: '/v1/stores/{storeId}/products' });
  expect(body.operation.requestBody.content['application/json'].schema.properties.sku).toBeDefined();
});
