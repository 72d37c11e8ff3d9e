import { describe, expect, test } from 'bun:test';
import { ADMIN_TOKEN, setup } from '../kit/setup';

const expectError = (r: { status: number; body: any; headers: Headers }, status: number, type: string, code: string) => {
  expect(r.status).toBe(status);
  expect(r.body.error.type).toBe(type);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.request_id).toBe(r.headers.get('x-request-id')!);
};

describe('API key authentication', () => {
  test('a request without x-api-key gets 401 invalid_api_key', async () => {
    const h = await setup();
    expectError(await h.call('GET', '/products', undefined, { 'x-api-key': '' }), 401, 'authentication_error', 'invalid_api_key');
  });

  test('a malformed or unknown key gets 401', async () => {
    const h = await setup();
    expectError(await h.call('GET', '/products', undefined, { 'x-api-key': 'hello' }), 401, 'authentication_error', 'invalid_api_key');
    const unknown = 'svc_test_' + 'A'.repeat(32);
    expectError(await h.call('GET', '/products', undefined, { 'x-api-key': unknown }), 401, 'authentication_error', 'invalid_api_key');
  });

  test('a revoked key stops working at once', async () => {
    const h = await setup();
    const created = await h.raw('POST', `${h.base}/api-keys`, { scopes: ['products:read'] }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(created.status).toBe(201);
    expect(created.body.key).toStartWith('svc_test_');
    expect((await h.call('GET', '/products', undefined, { 'x-api-key': created.body.key })).status).toBe(200);
    const revoked = await h.raw('DELETE', `${h.base}/api-keys/${created.body.id}`, undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(revoked.status).toBe(200);
    expectError(await h.call('GET', '/products', undefined, { 'x-api-key': created.body.key }), 401, 'authentication_error', 'invalid_api_key');
  });

  test('an expired key gets 401 once its expiry passes', async () => {
    const h = await setup();
    const key = await h.newKey(['products:read'], { expiresAt: new Date('2026-04-01T01:00:00Z') });
    expect((await h.call('GET', '/products', undefined, { 'x-api-key': key })).status).toBe(200);
    h.clock.set('2026-04-01T01:00:01Z');
    expectError(await h.call('GET', '/products', undefined, { 'x-api-key': key }), 401, 'authentication_error', 'invalid_api_key');
  });

  test('live keys start with svc_live_ and work like test keys', async () => {
    const h = await setup();
    const created = await h.raw('POST', `${h.base}/api-keys`, { livemode: true }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(created.body.key).toStartWith('svc_live_');
    expect(created.body.livemode).toBe(true);
    expect((await h.call('GET', '/products', undefined, { 'x-api-key': created.body.key })).status).toBe(200);
  });
});

describe('scopes', () => {
  test('a key without the needed scope gets 403 insufficient_scope and no data', async () => {
    const h = await setup();
    const key = await h.newKey(['orders:read']);
    const r = await h.call('GET', '/products', undefined, { 'x-api-key': key });
    expectError(r, 403, 'permission_error', 'insufficient_scope');
    expect(r.body.error.message).toContain('products:read');
  });

  test('a read scope does not allow writes', async () => {
    const h = await setup();
    const key = await h.newKey(['products:read']);
    const r = await h.call('POST', '/products', { name: 'X' }, { 'x-api-key': key });
    expectError(r, 403, 'permission_error', 'insufficient_scope');
    expect((await h.call('GET', '/products')).body.data).toHaveLength(0);
  });

  test('a bare scope grants read and write', async () => {
    const h = await setup();
    const key = await h.newKey(['products']);
    expect((await h.call('POST', '/products', { name: 'X' }, { 'x-api-key': key })).status).toBe(201);
    expect((await h.call('GET', '/products', undefined, { 'x-api-key': key })).status).toBe(200);
  });
});

describe('the admin API', () => {
  test("a store's valid API key is 403 insufficient_scope there (SPEC 7: admin-only endpoint); a wrong token or a revoked key stays 401", async () => {
    const h = await setup();
    // Creating a store is the operator's alone (the store's key routes take the store's own keys too).
    const r = await h.raw('POST', '/v1/stores', { name: 'Other' });
    expectError(r, 403, 'permission_error', 'insufficient_scope');
    expect(r.body.error.message).toContain('admin token');
    expectError(
      await h.raw('POST', '/v1/stores', { name: 'Other' }, { 'x-api-key': '', authorization: 'Bearer nope' }),
      401,
      'authentication_error',
      'invalid_api_key',
    );
    const other = await h.raw('POST', `${h.base}/api-keys`, {}, { authorization: `Bearer ${ADMIN_TOKEN}` });
    await h.raw('DELETE', `${h.base}/api-keys/${other.body.id}`, undefined, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expectError(await h.raw('POST', `${h.base}/api-keys`, {}, { 'x-api-key': other.body.key }), 401, 'authentication_error', 'invalid_api_key');
  });
});

describe('store isolation', () => {
  test("a key used on another store's URL gets 403 store_mismatch with param store_id", async () => {
    const a = await setup();
    const b = await setup();
    const r = await a.raw('GET', `${b.base}/products`);
    expectError(r, 403, 'store_mismatch_error', 'store_mismatch');
    expect(r.body.error.param).toBe('store_id');
  });

  test("another store's product id is 404 even with the right store in the URL", async () => {
    const a = await setup();
    const b = await setup();
    const p = await b.call('POST', '/products', { name: 'B only' });
    const r = await a.call('GET', `/products/${p.body.id}`);
    expectError(r, 404, 'not_found_error', 'resource_missing');
  });
});
