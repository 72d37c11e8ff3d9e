/** Customers (SPEC 4.10 customers tool, 5.4 scopes, 7 errors): create, read, list, update, validation, isolation. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectError(r: { status: number; body: any }, status: number, type: string, code: string, param: string | null) {
  expect({ status: r.status, type: r.body.error?.type, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ status, type, code, param });
}
const expect400 = (r: { status: number; body: any }, param: string | null) =>
  expectError(r, 400, 'invalid_request_error', 'validation_failed', param);

let n = 0;
const email = () => `shopper${++n}.${crypto.randomUUID().slice(0, 6)}@example.com`;

async function create(h: Harness, over: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/customers', { email: email(), ...over });
  expect(r.status).toBe(201);
  return r.body;
}

/** Every customer of the store, walking all pages. */
async function allCustomers(h: Harness, pageSize = 100) {
  const out: any[] = [];
  let after = '';
  for (;;) {
    const r = await h.call('GET', `/customers?limit=${pageSize}${after ? `&starting_after=${after}` : ''}`);
    expect(r.status).toBe(200);
    out.push(...r.body.data);
    if (!r.body.has_more) return out;
    after = r.body.data.at(-1).id;
  }
}

describe('creating and reading a customer', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup({ now: '2026-04-01T12:00:00.000Z' });
  });

  test('create answers 201 with every field, and GET reads the same customer back', async () => {
    const r = await h.call('POST', '/customers', {
      email: 'Ada.Lovelace@Example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+44 (20) 7946-0958',
      accepts_marketing: true,
      tags: ['wholesale', 'london', 'wholesale'],
      metadata: { crm_id: '42' },
      addresses: [{ line1: '12 St James Sq', city: 'London', postal_code: 'SW1Y 4JH', country: 'GB' }],
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      object: 'customer',
      id: expect.stringMatching(UUID),
      email: 'Ada.Lovelace@Example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+442079460958',
      accepts_marketing: true,
      tags: ['wholesale', 'london'],
      metadata: { crm_id: '42' },
      addresses: [{ line1: '12 St James Sq', city: 'London', postal_code: 'SW1Y 4JH', country: 'GB' }],
      enrichment: null,
      created_at: '2026-04-01T12:00:00.000Z',
      updated_at: '2026-04-01T12:00:00.000Z',
    });
    const got = await h.call('GET', `/customers/${r.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
  });

  test('only email is required: the rest defaults to null, false or empty', async () => {
    const c = await create(h);
    expect(c).toMatchObject({
      first_name: null,
      last_name: null,
      phone: null,
      accepts_marketing: false,
      tags: [],
      metadata: {},
      addresses: [],
      enrichment: null,
    });
  });

  test('a missing or malformed email is 400 with param email, and nothing is created', async () => {
    const before = (await allCustomers(h)).length;
    expect400(await h.call('POST', '/customers', { first_name: 'No email' }), 'email');
    for (const bad of ['plain', 'a@b', '@example.com', 'a b@example.com', 'a@exa mple.com', 'a@-example.com', `${'x'.repeat(65)}@example.com`, 42])
      expect400(await h.call('POST', '/customers', { email: bad }), 'email');
    expect((await allCustomers(h)).length).toBe(before);
  });

  test('a duplicate email, whatever its case, is 409 duplicate_email with param email', async () => {
    await create(h, { email: 'dup@example.com', first_name: 'First' });
    expectError(await h.call('POST', '/customers', { email: 'DUP@Example.COM' }), 409, 'conflict_error', 'duplicate_email', 'email');
    const found = await h.call('GET', '/customers?email=dup@example.com');
    expect(found.body.data.map((c: any) => c.first_name)).toEqual(['First']);
  });

  test('emails are unique per store: another store may hold the same address', async () => {
    await create(h, { email: 'shared@example.com' });
    const other = await setup();
    expect((await other.call('POST', '/customers', { email: 'shared@example.com' })).status).toBe(201);
  });

  test('phones must be international (+country code, 7 to 15 digits): anything else is 400 with param phone', async () => {
    for (const bad of ['4155550100', '+0 415 555 0100', '+1 415', '+1234567890123456', '+1 415 555 0100 ext 2', '+1--415'])
      expect400(await h.call('POST', '/customers', { email: email(), phone: bad }), 'phone');
    expect((await create(h, { phone: '+1.415.555.0100' })).phone).toBe('+14155550100');
  });

  test('wrong types and unknown fields are 400 naming the field', async () => {
    expect400(await h.call('POST', '/customers', { email: email(), accepts_marketing: 'yes' }), 'accepts_marketing');
    expect400(await h.call('POST', '/customers', { email: email(), tags: ['ok', 7] }), 'tags.1');
    expect400(await h.call('POST', '/customers', { email: email(), tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }), 'tags');
    expect400(await h.call('POST', '/customers', { email: email(), nickname: 'Ada' }), 'nickname');
    expect400(await h.call('POST', '/customers', { email: email(), addresses: [{ city: 'Paris' }] }), 'addresses.0.line1');
    expect400(await h.call('POST', '/customers', { email: email(), addresses: [{ line1: 'x', country: 'France' }] }), 'addresses.0.country');
  });

  test('metadata is string to string, at most 50 keys of at most 40 characters and values of at most 500', async () => {
    expect400(await h.call('POST', '/customers', { email: email(), metadata: { n: 1 } }), 'metadata.n');
    expect400(await h.call('POST', '/customers', { email: email(), metadata: { k: 'v'.repeat(501) } }), 'metadata.k');
    expect400(await h.call('POST', '/customers', { email: email(), metadata: { ['k'.repeat(41)]: 'v' } }), 'metadata');
    expect400(await h.call('POST', '/customers', { email: email(), metadata: { '': 'v' } }), 'metadata');
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect((await h.call('POST', '/customers', { email: email(), metadata: fifty })).status).toBe(201);
    expect400(await h.call('POST', '/customers', { email: email(), metadata: { ...fifty, k50: 'v' } }), 'metadata');
  });

  test('text PostgreSQL cannot store (U+0000, a lone surrogate) is a 400 naming the field, never a 500', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ first_name: 'A\u0000da' }, 'first_name'],
      [{ tags: ['a\u0000'] }, 'tags.0'],
      [{ metadata: { k: 'v\u0000' } }, 'metadata.k'],
      [{ metadata: { 'k\u0000': 'v' } }, 'metadata'],
      [{ addresses: [{ line1: '\u0000' }] }, 'addresses.0.line1'],
      [{ last_name: 'x\ud800y' }, 'last_name'],
      [{ metadata: { k: '\udc00' } }, 'metadata.k'],
    ];
    for (const [body, param] of cases) expect400(await h.call('POST', '/customers', { email: email(), ...body }), param);
    expect400(await h.call('POST', '/customers', { email: 'a\u0000@example.com' }), 'email');
    expect400(await h.call('GET', '/customers?email=a%00@example.com'), 'email');
    // A well-formed surrogate pair (an emoji) is ordinary text.
    expect((await create(h, { first_name: 'Ada 🚀', metadata: { mood: '🚀' } })).first_name).toBe('Ada 🚀');
  });

  test('an unknown or malformed id is 404 / 400, not a 500', async () => {
    expectError(await h.call('GET', `/customers/${crypto.randomUUID()}`), 404, 'not_found_error', 'resource_missing', 'id');
    expectError(await h.call('GET', '/customers/not-a-uuid'), 404, 'not_found_error', 'resource_missing', 'id');
  });
});

describe('updating a customer', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup({ now: '2026-04-01T00:00:00.000Z' });
  });

  test('PATCH changes the fields given, keeps the rest, and moves updated_at only', async () => {
    const c = await create(h, { first_name: 'Grace', last_name: 'Hopper', phone: '+12025550100', tags: ['navy'], metadata: { a: '1', b: '2' } });
    h.clock.advance(60_000);
    const r = await h.call('PATCH', `/customers/${c.id}`, {
      last_name: null,
      phone: '+1 202 555 0199',
      accepts_marketing: true,
      tags: ['cobol'],
      metadata: { a: '10', b: '', c: '3' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      ...c,
      last_name: null,
      phone: '+12025550199',
      accepts_marketing: true,
      tags: ['cobol'],
      metadata: { a: '10', c: '3' },
      updated_at: '2026-04-01T00:01:00.000Z',
    });
    expect((await h.call('GET', `/customers/${c.id}`)).body).toEqual(r.body);
    // Stripe style: null also removes a metadata key.
    expect((await h.call('PATCH', `/customers/${c.id}`, { metadata: { a: null } })).body.metadata).toEqual({ c: '3' });
  });

  test("PATCH onto another customer's email (any case) is 409 duplicate_email; changing the case of one's own is fine", async () => {
    const taken = await create(h, { email: 'taken@example.com' });
    const c = await create(h, { email: 'mine@example.com' });
    expectError(await h.call('PATCH', `/customers/${c.id}`, { email: 'TAKEN@example.com' }), 409, 'conflict_error', 'duplicate_email', 'email');
    expect((await h.call('GET', `/customers/${c.id}`)).body.email).toBe('mine@example.com');
    expect((await h.call('PATCH', `/customers/${c.id}`, { email: 'Mine@Example.com' })).body.email).toBe('Mine@Example.com');
    expect((await h.call('GET', `/customers/${taken.id}`)).body.email).toBe('taken@example.com');
  });

  test('PATCH validates like create, and a merge past 50 metadata keys is 400', async () => {
    const c = await create(h, { metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v'])) });
    expect400(await h.call('PATCH', `/customers/${c.id}`, { email: 'nope' }), 'email');
    expect400(await h.call('PATCH', `/customers/${c.id}`, { phone: '555' }), 'phone');
    expect400(await h.call('PATCH', `/customers/${c.id}`, { enrichment: {} }), 'enrichment');
    expect400(await h.call('PATCH', `/customers/${c.id}`, { metadata: { extra: 'v' } }), 'metadata');
    expect((await h.call('PATCH', `/customers/${c.id}`, { metadata: { k0: null, extra: 'v' } })).status).toBe(200);
  });

  test('PATCH of an unknown customer is 404 with param id', async () => {
    expectError(await h.call('PATCH', `/customers/${crypto.randomUUID()}`, { first_name: 'X' }), 404, 'not_found_error', 'resource_missing', 'id');
  });
});

describe('listing customers', () => {
  let h: Harness;
  let ids: string[];
  beforeAll(async () => {
    h = await setup();
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await create(h, { email: `list${i}@example.com` })).id);
  });

  test('the list is newest first in the list envelope', async () => {
    const r = await h.call('GET', '/customers');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ object: 'list', has_more: false, url: `${h.base}/customers` });
    expect(r.body.data.map((c: any) => c.id)).toEqual([...ids].reverse());
  });

  test('cursor pagination walks every customer once, forwards and backwards', async () => {
    const first = await h.call('GET', '/customers?limit=2');
    expect(first.body.data.map((c: any) => c.id)).toEqual([ids[4], ids[3]]);
    expect(first.body.has_more).toBe(true);
    const walked = await allCustomers(h, 2);
    expect(walked.map((c) => c.id)).toEqual([...ids].reverse());
    const back = await h.call('GET', `/customers?limit=2&ending_before=${ids[1]}`);
    expect(back.body.data.map((c: any) => c.id)).toEqual([ids[3], ids[2]]);
    expect400(await h.call('GET', '/customers?limit=0'), 'limit');
    expect400(await h.call('GET', '/customers?limit=101'), 'limit');
  });

  test('email filters exactly and case-insensitively', async () => {
    const r = await h.call('GET', '/customers?email=LIST3%40Example.com');
    expect(r.body.data.map((c: any) => c.id)).toEqual([ids[3]]);
    expect((await h.call('GET', '/customers?email=list3')).body.data).toEqual([]);
    expect((await h.call('GET', '/customers?email=list%25%40example.com')).body.data).toEqual([]);
  });

  test("another store's customers are invisible: not listed, and 404 by id for get, update and enrich", async () => {
    const other = await setup();
    const theirs = await create(other, { email: 'list0@example.com' });
    expect((await allCustomers(h)).map((c) => c.id)).not.toContain(theirs.id);
    expect((await h.call('GET', '/customers?email=list0@example.com')).body.data.map((c: any) => c.id)).toEqual([ids[0]]);
    expectError(await h.call('GET', `/customers/${theirs.id}`), 404, 'not_found_error', 'resource_missing', 'id');
    expectError(await h.call('PATCH', `/customers/${theirs.id}`, { first_name: 'Mallory' }), 404, 'not_found_error', 'resource_missing', 'id');
    expectError(await h.call('POST', `/customers/${theirs.id}/enrich`), 404, 'not_found_error', 'resource_missing', 'id');
    expect((await other.call('GET', `/customers/${theirs.id}`)).body.first_name).toBeNull();
  });
});

describe('scopes (SPEC 5.4: customers, customers:read, customers:write, crm)', () => {
  let h: Harness;
  let c: any;
  beforeAll(async () => {
    h = await setup();
    c = await create(h);
  });
  const as = (key: string) => ({ 'x-api-key': key });

  test('customers:read can list and get but not create, update or enrich (403 insufficient_scope)', async () => {
    const key = await h.newKey(['customers:read']);
    expect((await h.call('GET', '/customers', undefined, as(key))).status).toBe(200);
    expect((await h.call('GET', `/customers/${c.id}`, undefined, as(key))).status).toBe(200);
    expectError(await h.call('POST', '/customers', { email: email() }, as(key)), 403, 'permission_error', 'insufficient_scope', null);
    expectError(await h.call('PATCH', `/customers/${c.id}`, { first_name: 'X' }, as(key)), 403, 'permission_error', 'insufficient_scope', null);
    expectError(await h.call('POST', `/customers/${c.id}/enrich`, undefined, as(key)), 403, 'permission_error', 'insufficient_scope', null);
    expect((await h.call('GET', `/customers/${c.id}`)).body.first_name).toBeNull();
  });

  test('a bare crm key (or bare customers) reads and writes', async () => {
    for (const scope of ['crm', 'customers']) {
      const key = await h.newKey([scope]);
      const made = await h.call('POST', '/customers', { email: email() }, as(key));
      expect(made.status).toBe(201);
      expect((await h.call('PATCH', `/customers/${made.body.id}`, { first_name: 'Crm' }, as(key))).status).toBe(200);
      expect((await h.call('GET', '/customers', undefined, as(key))).status).toBe(200);
      // Enrichment reads the customer's orders through the orders plugin as the customers plugin
      // (calls: ['orders']): this key enriches, and still cannot list orders itself.
      expect((await h.call('POST', `/customers/${made.body.id}/enrich`, undefined, as(key))).status).toBe(200);
      expectError(await h.call('GET', '/orders', undefined, as(key)), 403, 'permission_error', 'insufficient_scope', null);
    }
  });

  test('customers:write writes; keys for other resources get 403', async () => {
    expect((await h.call('POST', '/customers', { email: email() }, as(await h.newKey(['customers:write'])))).status).toBe(201);
    const products = await h.newKey(['products', 'orders', 'catalog']);
    expectError(await h.call('GET', '/customers', undefined, as(products)), 403, 'permission_error', 'insufficient_scope', null);
  });
});
