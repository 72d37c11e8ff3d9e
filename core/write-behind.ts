import type { Db } from './db/types';
import { errorFields, type Logger } from './log';

/**
 * Write-behind: high-rate events (QR scans, email opens, views, clicks, usage counters) answered at
 * once and written a few milliseconds later, many in one statement. One commit per batch instead of
 * one per event is most of what such an event costs the database.
 *
 * - Batching: a batch is written when its oldest item has waited `delayMs`, or at once when
 *   `maxBatch` items wait.
 * - Lanes: items are split between `lanes` by `laneOf` (a key: a code's id); each lane has one
 *   write in flight, so the writes of one key never overlap (they never wait on each other's
 *   row locks) and two lanes let one write use the CPU while another waits for its commit.
 * - Backpressure: past `maxPending` unwritten items (split evenly between lanes), an `add` resolves
 *   only after its own write, so memory and what a crash can lose stay bounded.
 * - Retry: a failed write keeps its items pending, in order, and is tried again after `retryMs`,
 *   doubling up to `retryMaxMs`; the failure is logged once, never thrown at the request.
 * - Read-your-writes: `flush(db, matches)` writes the items pending now that match before a read.
 * - Shutdown: the core drains every write-behind of the server's database before it closes
 *   (core/server.ts, `drainWriteBehinds`); from then on each `add` resolves after its own write.
 *
 * What a crash (kill -9, power loss) loses: the items still in memory, at most `maxPending`.
 * `write` gets one batch; it should be one transaction and idempotent (an item whose commit's
 * answer was lost is written again by the retry).
 */
export interface WriteBehindOptions<T extends object> {
  /** What is recorded, for logs and the shutdown's error: 'qr scans'. */
  name: string;
  /** Writes one batch (through `db`, the server's database). */
  write: (db: Db, items: T[]) => Promise<void>;
  /** How long an item may wait for company (an `add` may pass its own, from the plugin's config). */
  delayMs: number;
  /** Items per write; a full batch is written at once. */
  maxBatch: number;
  /** More items than this not yet written, and new ones wait for their own write. */
  maxPending: number;
  /** How many lanes (default 1). */
  lanes?: number;
  /** An item's lane key: items of one key share a lane, so their writes never overlap. */
  laneOf?: (item: T) => string;
  /** A failed write is tried again after this long (default 50 ms), doubling up to retryMaxMs (2 s). */
  retryMs?: number;
  retryMaxMs?: number;
}

export interface WriteBehind<T extends object> {
  /**
   * Keeps `item` (a distinct object each time) for the next batch. Undefined when the caller need
   * not wait; otherwise a promise that resolves once the item is written (true) or its write failed
   * (false: it is still pending and retried): past maxPending, or after the drain.
   */
  add(db: Db, item: T, log: Logger, delayMs?: number): Promise<boolean> | undefined;
  /** Resolves once every item of `db` (every database, if none) pending now that `matches` is written, or its write failed. */
  flush(db?: Db, matches?: (item: T) => boolean): Promise<void>;
  /** Items not known to be written, of every database, in their order (a change writes its own in its transaction). */
  unwritten(matches: (item: T) => boolean): T[];
  /** Writes everything of `db` pending (tried a few times, or this throws); later adds wait for their own write. */
  drain(db: Db): Promise<void>;
  /** Batches again after a drain (tests that reuse a database). */
  resume(db: Db): void;
}

const everyWriteBehind = new Set<WriteBehind<any>>();

/** A write-behind, drained with every other at shutdown. Made once, at module level. */
export function writeBehind<T extends object>(options: WriteBehindOptions<T>): WriteBehind<T> {
  const byDb = new Map<Db, Lanes<T>>();
  const lanesOf = (db: Db, log: Logger) => {
    let lanes = byDb.get(db);
    if (!lanes) byDb.set(db, (lanes = new Lanes(db, log, options)));
    return lanes;
  };
  const wb: WriteBehind<T> = {
    add: (db, item, log, delayMs) => lanesOf(db, log).add(item, delayMs ?? options.delayMs),
    flush: async (db, matches = () => true) => {
      await Promise.all([...byDb].filter(([d]) => !db || d === db).map(([, lanes]) => lanes.flush(matches)));
    },
    unwritten: (matches) => [...byDb.values()].flatMap((lanes) => lanes.unwritten(matches)),
    drain: async (db) => {
      const lanes = byDb.get(db);
      if (lanes) await lanes.close();
    },
    resume: (db) => byDb.get(db)?.reopen(),
  };
  everyWriteBehind.add(wb);
  return wb;
}

/** Shutdown (core/server.ts): every write-behind's items of `db` written before the database closes. */
export async function drainWriteBehinds(db: Db): Promise<void> {
  const failed: string[] = [];
  await Promise.all([...everyWriteBehind].map((wb) => wb.drain(db).catch((err: Error) => void failed.push(err.message))));
  if (failed.length) throw new Error(failed.join('; '));
}

/** Batching again for `db` after drainWriteBehinds (tests that go on using the database). */
export function resumeWriteBehinds(db: Db): void {
  for (const wb of everyWriteBehind) wb.resume(db);
}

/** One database's lanes. */
class Lanes<T extends object> {
  private readonly lanes: Lane<T>[];
  private readonly count: number;

  constructor(
    db: Db,
    log: Logger,
    private readonly options: WriteBehindOptions<T>,
  ) {
    this.count = Math.max(1, options.lanes ?? 1);
    const perLane = Math.max(1, Math.floor(options.maxPending / this.count));
    this.lanes = Array.from({ length: this.count }, () => new Lane(db, log, options, perLane));
  }

  add(item: T, delayMs: number): Promise<boolean> | undefined {
    const lane = this.count === 1 || !this.options.laneOf ? this.lanes[0] : this.lanes[hash(this.options.laneOf(item)) % this.count];
    return lane.add(item, delayMs);
  }

  unwritten(matches: (item: T) => boolean): T[] {
    return this.lanes.flatMap((lane) => lane.unwritten(matches));
  }

  async flush(matches: (item: T) => boolean): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.flush(matches)));
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
    const left = this.lanes.reduce((n, lane) => n + lane.size, 0);
    if (left) throw new Error(`${left} ${this.options.name} could not be written before shutdown (the database is unreachable)`);
  }

  reopen() {
    for (const lane of this.lanes) lane.closed = false;
  }
}

/** FNV-1a: a key's lane, the same in every process. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** One lane: its pending items, and its one write in flight. */
class Lane<T extends object> {
  /** Items waiting for a write, oldest first (a Set keeps insertion order). */
  private pending = new Set<T>();
  /** When the oldest pending item arrived (performance.now()). */
  private oldest = 0;
  private delayMs: number;
  /** The write in flight, and the items it holds. */
  private inFlight?: { done: Promise<boolean>; batch: T[] };
  private writeOf = new WeakMap<T, Promise<boolean>>();
  private timer?: ReturnType<typeof setTimeout>;
  private failures = 0;
  closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly options: WriteBehindOptions<T>,
    private readonly maxPending: number,
  ) {
    this.delayMs = options.delayMs;
  }

  /** Items not yet written (pending, or in the write in flight). */
  get size(): number {
    return this.pending.size + (this.inFlight?.batch.length ?? 0);
  }

  /** Matching items not known to be written (in flight first, then pending: their order). */
  unwritten(matches: (item: T) => boolean): T[] {
    return [...(this.inFlight?.batch ?? []), ...this.pending].filter(matches);
  }

  add(item: T, delayMs: number): Promise<boolean> | undefined {
    this.delayMs = delayMs;
    if (!this.pending.size) this.oldest = performance.now();
    this.pending.add(item);
    if (this.closed || this.size > this.maxPending) return this.written(item);
    if (this.pending.size >= this.options.maxBatch && !this.inFlight) this.startWrite();
    else this.schedule();
    return undefined;
  }

  /** Resolves once every item pending now that `matches` is written (or its write failed). Cheap when none matches. */
  async flush(matches: (item: T) => boolean): Promise<void> {
    // The items of this moment only: under a steady stream, new ones must not keep a read waiting.
    const mine = this.unwritten(matches);
    for (let i = mine.length - 1; i >= 0; i--) if (!(await this.written(mine[i]))) return;
  }

  /** The shutdown: no more waiting; everything pending is written, tried a few times. */
  async close(): Promise<void> {
    this.closed = true;
    for (let attempt = 0; attempt < 5 && this.size; attempt++) {
      if (attempt) await Bun.sleep(100 * 2 ** attempt);
      await this.flush(() => true);
    }
    this.cancelTimer();
  }

  /** Resolves true once `item` is written, false if its write failed. */
  private async written(item: T): Promise<boolean> {
    for (;;) {
      const write = this.writeOf.get(item);
      if (write) return write;
      if (!this.pending.has(item)) return true;
      if (!this.inFlight) this.startWrite();
      else await this.inFlight.done;
    }
  }

  private startWrite() {
    this.cancelTimer();
    if (!this.pending.size) return;
    const batch: T[] = [];
    for (const item of this.pending) {
      if (batch.length === this.options.maxBatch) break;
      batch.push(item);
      this.pending.delete(item);
    }
    if (this.pending.size) this.oldest = performance.now();
    const done = this.options.write(this.db, batch).then(
      () => {
        if (this.failures) this.log.info(`${this.options.name}: writing works again`, { pending: this.pending.size });
        this.failures = 0;
        return true;
      },
      (err) => {
        // Back in front, in order: a later write tries them again.
        this.pending = new Set([...batch, ...this.pending]);
        this.oldest = performance.now();
        if (!this.failures++)
          this.log.error(`${this.options.name}: writing a batch failed; it is kept and retried`, { ...errorFields(err), items: batch.length });
        return false;
      },
    );
    const settled = done.then((ok) => {
      this.inFlight = undefined;
      for (const item of batch) this.writeOf.delete(item);
      this.schedule();
      return ok;
    });
    this.inFlight = { done: settled, batch };
    for (const item of batch) this.writeOf.set(item, settled);
  }

  /** The next write: when the oldest pending item has waited delayMs, at once for a full batch. */
  private schedule() {
    if (!this.pending.size || this.timer || this.inFlight) return;
    const { retryMs = 50, retryMaxMs = 2000, maxBatch } = this.options;
    const due = this.failures
      ? Math.min(retryMaxMs, retryMs * 2 ** (this.failures - 1))
      : this.closed || this.pending.size >= maxBatch
        ? 0
        : Math.max(0, this.oldest + this.delayMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.pending.size && !this.inFlight) this.startWrite();
    }, due);
    // Pending items do not keep a process alive by themselves: a server stops through the drain.
    this.timer.unref?.();
  }

  private cancelTimer() {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
