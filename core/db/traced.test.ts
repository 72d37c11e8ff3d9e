/** A traced Db carries a span to its queries; what is kept per database stays one per database (both backends). */
import { afterEach, beforeAll, expect, test } from 'bun:test';
import { sharedDb } from '../../test/kit/db';
import { installTracer, tracing, type Tracer } from '../plugins/telemetry';
import { writeBehind } from '../write-behind';
import { createLogger } from '../log';
import { baseDb, spanOf, tracedDb } from './traced';
import type { Db } from './types';

let db: Db;
const log = createLogger();
beforeAll(async () => {
  db = await sharedDb();
});

/** A tracer that only notes which span each query ran inside (and its text). */
function recordingTracer() {
  const queries: { parent: object | undefined; text: string }[] = [];
  const inContext = { name: 'in async context' };
  const tracer: Tracer = {
    span: (_k, _n, _a, run) => Promise.resolve(run()),
    open: () => ({}),
    close() {},
    fail() {},
    enter: (_s, run) => run(),
    record() {},
    annotate() {},
    queryStart: (carried) => carried ?? inContext,
    queryEnd: (parent, text) => void queries.push({ parent, text }),
  };
  return { tracer, queries, inContext };
}

const before = tracing.tracer;
afterEach(() => installTracer(before));

test("a traced Db's queries, in and out of its transactions, run inside its span; the Db underneath is the same database", async () => {
  const { tracer, queries, inContext } = recordingTracer();
  installTracer(tracer);
  const span = { name: 'request' };
  const traced = tracedDb(db, span);
  expect(baseDb(traced)).toBe(db);
  expect(baseDb(db)).toBe(db);
  expect(spanOf(traced)).toBe(span);
  expect(spanOf(db)).toBeUndefined();
  expect(traced.kind).toBe(db.kind);

  expect(await traced.query<{ n: number }>('SELECT 1 AS n')).toEqual([{ n: 1 }]);
  const inTx = await traced.transaction(async (tx) => {
    expect(spanOf(tx)).toBe(span);
    // A transaction inside the transaction is the same one, and still carries the span.
    return tx.transaction((again) => again.query<{ n: number }>('SELECT 2 AS n'));
  });
  expect(inTx).toEqual([{ n: 2 }]);
  await db.query('SELECT 3 AS n');
  expect(queries.map((q) => [q.text, q.parent])).toEqual([
    ['SELECT 1 AS n', span],
    ['SELECT 2 AS n', span],
    ['SELECT 3 AS n', inContext],
  ]);

  // A traced Db over a traced Db carries the newer span over the same database.
  const child = { name: 'tool call' };
  const nested = tracedDb(traced, child);
  expect(baseDb(nested)).toBe(db);
  await nested.query('SELECT 4 AS n');
  expect(queries.at(-1)).toEqual({ text: 'SELECT 4 AS n', parent: child });

  // A failed statement still ends its timing, and fails as it would untraced.
  await expect(traced.query('SELECT * FROM no_such_table_here')).rejects.toThrow(/no_such_table_here/);
  expect(queries.at(-1)).toEqual({ text: 'SELECT * FROM no_such_table_here', parent: span });
});

test('what is kept per database (a write-behind) is shared by every traced Db over it', async () => {
  const batches: { on: Db; items: number[] }[] = [];
  const wb = writeBehind<{ n: number }>({
    name: 'traced db test',
    write: async (on, items) => void batches.push({ on, items: items.map((i) => i.n) }),
    delayMs: 10_000,
    maxBatch: 100,
    maxPending: 100,
  });
  // Two requests' traced Dbs: one lane, written once, through the database itself.
  wb.add(tracedDb(db, { name: 'a' }), { n: 1 }, log);
  wb.add(tracedDb(db, { name: 'b' }), { n: 2 }, log);
  await wb.flush(tracedDb(db, { name: 'c' }));
  expect(batches).toHaveLength(1);
  expect(batches[0].on).toBe(db);
  expect(batches[0].items).toEqual([1, 2]);
});
