/**
 * The endpoint side of issue 21's webhook conveniences: `*` subscriptions, rolling the signing
 * secret and the endpoint's API version (what deliveries then carry: workers/webhooks-roll.test.ts,
 * workers/webhooks-shape.test.ts).
 */
import { describe, expect, test } from 'bun:test';
import { secretBox } from '../../core/sdk';
import { setup, type Harness } from '../../test/kit/setup';

const URL_A = 'https://hooks.example.com/a';
const create = (h: Harness, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  h.call('POST', '/webhooks', { url: URL_A, events: ['order.created'], ...body }, headers);
const roll = (h: Harness, id: string, body?: Record<string, unknown>) => h.call('POST', `/webhooks/${id}/roll-secret`, body);
const stored = async (h: Harness, id: string) => (await h.db.query('SELECT * FROM webhook_endpoints WHERE id = $1', [id]))[0];

describe('events: ["*"]', () => {
  test('"*" is accepted alone or beside types and stored as given; it is kept literally, not expanded', async () => {
    const h = await setup();
    const all = await create(h, { events: ['*'] });
    expect(all.status).toBe(201);
    expect(all.body.events).toEqual(['*']);
    expect((await stored(h, all.body.id)).events).toEqual(['*']);
    expect((await create(h, { events: ['order.created', '*', '*'] })).body.events).toEqual(['order.created', '*']);
    const patched = await h.call('PATCH', `/webhooks/${all.body.id}`, { events: ['product.created'] });
    expect(patched.body.events).toEqual(['product.created']);
    expect((await h.call('PATCH', `/webhooks/${all.body.id}`, { events: ['*'] })).body.events).toEqual(['*']);
  });

  test('other wildcards and unknown types beside "*" are still 400 naming the entry', async () => {
    const h = await setup();
    for (const [events, param] of [
      [['*', 'order.exploded'], 'events.1'],
      [['order.*'], 'events.0'],
      [['**'], 'events.0'],
    ] as const) {
      const r = await create(h, { events });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', param });
    }
  });
});

describe('roll-secret', () => {
  test('answers the endpoint with a new signing secret, shown this once, and the replaced one valid 24 h by default', async () => {
    const h = await setup();
    const ep = (await create(h)).body;
    h.clock.advance(60_000);
    const r = await roll(h, ep.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      object: 'outbound_webhook_endpoint',
      id: ep.id,
      signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      previous_secret_expires_at: '2026-04-02T00:01:00.000Z',
      updated_at: '2026-04-01T00:01:00.000Z',
    });
    expect(r.body.signing_secret).not.toBe(ep.signing_secret);
    const got = (await h.call('GET', `/webhooks/${ep.id}`)).body;
    expect(got.signing_secret).toBeUndefined();
    expect(got.previous_secret_expires_at).toBe('2026-04-02T00:01:00.000Z');
    expect(JSON.stringify((await h.call('GET', '/webhooks')).body)).not.toContain('whsec_');
    // Once the window has passed, the view says so (maintenance clears the row later).
    h.clock.advance(24 * 3600_000);
    expect((await h.call('GET', `/webhooks/${ep.id}`)).body.previous_secret_expires_at).toBeNull();
  });

  test('both secrets are sealed at rest; a plain secret from before sealing is sealed when it is rolled out', async () => {
    const h = await setup();
    const ep = (await create(h, { secret: 'first-canary-secret-0001' })).body;
    const r = await roll(h, ep.id, { secret: 'second-canary-secret-0002', expires_in_hours: 2 });
    expect(r.body).toMatchObject({ signing_secret: 'second-canary-secret-0002', previous_secret_expires_at: '2026-04-01T02:00:00.000Z' });
    let row = await stored(h, ep.id);
    expect(row.secret).toBeNull();
    expect(`${row.sealed_secret}${row.previous_sealed_secret}`).not.toMatch(/canary/);
    expect(row.previous_sealed_secret).toMatch(/^v1:/);

    await h.db.query(`UPDATE webhook_endpoints SET secret = 'legacy-plain-canary-03', sealed_secret = NULL WHERE id = $1`, [ep.id]);
    await roll(h, ep.id);
    row = await stored(h, ep.id);
    expect(row.secret).toBeNull();
    expect(row.previous_sealed_secret).toMatch(/^v1:/);
    expect(JSON.stringify(row)).not.toContain('canary');
  });

  test('expires_in_hours: 0 drops the replaced secret at once; 0-168 only, integers, else 400 naming it', async () => {
    const h = await setup();
    const ep = (await create(h)).body;
    const now = await roll(h, ep.id, { expires_in_hours: 0 });
    expect(now.status).toBe(200);
    expect(now.body.previous_secret_expires_at).toBeNull();
    expect((await stored(h, ep.id)).previous_sealed_secret).toBeNull();
    expect((await roll(h, ep.id, { expires_in_hours: 168 })).body.previous_secret_expires_at).toBe('2026-04-08T00:00:00.000Z');
    for (const bad of [169, -1, 1.5, '24']) {
      const r = await roll(h, ep.id, { expires_in_hours: bad });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', param: 'expires_in_hours' });
    }
    expect((await roll(h, ep.id, { expire: 3 })).body.error.param).toBe('expire');
  });

  test('a caller-supplied secret follows the create rules and must differ from the current one', async () => {
    const h = await setup();
    const ep = (await create(h, { secret: 'current-secret-0123456789' })).body;
    expect((await roll(h, ep.id, { secret: 'short' })).body.error.param).toBe('secret');
    const same = await roll(h, ep.id, { secret: 'current-secret-0123456789' });
    expect(same.status).toBe(400);
    expect(same.body.error).toMatchObject({ code: 'validation_failed', param: 'secret' });
  });

  test("404 for an unknown endpoint or another store's; webhooks:read may not roll (403)", async () => {
    const h = await setup();
    const other = await setup();
    const theirs = (await create(other)).body;
    expect((await roll(h, theirs.id)).status).toBe(404);
    expect((await roll(h, crypto.randomUUID())).status).toBe(404);
    const ep = (await create(h)).body;
    const reader = await h.newKey(['webhooks:read']);
    expect((await h.call('POST', `/webhooks/${ep.id}/roll-secret`, {}, { 'x-api-key': reader })).status).toBe(403);
    const writer = await h.newKey(['webhooks:write']);
    expect((await h.call('POST', `/webhooks/${ep.id}/roll-secret`, {}, { 'x-api-key': writer })).status).toBe(200);
  });

  test('concurrent rolls are serialised: each replaces the one before it, so none is lost', async () => {
    const h = await setup();
    const ep = (await create(h)).body;
    const answers = await Promise.all(Array.from({ length: 5 }, () => roll(h, ep.id)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const issued = answers.map((a) => a.body.signing_secret);
    expect(new Set(issued).size).toBe(5);
    // The last roll to commit replaced the one committed before it (never the create's secret,
    // which two unserialised rolls would both have read as current).
    const row = await stored(h, ep.id);
    const current = secretBox().open(row.sealed_secret);
    const previous = secretBox().open(row.previous_sealed_secret);
    expect(issued).toContain(current);
    expect(issued).toContain(previous);
    expect(previous).not.toBe(current);
  });
});

describe('api_version', () => {
  test('an endpoint records the X-API-Version it was created under, else the latest; the body may name one', async () => {
    const h = await setup();
    const latest = await create(h);
    expect(latest.body.api_version).toBe('v2026-03-07');
    const pinned = await create(h, {}, { 'X-API-Version': 'v2025-11-01' });
    expect(pinned.status).toBe(201);
    expect(pinned.body.api_version).toBe('v2025-11-01');
    expect((await h.call('GET', `/webhooks/${pinned.body.id}`)).body.api_version).toBe('v2025-11-01');
    expect((await create(h, { api_version: 'v2026-01-15' }, { 'X-API-Version': 'v2025-11-01' })).body.api_version).toBe('v2026-01-15');
  });

  test('PATCH api_version moves an endpoint to another version; unknown ones are 400 naming api_version', async () => {
    const h = await setup();
    const ep = (await create(h, {}, { 'X-API-Version': 'v2025-11-01' })).body;
    const r = await h.call('PATCH', `/webhooks/${ep.id}`, { api_version: 'v2026-03-07' });
    expect(r.body.api_version).toBe('v2026-03-07');
    expect((await h.call('PATCH', `/webhooks/${ep.id}`, { description: 'x' })).body.api_version).toBe('v2026-03-07');
    for (const bad of ['v1999-01-01', '2026-03-07', 'latest']) {
      const res = await h.call('PATCH', `/webhooks/${ep.id}`, { api_version: bad });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', param: 'api_version' });
      expect((await create(h, { api_version: bad })).body.error.param).toBe('api_version');
    }
  });

  test('a retired version cannot be chosen (400 naming api_version)', async () => {
    // v2025-11-01 retires 6 months after v2026-01-15 was released: on 2026-07-15.
    const h = await setup({ now: '2026-08-01T00:00:00Z' });
    const r = await create(h, { api_version: 'v2025-11-01' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'validation_failed', param: 'api_version' });
    expect(r.body.error.message).toContain('retired');
    expect((await create(h, {}, { 'X-API-Version': 'v2025-11-01' })).status).toBe(410);
  });
});
