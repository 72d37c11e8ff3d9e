/** The plugin kit's row helpers, on a scratch table of their own (both backends). */
import { beforeAll, describe, expect, test } from 'bun:test';
import { sharedDb } from '../../test/kit/db';
import { SvcError, errors } from '../errors';
import type { Db } from './types';
import { jsonParam, listPage, rowOr404, setClause, stamps, unique } from './rows';

let db: Db;
const storeId = crypto.randomUUID();
const otherStore = crypto.randomUUID();
const scope = () => ({ db, store: { id: storeId, name: 'Kit', plan: 'pro' as const }, storePath: '/v1/stores/s1' });

async function insert(store: string, name: string, extra: { colour?: string; data?: unknown } = {}) {
  const [r] = await db.query(
    `INSERT INTO rows_kit_things (id, store_id, name, colour, data, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, $2, $3, $4::text::jsonb, $5, $5) RETURNING *`,
    [store, name, extra.colour ?? null, jsonParam(extra.data ?? null), new Date('2026-04-01T10:00:00+02:00')],
  );
  return r;
}

async function thrown(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}

beforeAll(async () => {
  db = await sharedDb();
  await db.exec(`CREATE TABLE IF NOT EXISTS rows_kit_things (
    id uuid PRIMARY KEY, store_id uuid NOT NULL, seq bigserial NOT NULL, name text NOT NULL, colour text, data jsonb,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, CONSTRAINT rows_kit_name UNIQUE (store_id, name))`);
});

describe('rowOr404', () => {
  test("finds this store's row; an unknown or other-store id is 404 naming the noun and param", async () => {
    const mine = await insert(storeId, 'a');
    const theirs = await insert(otherStore, 'b');
    expect((await rowOr404(db, { table: 'rows_kit_things', storeId, id: mine.id, noun: 'thing' })).name).toBe('a');
    const e = await thrown(rowOr404(db, { table: 'rows_kit_things', storeId, id: theirs.id, noun: 'thing', param: 'thing_id' }));
    expect(e).toBeInstanceOf(SvcError);
    expect({ status: e.status, code: e.code, message: e.message, param: e.param }).toEqual({
      status: 404,
      code: 'resource_missing',
      message: `No such thing: '${theirs.id}'.`,
      param: 'thing_id',
    });
  });

  test('an extra condition hides rows, and a lock works inside a transaction', async () => {
    const r = await insert(storeId, 'red one', { colour: 'red' });
    const q = { table: 'rows_kit_things', storeId, id: r.id, noun: 'thing' };
    expect((await thrown(rowOr404(db, { ...q, where: "colour = 'blue'" }))).status).toBe(404);
    const locked = await db.transaction((tx) => rowOr404(tx, { ...q, where: "colour = 'red'", lock: 'FOR UPDATE' }));
    expect(locked.id).toBe(r.id);
  });
});

describe('listPage', () => {
  test('the SPEC envelope, newest first, filters left out when undefined, cursors from pagination.ts', async () => {
    const store = crypto.randomUUID();
    const ctx = { ...scope(), store: { ...scope().store, id: store } };
    const a = await insert(store, 'one', { colour: 'red' });
    await insert(store, 'two', { colour: 'blue' });
    const c = await insert(store, 'three', { colour: 'red' });
    await insert(otherStore, 'not mine', { colour: 'red' });
    const names = (rows: any[]) => rows.map((r) => r.name);

    const all = await listPage(ctx, { table: 'rows_kit_things', path: '/things', input: {}, filters: { 'colour = $': undefined } }, names);
    expect(all).toEqual({ object: 'list', data: ['three', 'two', 'one'], has_more: false, url: '/v1/stores/s1/things' });

    // `$` may appear twice in one condition: both are the same value.
    const red = await listPage(
      ctx,
      { table: 'rows_kit_things', path: '/things', input: { limit: 1 }, filters: { '(colour = $ OR name = $)': 'red' } },
      names,
    );
    expect(red).toMatchObject({ data: ['three'], has_more: true });
    const next = await listPage(
      ctx,
      { table: 'rows_kit_things', path: '/things', input: { starting_after: c.id }, where: ["name <> 'zzz'"], filters: { 'colour = $': 'red' } },
      async (rows) => rows.map((r) => r.id),
    );
    expect(next).toMatchObject({ data: [a.id], has_more: false });
    const missing = await thrown(listPage(ctx, { table: 'rows_kit_things', path: '/things', input: { ending_before: crypto.randomUUID() } }, names));
    expect({ status: missing.status, code: missing.code, param: missing.param }).toEqual({
      status: 400,
      code: 'invalid_cursor',
      param: 'ending_before',
    });
  });
});

describe('unique', () => {
  test('a violation of a listed constraint becomes the chosen 409; others stay as they were', async () => {
    await insert(storeId, 'taken');
    const conflict = () => errors.conflict("A thing named 'taken' already exists in this store.", 'conflict_error', 'name');
    const e = await thrown(unique(insert(storeId, 'taken'), { rows_kit_name: conflict }));
    expect({ status: e.status, code: e.code, param: e.param }).toEqual({ status: 409, code: 'conflict_error', param: 'name' });

    const raw = await thrown(unique(insert(storeId, 'taken'), { some_other_index: conflict }));
    expect(raw).not.toBeInstanceOf(SvcError);
    const notUnique = await thrown(unique(db.query('SELECT 1/0'), { rows_kit_name: conflict }));
    expect(notUnique).not.toBeInstanceOf(SvcError);
    expect((await unique(insert(storeId, 'free'), { rows_kit_name: conflict })).name).toBe('free');
  });
});

describe('setClause, jsonParam, stamps', () => {
  test("numbers only the given fields after the statement's own, casting json columns", () => {
    const set = setClause({ name: 'x', colour: undefined, data: { a: 1 }, updated_at: 't' }, { json: ['data'], after: 2 });
    expect(set).toEqual({ sql: 'name = $3, data = $4::text::jsonb, updated_at = $5', params: ['x', '{"a":1}', 't'] });
    expect(setClause({ colour: null }).sql).toBe('colour = $1');
    expect(() => setClause({ 'name = 1; --': 'x' })).toThrow();
  });

  test('a PATCH through setClause: left out keeps, null clears, json round-trips, timestamps read back as ISO UTC', async () => {
    const r = await insert(storeId, 'patch me', { colour: 'red', data: { keep: true } });
    const set = setClause(
      { name: undefined, colour: null, data: ['x', { y: 'é' }], updated_at: new Date('2026-04-02T00:00:00Z') },
      { json: ['data'], after: 2 },
    );
    const [out] = await db.query(`UPDATE rows_kit_things SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *`, [storeId, r.id, ...set.params]);
    expect(out).toMatchObject({ name: 'patch me', colour: null, data: ['x', { y: 'é' }] });
    expect(stamps(out)).toEqual({ created_at: '2026-04-01T08:00:00.000Z', updated_at: '2026-04-02T00:00:00.000Z' });
    expect(jsonParam(null)).toBeNull();
    expect(jsonParam(undefined)).toBeNull();
    expect(jsonParam([])).toBe('[]');
  });
});
