/**
 * The negative cases of issue 50 for UCP: signatures (bad Content-Digest, unknown key, a forged
 * signature, missing when required), profiles (unreachable, malformed, http without the
 * development setting, not allowed), walls (another store's session, an unclaimed host), an
 * expired session, raw card data, and the race for the last units.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { backend } from '../../../test/kit/db';
import { ADDRESS, BUYER, cart, enableUcp, item, MANUAL, ucpWorld, type UcpWorld } from '../../../test/kit/ucp';
import { fakeAgent } from '../../../test/kit/ucp-agent';
import { expectUcp } from '../../../test/kit/ucp-schemas';
import { clearProfileCache } from './profiles';
import { generateSigningKey } from './signatures';

let w: UcpWorld;
let p: string;
beforeAll(async () => {
  w = await ucpWorld({ SVC_CHECKOUT_SESSION_TTL_SECONDS: '3600' });
  p = await item(w.h, { stock_quantity: 100 });
});
afterAll(() => w.stop());

const CO = '/ucp/v1/checkout-sessions';
const ready = () => ({ ...cart({ id: p }), buyer: BUYER, fulfillment: { methods: [{ type: 'shipping', destinations: [ADDRESS] }] } });

describe('signatures', () => {
  test('a body changed after signing is 400 digest_mismatch; a digest recomputed for it is 401 signature_invalid', async () => {
    const r = await w.ucp('POST', CO, cart({ id: p }), { tamper: (_h, body) => body.replace('"quantity":1', '"quantity":9') });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'digest_mismatch' });
    const recomputed = await w.ucp('POST', CO, cart({ id: p }), {
      tamper: (h, body) => {
        const changed = body.replace('"quantity":1', '"quantity":9');
        h.set('content-digest', `sha-256=:${new Bun.CryptoHasher('sha256').update(changed).digest('base64')}:`);
        return changed;
      },
    });
    expect(recomputed.status).toBe(401);
    expect(recomputed.body).toMatchObject({ code: 'signature_invalid' });
  });

  test("a key the profile does not publish is 401 key_not_found; another key under the agent's kid is 401 signature_invalid", async () => {
    const rogue = await generateSigningKey('rogue-1');
    const unknown = await w.ucp('POST', CO, cart({ id: p }), { key: rogue.privateJwk });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ code: 'key_not_found' });
    const forged = await w.ucp('POST', CO, cart({ id: p }), { key: { ...rogue.privateJwk, kid: w.agent.kid } });
    expect(forged.status).toBe(401);
    expect(forged.body).toMatchObject({ code: 'signature_invalid' });
  });

  test('a store requiring signatures refuses an unsigned request with 401 signature_missing, and takes a signed one', async () => {
    const other = await ucpWorld();
    try {
      await enableUcp(other.h, other.host, { require_signatures: true });
      const q = await item(other.h);
      const unsigned = await other.ucp('POST', CO, cart({ id: q }), { sign: false });
      expect(unsigned.status).toBe(401);
      expect(unsigned.body).toMatchObject({ code: 'signature_missing' });
      expect((await other.ucp('POST', CO, cart({ id: q }))).status).toBe(201);
    } finally {
      other.agent.stop();
    }
  });
});

describe('profiles', () => {
  test('unreachable (closed port, 5xx, redirect) is 424 profile_unreachable; not JSON or not a profile is 422 profile_malformed', async () => {
    const a = await fakeAgent();
    try {
      const call = () => a.request(w.h.app, w.host, 'POST', CO, cart({ id: p }));
      for (const [override, status, code] of [
        [{ status: 500, body: 'oops' }, 424, 'profile_unreachable'],
        [{ status: 302, body: '' }, 424, 'profile_unreachable'],
        [{ status: 200, body: '<html>not json</html>' }, 422, 'profile_malformed'],
        [{ status: 200, body: '{"ucp":{"services":{}}}' }, 422, 'profile_malformed'],
      ] as const) {
        clearProfileCache();
        a.setProfile(override);
        const r = await call();
        expect({ status: r.status, code: r.body.code }).toEqual({ status, code });
      }
    } finally {
      a.stop();
    }
    clearProfileCache();
    const closed = await w.ucp('POST', CO, cart({ id: p }), { profile: 'http://127.0.0.1:9/profile.json', sign: false });
    expect(closed.status).toBe(424);
    expect(closed.body).toMatchObject({ code: 'profile_unreachable' });
  });

  test('no UCP-Agent, or an http profile without SVC_UCP_ALLOW_INSECURE_PROFILES, is 400 invalid_profile_url', async () => {
    const none = await w.agent.request(w.h.app, w.host, 'POST', CO, cart({ id: p }), { sign: false, headers: { 'ucp-agent': '' } });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: 'invalid_profile_url' });
    const strict = w.h.elsewhere({});
    const r = await w.agent.request(strict.app, w.host, 'POST', CO, cart({ id: p }));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_profile_url' });
    expect(r.body.content).toContain('https');
  });

  test('a profile outside allowed_profiles is 403 profile_not_trusted; the profile is fetched once, then cached', async () => {
    const other = await ucpWorld();
    try {
      await enableUcp(other.h, other.host, { allowed_profiles: ['https://agents.example.com/'] });
      const q = await item(other.h);
      const r = await other.ucp('POST', CO, cart({ id: q }));
      expect(r.status).toBe(403);
      expect(r.body).toMatchObject({ code: 'profile_not_trusted' });
      await enableUcp(other.h, other.host, { allowed_profiles: [other.agent.base] });
      const hits = other.agent.profileHits;
      for (let i = 0; i < 3; i++) expect((await other.ucp('POST', CO, cart({ id: q }))).status).toBe(201);
      expect(other.agent.profileHits - hits).toBe(1);
    } finally {
      other.agent.stop();
    }
  });
});

describe('walls, expiry, card data', () => {
  test("another store's session and order ids are 404; an unclaimed host is 404; a store with UCP off is 404", async () => {
    const other = await ucpWorld();
    try {
      const q = await item(other.h);
      const theirs = (await other.ucp('POST', CO, cart({ id: q }))).body;
      // The same agent asks this store's host for the other store's session.
      const r = await other.agent.request(w.h.app, w.host, 'GET', `${CO}/${theirs.id}`);
      expect(r.status).toBe(404);
      expectUcp('error', r.body);
      // This store's catalog does not hold the other store's product.
      const c = (await other.agent.request(w.h.app, w.host, 'POST', CO, cart({ id: q }))).body;
      expect(c.messages).toContainEqual(expect.objectContaining({ code: 'item_unavailable' }));
      const unclaimed = await w.agent.request(w.h.app, 'nobody.example.com', 'GET', `${CO}/${theirs.id}`);
      expect(unclaimed.status).toBe(404);
      await enableUcp(other.h, other.host, { enabled: false });
      expect((await other.ucp('GET', '/.well-known/ucp', undefined, { sign: false })).status).toBe(404);
    } finally {
      other.agent.stop();
    }
  });

  test('an expired session reads as canceled and takes no change (409 checkout_expired)', async () => {
    const c = expectUcp('checkout', (await w.ucp('POST', CO, ready())).body);
    expect(Date.parse(c.expires_at) - w.h.clock.now().getTime()).toBe(3600_000);
    w.h.clock.advance(3601_000);
    const got = expectUcp('checkout', (await w.ucp('GET', `${CO}/${c.id}`)).body);
    expect(got.status).toBe('canceled');
    const r = await w.ucp('POST', `${CO}/${c.id}/complete`, MANUAL);
    expect(r.status).toBe(409);
    expect(expectUcp('error', r.body).messages[0].code).toBe('checkout_expired');
  });

  test('raw card data anywhere in a request is refused (400), and nothing is charged or created', async () => {
    const c = expectUcp('checkout', (await w.ucp('POST', CO, ready())).body);
    const card = {
      payment: {
        instruments: [{ id: 'i1', handler_id: 'manual', type: 'card', credential: { type: 'card', number: '4242424242424242', cvc: '123' } }],
      },
    };
    const r = await w.ucp('POST', `${CO}/${c.id}/complete`, card);
    expect(r.status).toBe(400);
    expect(r.body.content).toContain('raw card data');
    expect(expectUcp('checkout', (await w.ucp('GET', `${CO}/${c.id}`)).body).status).toBe('ready_for_complete');
    expect((await w.ucp('POST', CO, { ...cart({ id: p }), buyer: { email: 'x@example.com', card_number: '4111111111111111' } })).status).toBe(400);
  });
});

test(`50 agents racing for the last 5 units make exactly 5 orders (${backend})`, async () => {
  const last = await item(w.h, { stock_quantity: 5 });
  const sessions = await Promise.all(Array.from({ length: 50 }, () => w.ucp('POST', CO, { ...ready(), ...cart({ id: last }) })));
  const ids = sessions.map((s) => s.body.id as string);
  const results = await Promise.all(ids.map((id) => w.ucp('POST', `${CO}/${id}/complete`, MANUAL)));
  const statuses = results.map((r) => expectUcp('checkout', r.body).status);
  expect(statuses.filter((s) => s === 'completed')).toHaveLength(5);
  expect(results.filter((r) => r.body.status !== 'completed').every((r) => r.body.messages.some((m: any) => m.code === 'out_of_stock'))).toBe(true);
  const stock = (await w.h.call('GET', `/products/${last}`)).body.stock_quantity;
  expect(stock).toBe(0);
});
