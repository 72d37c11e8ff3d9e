import { describe, expect, test } from 'bun:test';
import { product, setup } from '../kit/setup';

describe('API versioning', () => {
  test('without X-API-Version the latest stable version applies and both headers are present', async () => {
    const h = await setup();
    const r = await h.call('GET', '/products');
    expect(r.headers.get('x-api-version')).toBe('v2026-03-07');
    expect(r.headers.get('x-api-latest-version')).toBe('v2026-03-07');
    expect(r.headers.get('sunset')).toBeNull();
  });

  test('a pinned version is echoed back', async () => {
    const h = await setup({ now: '2026-04-01T00:00:00Z' });
    const r = await h.call('GET', '/products', undefined, { 'X-API-Version': 'v2026-01-15' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-api-version')).toBe('v2026-01-15');
    expect(r.headers.get('x-api-latest-version')).toBe('v2026-03-07');
  });

  test('the deprecation calendar: Sunset in months 1-3, Deprecation-Warning in 4-6, then 410', async () => {
    // v2026-01-15 was superseded on 2026-03-07, so it retires on 2026-09-07.
    const h = await setup({ now: '2026-03-08T00:00:00Z' });
    const pinned = { 'X-API-Version': 'v2026-01-15' };
    let r = await h.call('GET', '/products', undefined, pinned);
    expect(r.status).toBe(200);
    expect(new Date(r.headers.get('sunset')!).toISOString()).toBe('2026-09-07T00:00:00.000Z');
    expect(r.headers.get('deprecation-warning')).toBeNull();

    h.clock.set('2026-07-01T00:00:00Z');
    r = await h.call('GET', '/products', undefined, pinned);
    expect(r.status).toBe(200);
    expect(r.headers.get('sunset')).toBeNull();
    expect(r.headers.get('deprecation-warning')).toContain('2026-09-07');

    h.clock.set('2026-09-07T00:00:00Z');
    r = await h.call('GET', '/products', undefined, pinned);
    expect(r.status).toBe(410);
    expect(r.body.error).toMatchObject({ code: 'api_version_retired', request_id: r.headers.get('x-request-id') });
  });

  test('an endpoint added in a later version is 404 under an older one, and works from its version on (SPEC 9 history)', async () => {
    // Before v2025-11-01 retires (2026-07-15), so both older versions still answer.
    const h = await setup({ now: '2026-03-08T00:00:00Z' });
    const bulk = { items: [{ action: 'create', ...product({ sku: 'BULK-1' }) }] };
    const old = await h.call('POST', '/products/bulk', bulk, { 'X-API-Version': 'v2025-11-01' });
    expect(old.status).toBe(404);
    expect(old.body.error).toMatchObject({ code: 'resource_missing', param: 'X-API-Version' });
    expect(old.body.error.message).toContain('added in v2026-01-15');
    expect((await h.call('GET', '/products', undefined, { 'X-API-Version': 'v2025-11-01' })).body.data).toEqual([]); // nothing was made
    const custom = await h.call('GET', '/tools', undefined, { 'X-API-Version': 'v2026-01-15' });
    expect(custom.status).toBe(404);
    expect(custom.body.error.message).toContain('added in v2026-03-07');
    expect((await h.call('POST', '/products/bulk', bulk, { 'X-API-Version': 'v2026-01-15' })).status).toBe(200);
    expect((await h.call('GET', '/tools')).status).toBe(200);
    const doc = (await h.raw('GET', '/openapi.json')).body;
    expect(doc.paths['/v1/stores/{storeId}/products/bulk'].post['x-since-version']).toBe('v2026-01-15');
  });

  test('an unknown or malformed version is 400 invalid_api_version', async () => {
    const h = await setup();
    for (const v of ['v2024-01-01', 'latest', '2026-3-7']) {
      const r = await h.call('GET', '/products', undefined, { 'X-API-Version': v });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('invalid_api_version');
      expect(r.headers.get('x-api-latest-version')).toBe('v2026-03-07');
    }
  });

  test('responses pinned to v2025-11-01 get the old order shape (number, not order_number)', async () => {
    const h = await setup({ now: '2026-02-01T00:00:00Z' });
    const p = await h.call('POST', '/products', product());
    const created = await h.call('POST', '/orders', { line_items: [{ product_id: p.body.id, quantity: 1 }] }, { 'X-API-Version': 'v2025-11-01' });
    expect(created.status).toBe(201);
    expect(created.body.number).toBe(created.body.number ?? 'missing');
    expect(created.body.order_number).toBeUndefined();
    const list = await h.call('GET', '/orders', undefined, { 'X-API-Version': 'v2025-11-01' });
    expect(list.body.data[0].number).toBe(created.body.number);
    const latest = await h.call('GET', `/orders/${created.body.id}`);
    expect(latest.body.order_number).toBe(created.body.number);
    expect(latest.body.number).toBeUndefined();
  });
});
