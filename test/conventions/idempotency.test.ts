import { describe, expect, test } from 'bun:test';
import { purgeExpired } from '../../core/db/retention';
import fixture, { arm } from '../fixtures/fixture-plugin';
import { ADMIN_TOKEN, product, setup } from '../kit/setup';

const countProducts = async (h: Awaited<ReturnType<typeof setup>>) =>
  Number((await h.db.query('SELECT count(*)::int AS n FROM products WHERE store_id = $1', [h.store.id]))[0].n);

describe('Idempotency-Key', () => {
  test('a repeated POST returns the original status and body, marked replayed, and creates nothing', async () => {
    const h = await setup();
    const body = product();
    const first = await h.call('POST', '/products', body, { 'Idempotency-Key': 'k1' });
    const second = await h.call('POST', '/products', body, { 'Idempotency-Key': 'k1' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    // Byte for byte: a client may hash or diff the answer (jsonb used to reorder its keys).
    expect(JSON.stringify(second.body)).toBe(JSON.stringify(first.body));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await countProducts(h)).toBe(1);
  });

  test('the same key with a different body is 400 idempotency_key_reused', async () => {
    const h = await setup();
    await h.call('POST', '/products', product(), { 'Idempotency-Key': 'k2' });
    const r = await h.call('POST', '/products', product(), { 'Idempotency-Key': 'k2' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('idempotency_key_reused');
    expect(await countProducts(h)).toBe(1);
  });

  test('PATCH replays too', async () => {
    const h = await setup();
    const p = await h.call('POST', '/products', product({ stock_quantity: 1 }));
    const a = await h.call('PATCH', `/products/${p.body.id}`, { name: 'Renamed' }, { 'Idempotency-Key': 'patch-1' });
    await h.call('PATCH', `/products/${p.body.id}`, { name: 'Other' });
    const b = await h.call('PATCH', `/products/${p.body.id}`, { name: 'Renamed' }, { 'Idempotency-Key': 'patch-1' });
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    expect((await h.call('GET', `/products/${p.body.id}`)).body.name).toBe('Other');
  });

  test('keys are namespaced per API key', async () => {
    const h = await setup();
    const other = await h.newKey(['products']);
    const body = product();
    await h.call('POST', '/products', body, { 'Idempotency-Key': 'shared' });
    const r = await h.call('POST', '/products', { ...body, sku: 'OTHER-SKU' }, { 'Idempotency-Key': 'shared', 'x-api-key': other });
    expect(r.status).toBe(201);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(await countProducts(h)).toBe(2);
  });

  test("the operator's admin API honours an Idempotency-Key too (it was a 500)", async () => {
    const h = await setup();
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const first = await h.raw('POST', '/v1/stores', { name: 'Kiosk' }, { ...admin, 'Idempotency-Key': 'op-1' });
    const again = await h.raw('POST', '/v1/stores', { name: 'Kiosk' }, { ...admin, 'Idempotency-Key': 'op-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.store.id).toBe(first.body.store.id);
    const other = await h.raw('POST', `${h.base}/api-keys`, { livemode: true }, { ...admin, 'Idempotency-Key': 'op-1' });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('idempotency_key_reused');
  });

  test('a second request while the first is in flight is 409', async () => {
    const h = await setup({ extra: [fixture] });
    const gate = arm();
    const first = h.call('POST', '/fixture/slow', { name: 'a' }, { 'Idempotency-Key': 'busy' });
    await gate.entered;
    const second = await h.call('POST', '/fixture/slow', { name: 'a' }, { 'Idempotency-Key': 'busy' });
    expect(second.status).toBe(409);
    expect(second.body.error.type).toBe('conflict_error');
    gate.release();
    expect((await first).status).toBe(201);
  });

  test('a request that failed with a 5xx leaves nothing, and its retry runs again', async () => {
    const h = await setup({ extra: [fixture] });
    const original = console.error;
    console.error = () => {};
    try {
      const r = await h.call('POST', '/fixture/crash', { name: 'half' }, { 'Idempotency-Key': 'crash' });
      expect(r.status).toBe(500);
      expect(await countProducts(h)).toBe(0);
      const again = await h.call('POST', '/fixture/crash', { name: 'half' }, { 'Idempotency-Key': 'crash' });
      expect(again.status).toBe(500);
      expect(again.headers.get('idempotent-replayed')).toBeNull();
    } finally {
      console.error = original;
    }
  });

  test('a write that fails part-way changes nothing even without a key', async () => {
    const h = await setup({ extra: [fixture] });
    const original = console.error;
    console.error = () => {};
    try {
      expect((await h.call('POST', '/fixture/crash', { name: 'half' })).status).toBe(500);
    } finally {
      console.error = original;
    }
    expect(await countProducts(h)).toBe(0);
  });

  test('after 24 hours the key is forgotten and purged', async () => {
    const h = await setup();
    const body = product();
    await h.call('POST', '/products', body, { 'Idempotency-Key': 'old' });
    h.clock.advance(24 * 3600_000 + 1000);
    const r = await h.call('POST', '/products', { ...body, sku: 'NEW-SKU-1' }, { 'Idempotency-Key': 'old' });
    expect(r.status).toBe(201);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    h.clock.advance(24 * 3600_000 + 1000);
    await purgeExpired(h.db, h.clock);
    const left = await h.db.query(
      'SELECT count(*)::int AS n FROM idempotency_keys WHERE key = $1 AND api_key_id IN (SELECT id FROM api_keys WHERE store_id = $2)',
      ['old', h.store.id],
    );
    expect(Number(left[0].n)).toBe(0);
  });
});
