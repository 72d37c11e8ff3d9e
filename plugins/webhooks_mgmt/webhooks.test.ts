import { describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';

const URL_A = 'https://hooks.example.com/a';

async function create(h: Harness, body: Record<string, unknown> = {}) {
  return h.call('POST', '/webhooks', { url: URL_A, events: ['order.created'], ...body });
}

describe('webhook endpoints (SPEC 2.7, 4.6)', () => {
  test('create answers 201 with the endpoint and a generated whsec_ signing secret, shown this once', async () => {
    const h = await setup();
    const r = await create(h, { description: 'ERP sync', events: ['order.created', 'order.paid', 'order.created'] });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      object: 'outbound_webhook_endpoint',
      id: expect.any(String),
      url: URL_A,
      events: ['order.created', 'order.paid'],
      description: 'ERP sync',
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      api_version: 'v2026-03-07',
      previous_secret_expires_at: null,
      is_active: true,
      disabled_reason: null,
      total_delivered: 0,
      total_failed: 0,
      created_at: '2026-04-01T00:00:00.000Z',
      updated_at: '2026-04-01T00:00:00.000Z',
    });
    const got = await h.call('GET', `/webhooks/${r.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.signing_secret).toBeUndefined();
    expect(JSON.stringify((await h.call('GET', '/webhooks')).body)).not.toContain(r.body.signing_secret);
    const patched = await h.call('PATCH', `/webhooks/${r.body.id}`, { description: 'x' });
    expect(JSON.stringify(patched.body)).not.toContain('whsec_');
  });

  test('a caller-supplied secret is the signing secret', async () => {
    const h = await setup();
    const r = await create(h, { secret: 'my-own-secret-0123456789' });
    expect(r.body.signing_secret).toBe('my-own-secret-0123456789');
    expect((await create(h, { secret: 'short' })).body.error.param).toBe('secret');
  });

  test('an http URL is refused with 400 naming url; so are private and loopback addresses (egress rules)', async () => {
    const h = await setup();
    for (const url of [
      'http://hooks.example.com/a',
      'https://10.0.0.7/a',
      'https://127.0.0.1/a',
      'https://user:pw@hooks.example.com/',
      'not a url',
    ]) {
      const r = await create(h, { url });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed', param: 'url' });
    }
    expect((await create(h, { url: 'http://hooks.example.com/a' })).body.error.message).toContain('must use https');
    expect((await h.call('GET', '/webhooks')).body.data).toEqual([]);
  });

  test('events must be SPEC 6.1 types: an unknown one is a 400 naming events.N', async () => {
    const h = await setup();
    const r = await create(h, { events: ['order.created', 'order.exploded'] });
    expect(r.status).toBe(400);
    expect(r.body.error.param).toBe('events.1');
    expect(r.body.error.message).toContain("'order.exploded' is not an event type");
    expect((await create(h, { events: [] })).body.error.param).toBe('events');
    expect((await create(h, { events: ['webhook.test'] })).body.error.param).toBe('events.0');
  });

  test('list is cursor-paginated, newest first', async () => {
    const h = await setup();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await create(h, { description: `n${i}` })).body.id);
    const first = await h.call('GET', '/webhooks?limit=2');
    expect(first.body).toMatchObject({ object: 'list', has_more: true, url: `${h.base}/webhooks` });
    expect(first.body.data.map((e: any) => e.id)).toEqual([ids[2], ids[1]]);
    const next = await h.call('GET', `/webhooks?limit=2&starting_after=${ids[1]}`);
    expect(next.body.data.map((e: any) => e.id)).toEqual([ids[0]]);
    expect(next.body.has_more).toBe(false);
  });

  test('PATCH changes url, events, description and is_active; validation applies as on create', async () => {
    const h = await setup();
    const { id } = (await create(h)).body;
    const r = await h.call('PATCH', `/webhooks/${id}`, { url: 'https://hooks.example.com/b', events: ['product.created'], description: null });
    expect(r.body).toMatchObject({ url: 'https://hooks.example.com/b', events: ['product.created'], description: null, is_active: true });
    expect((await h.call('PATCH', `/webhooks/${id}`, { url: 'http://x.example.com' })).body.error.param).toBe('url');
    expect((await h.call('PATCH', `/webhooks/${id}`, { events: ['nope'] })).body.error.param).toBe('events.0');
    const off = await h.call('PATCH', `/webhooks/${id}`, { is_active: false });
    expect(off.body).toMatchObject({ is_active: false, disabled_reason: 'Disabled by request.' });
    const on = await h.call('PATCH', `/webhooks/${id}`, { is_active: true });
    expect(on.body).toMatchObject({ is_active: true, disabled_reason: null });
  });

  test('DELETE removes the endpoint: 404 afterwards, and for unknown or malformed ids', async () => {
    const h = await setup();
    const { id } = (await create(h)).body;
    expect((await h.call('DELETE', `/webhooks/${id}`)).body).toEqual({ object: 'outbound_webhook_endpoint', id, deleted: true });
    expect((await h.call('GET', `/webhooks/${id}`)).status).toBe(404);
    expect((await h.call('DELETE', `/webhooks/${id}`)).status).toBe(404);
    expect((await h.call('GET', '/webhooks/not-a-uuid')).status).toBe(404);
  });

  test('a disabled endpoint takes no test ping, resend or replay until re-enabled (409)', async () => {
    const h = await setup();
    const { id } = (await create(h)).body;
    await h.call('PATCH', `/webhooks/${id}`, { is_active: false });
    for (const path of [`/webhooks/${id}/test`, `/webhooks/${id}/replay-failed`]) {
      const r = await h.call('POST', path);
      expect(r.status).toBe(409);
      expect(r.body.error.message).toContain('re-enable');
    }
  });

  test('scopes: webhooks:read lists but cannot create; webhooks:write and platform (SPEC 5.4) can', async () => {
    const h = await setup();
    const reader = await h.newKey(['webhooks:read']);
    expect((await h.call('GET', '/webhooks', undefined, { 'x-api-key': reader })).status).toBe(200);
    expect((await h.call('POST', '/webhooks', { url: URL_A, events: ['order.created'] }, { 'x-api-key': reader })).status).toBe(403);
    for (const scopes of [['webhooks:write'], ['platform'], ['platform:write']]) {
      const key = await h.newKey(scopes);
      expect((await h.call('POST', '/webhooks', { url: URL_A, events: ['order.created'] }, { 'x-api-key': key })).status).toBe(201);
    }
    const products = await h.newKey(['products']);
    expect((await h.call('GET', '/webhooks', undefined, { 'x-api-key': products })).status).toBe(403);
  });
});
