/** Finding customers: q (name or email), email, metadata[key]=value and created[gte]/[lt], index-backed, with pagination intact. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { mcpClient } from '../../test/kit/mcp';
import { setup, type Harness } from '../../test/kit/setup';

const ids = (r: { body: any }) => r.body.data.map((c: any) => c.email);

describe('searching by q', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
    for (const c of [
      { email: 'ada@lovelace.example', first_name: 'Ada', last_name: 'Lovelace' },
      { email: 'grace.hopper@navy.example', first_name: 'Grace', last_name: 'Hopper' },
      { email: 'alan@turing.example', first_name: 'Alan', last_name: 'Turing' },
      { email: 'percent@odd.example', first_name: '100%', last_name: 'Under_score' },
      { email: 'NoName@Example.com' },
    ])
      expect((await h.call('POST', '/customers', c)).status).toBe(201);
  });
  const q = (text: string) => h.call('GET', `/customers?q=${encodeURIComponent(text)}`);

  test('matches part of a first name, last name, full name or email, ignoring case; newest first', async () => {
    expect(ids(await q('ada'))).toEqual(['ada@lovelace.example']);
    expect(ids(await q('HOPP'))).toEqual(['grace.hopper@navy.example']);
    expect(ids(await q('ada love'))).toEqual(['ada@lovelace.example']);
    expect(ids(await q('.example'))).toEqual(['percent@odd.example', 'alan@turing.example', 'grace.hopper@navy.example', 'ada@lovelace.example']);
    expect(ids(await q('noname@example'))).toEqual(['NoName@Example.com']);
    expect(ids(await q('a'))).toContain('alan@turing.example');
    expect((await q('zebra')).body).toMatchObject({ object: 'list', data: [], has_more: false });
  });

  test('case is ignored beyond ASCII too', async () => {
    const c = (await h.call('POST', '/customers', { email: 'elodie@accents.example', first_name: 'Élodie', last_name: 'Ångström' })).body;
    expect(ids(await q('élodie'))).toEqual(['elodie@accents.example']);
    expect(ids(await q('ÅNGSTR'))).toEqual(['elodie@accents.example']);
    await h.call('DELETE', `/customers/${c.id}`);
  });

  test('% and _ in q are plain characters, not wildcards', async () => {
    expect(ids(await q('100%'))).toEqual(['percent@odd.example']);
    expect(ids(await q('under_'))).toEqual(['percent@odd.example']);
    expect(ids(await q('%'))).toEqual(['percent@odd.example']);
    expect(ids(await q('_'))).toEqual(['percent@odd.example']);
  });

  test('an empty or overlong q is 400 naming q', async () => {
    for (const text of ['', 'x'.repeat(201)]) {
      const r = await q(text);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: 'validation_failed', param: 'q' });
    }
  });

  test('q pages with cursors like the plain list, and combines with email', async () => {
    const first = await h.call('GET', '/customers?q=example&limit=2');
    expect(first.body.has_more).toBe(true);
    const second = await h.call('GET', `/customers?q=example&limit=2&starting_after=${first.body.data[1].id}`);
    const third = await h.call('GET', `/customers?q=example&limit=2&starting_after=${second.body.data[1].id}`);
    expect([...ids(first), ...ids(second), ...ids(third)]).toEqual([
      'NoName@Example.com',
      'percent@odd.example',
      'alan@turing.example',
      'grace.hopper@navy.example',
      'ada@lovelace.example',
    ]);
    expect(third.body.has_more).toBe(false);
    expect(ids(await h.call('GET', '/customers?q=turing&email=ALAN@turing.example'))).toEqual(['alan@turing.example']);
    expect(ids(await h.call('GET', '/customers?q=hopper&email=alan@turing.example'))).toEqual([]);
  });

  test('an erased customer matches nothing', async () => {
    const c = (await h.call('POST', '/customers', { email: 'erase.me@example.org', first_name: 'Erasmus' })).body;
    expect(ids(await q('erasmus'))).toEqual(['erase.me@example.org']);
    await h.call('DELETE', `/customers/${c.id}`);
    expect(ids(await q('erasmus'))).toEqual([]);
    expect(ids(await q('erase.me'))).toEqual([]);
  });

  test("another store's customers never match", async () => {
    const other = await setup();
    expect(ids(await other.call('GET', '/customers?q=lovelace'))).toEqual([]);
  });
});

describe('metadata on customers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await setup();
    for (const [email, metadata] of [
      ['a@m.example', { tier: 'gold', region: 'eu' }],
      ['b@m.example', { tier: 'gold', region: 'us' }],
      ['c@m.example', { tier: 'silver' }],
    ] as const)
      expect((await h.call('POST', '/customers', { email, metadata })).status).toBe(201);
  });

  test('metadata[key]=value lists the customers with that pair; several pairs must all match', async () => {
    expect(ids(await h.call('GET', '/customers?metadata[tier]=gold'))).toEqual(['b@m.example', 'a@m.example']);
    expect(ids(await h.call('GET', '/customers?metadata[tier]=gold&metadata[region]=eu'))).toEqual(['a@m.example']);
    expect(ids(await h.call('GET', '/customers?metadata%5Btier%5D=silver'))).toEqual(['c@m.example']);
    expect(ids(await h.call('GET', '/customers?metadata[tier]=Gold'))).toEqual([]);
    expect(ids(await h.call('GET', '/customers?metadata[nope]=gold'))).toEqual([]);
  });

  test('a pair removed by update ("" removes the key) no longer matches', async () => {
    const c = (await h.call('POST', '/customers', { email: 'd@m.example', metadata: { tier: 'bronze', keep: 'yes' } })).body;
    expect(ids(await h.call('GET', '/customers?metadata[tier]=bronze'))).toEqual(['d@m.example']);
    const r = await h.call('PATCH', `/customers/${c.id}`, { metadata: { tier: '' } });
    expect(r.body.metadata).toEqual({ keep: 'yes' });
    expect(ids(await h.call('GET', '/customers?metadata[tier]=bronze'))).toEqual([]);
  });

  test('bad filters are 400 naming the field: empty value, long key, nesting, a bare metadata', async () => {
    const cases: [string, string][] = [
      ['metadata[tier]=', 'metadata.tier'],
      [`metadata[${'k'.repeat(41)}]=v`, 'metadata'],
      [`metadata[k]=${'v'.repeat(501)}`, 'metadata.k'],
      ['metadata[a][b]=v', 'metadata[a][b]'],
      ['metadata=gold', 'metadata'],
      ['metadatas[tier]=gold', 'metadatas[tier]'],
    ];
    for (const [query, param] of cases) {
      const r = await h.call('GET', `/customers?${query}`);
      expect({ query, status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
        param,
      });
    }
  });

  test('a key named __proto__ is a key like any other', async () => {
    expect((await h.call('POST', '/customers', { email: 'p@m.example', metadata: JSON.parse('{"__proto__": "x"}') })).status).toBe(201);
    expect(ids(await h.call('GET', '/customers?metadata[__proto__]=x'))).toEqual(['p@m.example']);
  });

  test('over MCP the filter is an object', async () => {
    const { client } = await mcpClient(h);
    const r: any = await client.callTool({ name: 'customers_list_customers', arguments: { metadata: { tier: 'silver' } } });
    await client.close();
    expect(r.structuredContent.data.map((c: any) => c.email)).toEqual(['c@m.example']);
  });
});

describe('created[gte] / created[lt]', () => {
  test('bounds select by creation time, inclusive or not as named; dates mean midnight UTC', async () => {
    const h = await setup({ now: '2026-03-31T23:59:59Z' });
    await h.call('POST', '/customers', { email: 'march@t.example' });
    h.clock.set('2026-04-01T00:00:00Z');
    await h.call('POST', '/customers', { email: 'april1@t.example' });
    h.clock.set('2026-04-15T12:00:00Z');
    await h.call('POST', '/customers', { email: 'april15@t.example' });
    const list = async (query: string) => ids(await h.call('GET', `/customers?${query}`));
    expect(await list('created[gte]=2026-04-01')).toEqual(['april15@t.example', 'april1@t.example']);
    expect(await list('created[gt]=2026-04-01T00:00:00Z')).toEqual(['april15@t.example']);
    expect(await list('created[lt]=2026-04-01')).toEqual(['march@t.example']);
    expect(await list('created[lte]=2026-04-01T00:00:00Z')).toEqual(['april1@t.example', 'march@t.example']);
    expect(await list('created[gte]=2026-04-01T02:00:00%2B02:00&created[lt]=2026-04-02')).toEqual(['april1@t.example']);
    expect(await list('created[gte]=2026-05-01&created[lte]=2026-04-01')).toEqual([]);
  });

  test('a malformed or impossible bound, or an unknown operator, is 400 naming it', async () => {
    const h = await setup();
    const cases: [string, string][] = [
      ['created[gte]=yesterday', 'created.gte'],
      ['created[gte]=2026-02-30', 'created.gte'],
      ['created[lt]=2026-04-01T24:00:00Z', 'created.lt'],
      ['created[lt]=2026-04-01T10:00:00', 'created.lt'],
      ['created[gte]=2026-04-01T10:00:00+02:00', 'created.gte'],
      ['created[after]=2026-04-01', 'created.after'],
      ['created=2026-04-01', 'created'],
    ];
    for (const [query, param] of cases) {
      const r = await h.call('GET', `/customers?${query}`);
      expect({ query, status: r.status, param: r.body.error?.param }).toEqual({ query, status: 400, param });
    }
  });
});

describe('the filters are index-backed', () => {
  test('the search, metadata and created indexes exist, and the planner uses them for q and metadata', async () => {
    const h = await setup();
    const indexes = (await h.db.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE tablename = 'customers'")).map(
      (r) => r.indexname,
    );
    expect(indexes).toEqual(expect.arrayContaining(['customers_search', 'customers_metadata', 'customers_store_created', 'customers_store_email']));
    const plan = (sql: string, params: unknown[]) =>
      h.db.transaction(async (tx) => {
        // Few rows in a test database: tell the planner scans are dear, as they are at scale.
        await tx.exec('SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = off');
        return (await tx.query<Record<string, string>>(`EXPLAIN ${sql}`, params)).map((r) => Object.values(r)[0]).join('\n');
      });
    const search = await plan(
      `SELECT * FROM customers WHERE lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '')) LIKE $1`,
      ['%lovelace%'],
    );
    expect(search).toContain('customers_search');
    expect(await plan('SELECT * FROM customers WHERE metadata @> $1::text::jsonb', ['{"tier":"gold"}'])).toContain('customers_metadata');
  });
});
