/**
 * Two rules a client meets when it gets a request wrong (issue 26):
 * - another store's id in the path is 404 first, whatever the body: ownership is decided before
 *   the body is judged, on every route whose path names a resource;
 * - a refused input names the first wrong field of the document as sent (a field sent wrong
 *   before a field left out), the same over REST and MCP.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { restRoutes } from '../../core/http/rest';
import { callTool } from '../kit/sweep';
import { mcpClient } from '../kit/mcp';
import { product, setup, type Harness } from '../kit/setup';

const tee = () => ({
  name: 'Tee',
  type: 'variable',
  pricing_data: { retail: 20 },
  options: [{ name: 'size', values: ['S', 'M'] }],
});

let h: Harness;
let other: Harness;
let mine: any;
let theirs: any;
let theirVariant: string;
// The first setup of a run opens and migrates the database: slow on a busy machine.
beforeAll(async () => {
  h = await setup();
  other = await setup();
  mine = (await h.call('POST', '/products', tee())).body;
  theirs = (await other.call('POST', '/products', tee())).body;
  theirVariant = theirs.variants[0].id;
}, 60_000);

const expect404 = (r: { status: number; body: any }) => {
  expect(r.status).toBe(404);
  expect(r.body.error.code).toBe('resource_missing');
  expect(r.body.error.param).toBe('id');
};

describe("another store's id is 404 whatever the body", () => {
  test('POST .../products/{id}/variants with an invalid body', async () => {
    expect404(await h.call('POST', `/products/${theirs.id}/variants`, { options: 'not an object', price: 'free' }));
    expect404(await h.call('POST', `/products/${theirs.id}/variants`, '{not json'));
    // The same body on this store's own product is the 400 it deserves.
    const own = await h.call('POST', `/products/${mine.id}/variants`, { options: 'not an object', price: 'free' });
    expect(own.status).toBe(400);
  });

  test('PATCH of a product and of a variant, and a variant read with a bad query', async () => {
    expect404(await h.call('PATCH', `/products/${theirs.id}`, { name: 42 }));
    expect404(await h.call('PATCH', `/products/${theirs.id}/variants/${theirVariant}`, { price: 'free' }));
    expect(theirs.variants.length).toBeGreaterThan(0);
    expect((await h.call('PATCH', `/products/${mine.id}`, { name: 42 })).status).toBe(400);
  });

  test("the rule is the pipeline's: every store route whose path names a resource with a GET asks it", () => {
    const routes = restRoutes(h.registry).filter((r) => r.scope === 'store' && r.method !== 'GET' && /\/:(?!storeId)/.test(r.path));
    const without = routes.filter((r) => !r.owner).map((r) => `${r.method} ${r.path}`);
    expect(routes.length).toBeGreaterThan(10);
    // Members and API keys have no GET of one resource to ask: their handlers decide (listed so a
    // new route without an owner is seen here).
    expect(without).toEqual([
      'PATCH /v1/stores/:storeId/members/:user_id',
      'DELETE /v1/stores/:storeId/members/:user_id',
      'DELETE /v1/stores/:storeId/api-keys/:key_id',
      'POST /v1/stores/:storeId/api-keys/:key_id/roll',
    ]);
  });
});

describe('a refused input names the first wrong field as sent', () => {
  test('a variant whose sku has the wrong type is param sku, not the options it left out', async () => {
    const r = await h.call('POST', `/products/${mine.id}/variants`, { sku: 7, price: 21 });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('sku');
    // Document order, not the schema's: price sent first and wrong is named first.
    const r2 = await h.call('POST', `/products/${mine.id}/variants`, { price: 'free', sku: 7, options: { size: 'M' } });
    expect(r2.body.error.param).toBe('price');
    // Nothing else wrong: the missing field is named.
    const r3 = await h.call('POST', `/products/${mine.id}/variants`, { sku: 'NEW-1' });
    expect(r3.body.error.param).toBe('options');
  });

  test('the same on another route and over MCP', async () => {
    const r = await h.call('POST', '/products', { sku: 7 });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('sku');
    const { client } = await mcpClient(h, { query: '?tools=flat' });
    try {
      const answer = await callTool(client, 'products_create_variant', { id: mine.id, sku: 7 });
      expect(answer.isError).toBe(true);
      expect(answer.text).toContain('sku');
      expect(answer.text).not.toContain('options');
      const created = await callTool(client, 'products_create_product', product({ sku: 7, name: undefined }));
      expect(created.text).toContain('sku');
    } finally {
      await client.close();
    }
  });
});
