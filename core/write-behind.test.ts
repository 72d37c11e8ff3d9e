import { expect, test } from 'bun:test';
import type { Db } from './db/types';
import { createLogger } from './log';
import { drainWriteBehinds, writeBehind, type WriteBehindOptions } from './write-behind';

/**
 * The write-behind primitive with a fake `write` (no database): what it writes, in which batches,
 * in which order, and when a caller waits. Nothing here measures time: long delays make sure only
 * a size, a flush or the drain can start a write.
 */

interface Item {
  n: number;
  key: string;
}

/** A fresh fake database handle per test: the write-behind keeps its state per database. */
const fakeDb = () => ({}) as Db;

function recorder(logs: { level: string; msg: string }[] = []) {
  const log = createLogger({ sink: (line) => void logs.push(JSON.parse(line)) });
  const batches: number[][] = [];
  /** Writes in flight, in the order they started; a test finishes them itself. */
  const open: { items: Item[]; finish: (err?: Error) => void }[] = [];
  let held = false;
  let failing = 0;
  const write: WriteBehindOptions<Item>['write'] = (_db, items) => {
    if (failing > 0) {
      failing--;
      return Promise.reject(new Error('database unreachable'));
    }
    if (!held) {
      batches.push(items.map((i) => i.n));
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        items,
        finish: (err?: Error) => {
          open.splice(open.indexOf(entry), 1);
          if (err) return reject(err);
          batches.push(items.map((i) => i.n));
          resolve();
        },
      };
      open.push(entry);
    });
  };
  return {
    log,
    logs,
    batches,
    open,
    write,
    hold: () => void (held = true),
    fail: (times: number) => void (failing = times),
  };
}

/** Waits (a few seconds at most) until `done`: what happens next is timer-driven, not synchronous. */
async function eventually(done: () => boolean) {
  for (let i = 0; i < 500 && !done(); i++) await Bun.sleep(5);
}

const item = (n: number, key = 'a') => ({ n, key });
const HOUR = 3_600_000;

test('items wait for a full batch (or the delay); a full batch is written at once, in order', async () => {
  const r = recorder();
  const wb = writeBehind<Item>({ name: 'test items', write: r.write, delayMs: HOUR, maxBatch: 3, maxPending: 100 });
  const db = fakeDb();
  for (let n = 1; n <= 4; n++) expect(wb.add(db, item(n), r.log)).toBeUndefined();
  await Bun.sleep(0);
  expect(r.batches).toEqual([[1, 2, 3]]);
  // The fourth waits for company: only a flush writes it within the hour.
  expect(wb.unwritten(() => true)).toEqual([item(4)]);
  await wb.flush(db);
  expect(r.batches).toEqual([[1, 2, 3], [4]]);
  // With no hour to wait, the delay alone writes an item.
  wb.add(db, item(5), r.log, 1);
  await eventually(() => r.batches.length === 3);
  expect(r.batches).toEqual([[1, 2, 3], [4], [5]]);
});

test('one write in flight per lane: a key’s next batch waits for its previous one, another lane’s does not', async () => {
  const r = recorder();
  const wb = writeBehind<Item>({ name: 'test items', write: r.write, delayMs: HOUR, maxBatch: 1, maxPending: 100, lanes: 2, laneOf: (i) => i.key });
  const db = fakeDb();
  r.hold();
  wb.add(db, item(1, 'a'), r.log);
  await Bun.sleep(0);
  expect(r.open.length).toBe(1);
  // A key of the other lane (found, not assumed): its write starts while a's is in flight.
  let other = '';
  for (const key of ['b', 'c', 'd', 'e', 'f', 'g', 'h']) {
    wb.add(db, item(2, key), r.log);
    await Bun.sleep(0);
    if (r.open.length === 2) {
      other = key;
      break;
    }
  }
  expect(other).not.toBe('');
  // a's next full batch waits for a's write in flight.
  wb.add(db, item(3, 'a'), r.log);
  await Bun.sleep(0);
  expect(r.open.length).toBe(2);
  r.open[0].finish();
  await eventually(() => r.open.length === 2 && r.open[1].items[0].n === 3);
  expect(r.open.map((w) => w.items[0].n)).toEqual([2, 3]);
  // Everything left is written by the drain, each lane's items in the order they came.
  const drained = wb.drain(db);
  for (let i = 0; i < 50 && wb.unwritten(() => true).length; i++) {
    for (const w of [...r.open]) w.finish();
    await Bun.sleep(0);
  }
  await drained;
  const aOrder = r.batches.flat().filter((n) => n === 1 || n === 3);
  expect(aOrder).toEqual([1, 3]);
  expect(wb.unwritten(() => true)).toEqual([]);
});

test('past maxPending an add waits for its own write, and resolves once it is written', async () => {
  const r = recorder();
  const wb = writeBehind<Item>({ name: 'test items', write: r.write, delayMs: HOUR, maxBatch: 10, maxPending: 3 });
  const db = fakeDb();
  r.hold();
  expect(wb.add(db, item(1), r.log)).toBeUndefined();
  expect(wb.add(db, item(2), r.log)).toBeUndefined();
  expect(wb.add(db, item(3), r.log)).toBeUndefined();
  const fourth = wb.add(db, item(4), r.log);
  expect(fourth).toBeInstanceOf(Promise);
  let answered = false;
  void fourth!.then(() => (answered = true));
  await Bun.sleep(0);
  // Its own write is in flight (all four in one batch), and it is not answered before it finishes.
  expect(r.open.map((w) => w.items.map((i) => i.n))).toEqual([[1, 2, 3, 4]]);
  expect(answered).toBe(false);
  r.open[0].finish();
  expect(await fourth).toBe(true);
  expect(r.batches).toEqual([[1, 2, 3, 4]]);
});

test('a failed write keeps its items pending, in order, logs once and is retried; no caller sees the error', async () => {
  const r = recorder();
  const wb = writeBehind<Item>({ name: 'test items', write: r.write, delayMs: 1, maxBatch: 10, maxPending: 100, retryMs: 1 });
  const db = fakeDb();
  r.fail(3);
  wb.add(db, item(1), r.log);
  wb.add(db, item(2), r.log);
  await eventually(() => r.batches.length > 0);
  wb.add(db, item(3), r.log);
  await wb.flush(db);
  expect(r.batches.flat()).toEqual([1, 2, 3]);
  expect(r.batches[0]).toEqual([1, 2]);
  expect(r.logs.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual(['test items: writing a batch failed; it is kept and retried']);
  expect(r.logs.some((l) => l.level === 'info' && l.msg === 'test items: writing works again')).toBe(true);
});

test('flush by predicate writes the matching items of that moment (and what shares their batch), not the others', async () => {
  const r = recorder();
  const wb = writeBehind<Item>({ name: 'test items', write: r.write, delayMs: HOUR, maxBatch: 2, maxPending: 100, lanes: 2, laneOf: (i) => i.key });
  const db = fakeDb();
  const other = fakeDb();
  wb.add(db, item(1, 'x'), r.log);
  wb.add(other, item(2, 'x'), r.log);
  await wb.flush(db, (i) => i.n === 1);
  expect(r.batches).toEqual([[1]]);
  // Another database's items are not written by this database's flush, but are listed as unwritten.
  expect(wb.unwritten((i) => i.key === 'x')).toEqual([item(2, 'x')]);
  await wb.flush(db, (i) => i.n === 2);
  expect(r.batches).toEqual([[1]]);
  await wb.flush(undefined, (i) => i.n === 2);
  expect(r.batches).toEqual([[1], [2]]);
});

test('after the drain, each add resolves only once its item is written; resume batches again', async () => {
  const r = recorder();
  const wb = writeBehind<Item>({ name: 'test items', write: r.write, delayMs: HOUR, maxBatch: 10, maxPending: 100 });
  const db = fakeDb();
  wb.add(db, item(1), r.log);
  wb.add(db, item(2), r.log);
  await drainWriteBehinds(db);
  expect(r.batches).toEqual([[1, 2]]);
  r.hold();
  const late = wb.add(db, item(3), r.log);
  expect(late).toBeInstanceOf(Promise);
  await Bun.sleep(0);
  expect(r.open.map((w) => w.items.map((i) => i.n))).toEqual([[3]]);
  r.open[0].finish();
  expect(await late).toBe(true);
  wb.resume(db);
  expect(wb.add(db, item(4), r.log)).toBeUndefined();
});

test('a drain that cannot write names what is lost, and the core shutdown reports it', async () => {
  const r = recorder();
  const wb = writeBehind<Item>({ name: 'test items', write: r.write, delayMs: HOUR, maxBatch: 10, maxPending: 100 });
  const db = fakeDb();
  wb.add(db, item(1), r.log);
  r.fail(Infinity);
  await expect(drainWriteBehinds(db)).rejects.toThrow('1 test items could not be written before shutdown');
}, 20_000);
