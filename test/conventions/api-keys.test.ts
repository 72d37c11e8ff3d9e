import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, setup } from '../kit/setup';
import { runSvc } from '../kit/serve-process';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('admin API: creating keys checks scopes and expiry', () => {
  test('a misspelt scope is 400 naming scopes[0] and the scope it was probably meant to be', async () => {
    const h = await setup();
    const r = await h.raw('POST', `${h.base}/api-keys`, { scopes: ['products:reed', 'foo'] }, admin);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed', param: 'scopes[0]' });
    expect(r.body.error.message).toContain('did you mean products:read?');
  });

  test('a scope far from any valid one is 400 listing the valid scopes', async () => {
    const h = await setup();
    const r = await h.raw('POST', `${h.base}/api-keys`, { scopes: ['products:read', 'foo'] }, admin);
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('scopes[1]');
    expect(r.body.error.message).toContain('Valid scopes:');
    expect(r.body.error.message).toContain('orders:write');
    // Creating a store with scopes follows the same rule.
    const store = await h.raw('POST', '/v1/stores', { name: 'S', scopes: ['nope:nope'] }, admin);
    expect(store.status).toBe(400);
    expect(store.body.error.param).toBe('scopes[0]');
  });

  test('bare resource names the server accepts stay valid, and work', async () => {
    const h = await setup();
    const r = await h.raw('POST', `${h.base}/api-keys`, { scopes: ['products', 'crm', 'ai:read'] }, admin);
    expect(r.status).toBe(201);
    expect(r.body.scopes).toEqual(['products', 'crm', 'ai:read']);
    expect((await h.call('POST', '/products', { name: 'Mug' }, { 'x-api-key': r.body.key })).status).toBe(201);
  });

  test('expires_at in the past or now is 400 naming expires_at; in the future is accepted', async () => {
    const h = await setup(); // the clock reads 2026-04-01T00:00:00Z
    for (const expires_at of ['2020-01-01T00:00:00Z', '2026-04-01T00:00:00Z']) {
      const r = await h.raw('POST', `${h.base}/api-keys`, { expires_at }, admin);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', param: 'expires_at' });
      expect(r.body.error.message).toContain('must be in the future');
    }
    const ok = await h.raw('POST', `${h.base}/api-keys`, { expires_at: '2026-04-02T00:00:00Z' }, admin);
    expect(ok.status).toBe(201);
    expect(ok.body.expires_at).toBe('2026-04-02T00:00:00.000Z');
  });

  test('the OpenAPI scope enum is exactly the list the server accepts', async () => {
    const h = await setup();
    const doc = (await h.raw('GET', '/openapi.json')).body;
    const body = doc.paths['/v1/stores/{storeId}/api-keys'].post.requestBody.content['application/json'].schema;
    const documented: string[] = body.properties.scopes.items.enum;
    expect(documented).toContain('products');
    expect(documented).toContain('products:read');
    const everything = await h.raw('POST', `${h.base}/api-keys`, { scopes: documented }, admin);
    expect(everything.status).toBe(201);
    const outside = await h.raw('POST', `${h.base}/api-keys`, { scopes: ['media'] }, admin);
    expect(documented.includes('media')).toBe(outside.status === 201);
  });
});

describe('svc keys create checks the same', () => {
  const svc = (args: string[], dir: string) => runSvc(args, { SVC_DATA_DIR: dir, SVC_NOW: '2026-04-01T00:00:00Z' });

  test('a misspelt scope or a past expiry exits 2 with the message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-keys-'));
    const store = JSON.parse((await svc(['stores', 'create', '--name', 'Shop', '--json'], dir)).stdout).store.id;
    const typo = await svc(['keys', 'create', '--store', store, '--scopes', 'products:reed,orders:read'], dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean products:read?');
    const past = await svc(['keys', 'create', '--store', store, '--expires-at', '2020-01-01T00:00:00Z'], dir);
    expect(past.code).toBe(2);
    expect(past.stderr).toContain('--expires-at');
    expect(past.stderr).toContain('must be in the future');
    const ok = await svc(
      ['keys', 'create', '--store', store, '--scopes', 'products,orders:read', '--expires-at', '2027-01-01T00:00:00Z', '--json'],
      dir,
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).scopes).toEqual(['products', 'orders:read']);
  }, 60_000);
});
