import { errorFields, type Db, type Logger } from '../../core/sdk';

/**
 * Scans of codes without max_scans are recorded a few milliseconds late, many at a time: the scan
 * answers at once and its row waits here until the next write, which records every scan pending
 * in one statement (the code counters raised once per code, the scans, devices and day counters
 * as multi-row inserts) and commits it durably. One commit per batch instead of four row writes
 * and a commit per scan is what cut the database work of a scan by about a third.
 *
 * The price: scans still in memory when the process dies without a shutdown (kill -9, a crash,
 * the machine losing power) are lost: normally those of the last FLUSH_MS plus one write, never
 * more than MAX_PENDING (past that, scans wait for their own write before they are answered).
 * SIGTERM loses nothing: the plugin's stop hook writes what is pending, and scans that arrive
 * after it (requests still draining) are written before they are answered.
 *
 * Reads of a store's codes and analytics call `settle` first, so from one process the API reads
 * its own scans. Each process has its own buffer (the api role on several machines included).
 */

export interface PendingScan {
  id: string;
  store_id: string;
  code_id: string;
  scanned_at: string;
  device: string;
  city: string;
  /** The device fingerprint as decimal text (a signed 64-bit value). */
  fingerprint: string;
}

/** How long a scan may wait for company before it is written (SVC_QR_SCAN_FLUSH_MS). */
export const FLUSH_MS = 10;
/** Scans per statement; a full batch is written at once. */
const MAX_BATCH = 500;
/**
 * Lanes: codes are split between them (by id), and each lane has one write in flight at a time,
 * so two writes never wait for each other's row locks: one can fill the database's CPU while the
 * other waits for its commit to reach the disk.
 */
const LANES = 2;
/** More scans than this not yet written and new scans wait for their own write (backpressure). */
const MAX_PENDING = 4 * MAX_BATCH;
/** One write at a time per lane. */
const WRITERS = 1;
/** A failed write is tried again after this long, doubling up to RETRY_MAX_MS. */
const RETRY_MS = 50;
const RETRY_MAX_MS = 2000;

// One statement, so one transaction: every scan of the batch is recorded, or none is and the batch
// is tried again. Like every writer of scans, it locks the code rows first (in id order), so
// writers never wait on each other in a circle. It is idempotent: a scan already written (a retry
// after a commit whose answer was lost, or an update that wrote its code's pending scans) is
// skipped, and only scans it inserts are counted. A device new to its code makes its first scan of
// the batch a unique scan. A code given a max_scans after these scans were answered is maxed out
// when they reach it (they were answered while it had none, so they all count).
const WRITE = `
WITH locked AS (
  SELECT id FROM qr_codes WHERE id = ANY($2::uuid[]) ORDER BY id FOR UPDATE
), s AS (
  SELECT * FROM jsonb_to_recordset($1::text::jsonb)
    AS s(n int, id uuid, store_id uuid, code_id uuid, scanned_at timestamptz, device text, city text, fingerprint bigint)
  WHERE (SELECT count(*) FROM locked) IS NOT NULL
), inserted AS (
  INSERT INTO qr_scans (id, store_id, code_id, scanned_at, device, city, fingerprint)
  SELECT id, store_id, code_id, scanned_at, device, city, fingerprint FROM s ORDER BY n
  ON CONFLICT (id) DO NOTHING RETURNING id
), w AS (
  SELECT s.* FROM s JOIN inserted USING (id)
), codes AS (
  UPDATE qr_codes q SET total_scans = q.total_scans + c.scans,
    status = CASE WHEN q.status = 'active' AND q.max_scans IS NOT NULL AND q.total_scans + c.scans >= q.max_scans THEN 'maxed_out' ELSE q.status END
  FROM (SELECT code_id, count(*)::int AS scans FROM w GROUP BY code_id) c
  WHERE q.id = c.code_id
  RETURNING 1
), devices AS (
  INSERT INTO qr_scan_devices (store_id, code_id, fingerprint)
  SELECT DISTINCT ON (code_id, fingerprint) store_id, code_id, fingerprint FROM w ORDER BY code_id, fingerprint
  ON CONFLICT DO NOTHING RETURNING code_id, fingerprint
), firsts AS (
  SELECT DISTINCT ON (w.code_id, w.fingerprint) w.n FROM w JOIN devices d USING (code_id, fingerprint) ORDER BY w.code_id, w.fingerprint, w.n
)
INSERT INTO qr_scan_days AS d (store_id, code_id, day, device, city, scans, unique_scans)
SELECT w.store_id, w.code_id, (w.scanned_at AT TIME ZONE 'UTC')::date, w.device, w.city, count(*), count(f.n)
FROM w LEFT JOIN firsts f USING (n)
GROUP BY 1, 2, 3, 4, 5 ORDER BY 2, 3, 4, 5
ON CONFLICT (code_id, day, device, city) DO UPDATE SET scans = d.scans + EXCLUDED.scans, unique_scans = d.unique_scans + EXCLUDED.unique_scans`;

/** Writes a batch of scans in one statement (through `db`, or inside a caller's transaction). */
async function writeScans(db: Db, batch: PendingScan[]): Promise<void> {
  const codeIds = [...new Set(batch.map((s) => s.code_id))].sort();
  await db.query(WRITE, [JSON.stringify(batch.map((s, n) => ({ n, ...s }))), codeIds]);
}

/** The scans of this process's codes, in lanes. */
export class ScanBuffer {
  private readonly lanes: Lane[];

  constructor(db: Db, log: Logger, flushMs = FLUSH_MS) {
    this.lanes = Array.from({ length: LANES }, () => new Lane(db, log, flushMs));
  }

  /** A code's lane, from the last character of its id (random hex). */
  private laneOf(codeId: string): Lane {
    return this.lanes[codeId.charCodeAt(codeId.length - 1) % LANES];
  }

  of(codeId: string): PendingScan[] {
    return this.laneOf(codeId).of(codeId);
  }

  get size(): number {
    return this.lanes.reduce((n, lane) => n + lane.size, 0);
  }

  add(scan: PendingScan): Promise<boolean> | undefined {
    return this.laneOf(scan.code_id).add(scan);
  }

  async settle(matches: (s: PendingScan) => boolean): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.settle(matches)));
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}

/** One lane: its pending scans, and its write in flight. */
class Lane {
  /** Scans waiting for a write, oldest first (a Set keeps insertion order). */
  private pending = new Set<PendingScan>();
  /** When the oldest pending scan arrived (performance.now()). */
  private oldest = 0;
  /** Writes in flight, and the scans each holds. */
  private writes = new Map<Promise<boolean>, PendingScan[]>();
  private writeOf = new WeakMap<PendingScan, Promise<boolean>>();
  private timer?: ReturnType<typeof setTimeout>;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
    private readonly flushMs = FLUSH_MS,
  ) {}

  /** This code's scans not known to be written (in flight first, then pending: their order). */
  of(codeId: string): PendingScan[] {
    return [...[...this.writes.values()].flat(), ...this.pending].filter((s) => s.code_id === codeId);
  }

  /** Scans not yet written (pending, or in a write in flight). */
  get size(): number {
    let n = this.pending.size;
    for (const batch of this.writes.values()) n += batch.length;
    return n;
  }

  /**
   * Keeps a scan for the next write. Nothing to wait for, unless the writes are behind (more than
   * MAX_PENDING scans not written: the scan then waits for its own write, so memory and what a
   * kill could lose stay bounded, and scans are never answered faster than they are recorded) or
   * the buffer is closed (shutdown has begun: a request still draining loses nothing).
   */
  add(scan: PendingScan): Promise<boolean> | undefined {
    if (!this.pending.size) this.oldest = performance.now();
    this.pending.add(scan);
    if (this.closed || this.size > MAX_PENDING / LANES) return this.written(scan);
    if (this.pending.size >= MAX_BATCH && this.writes.size < WRITERS) this.startWrite();
    else this.schedule();
    return undefined;
  }

  /**
   * Resolves once every scan pending now that `matches` is written (or its write failed: a read
   * then goes on with what the database has, and the scans are retried). Cheap when none matches.
   */
  async settle(matches: (s: PendingScan) => boolean): Promise<void> {
    // The scans of this moment only: under steady scanning, new ones must not keep a read waiting.
    const mine = [...[...this.writes.values()].flat(), ...this.pending].filter(matches);
    for (let i = mine.length - 1; i >= 0; i--) if (!(await this.written(mine[i]))) return;
  }

  /** Writes everything pending now (a failed write leaves its scans pending). */
  flush(): Promise<void> {
    return this.settle(() => true);
  }

  /** The shutdown: no more waiting; everything pending is written (tried a few times), or this throws. */
  async close(): Promise<void> {
    this.closed = true;
    for (let attempt = 0; attempt < 5 && this.size; attempt++) {
      if (attempt) await Bun.sleep(100 * 2 ** attempt);
      await this.flush();
    }
    this.cancelTimer();
    if (this.size) throw new Error(`${this.size} QR scan(s) could not be written before shutdown (the database is unreachable)`);
  }

  /** Resolves true once `scan` is written, false if its write failed. */
  private async written(scan: PendingScan): Promise<boolean> {
    for (;;) {
      const write = this.writeOf.get(scan);
      if (write) return write;
      if (!this.pending.has(scan)) return true;
      if (this.writes.size < WRITERS) this.startWrite();
      else await Promise.race(this.writes.keys());
    }
  }

  private startWrite() {
    this.cancelTimer();
    if (!this.pending.size) return;
    const batch: PendingScan[] = [];
    for (const s of this.pending) {
      if (batch.length === MAX_BATCH) break;
      batch.push(s);
      this.pending.delete(s);
    }
    if (this.pending.size) this.oldest = performance.now();
    const write = writeScans(this.db, batch).then(
      () => {
        if (this.failures) this.log.info('qr scans: writing works again', { pending: this.pending.size });
        this.failures = 0;
        return true;
      },
      (err) => {
        // Back in front, in order: a later write tries them again.
        this.pending = new Set([...batch, ...this.pending]);
        this.oldest = performance.now();
        if (!this.failures++)
          this.log.error('qr scans: writing a batch failed; it is kept and retried', { ...errorFields(err), scans: batch.length });
        return false;
      },
    );
    const done = write.then((ok) => {
      this.writes.delete(done);
      for (const s of batch) this.writeOf.delete(s);
      this.schedule();
      return ok;
    });
    this.writes.set(done, batch);
    for (const s of batch) this.writeOf.set(s, done);
    this.schedule();
  }

  /** The next write: when the oldest pending scan has waited flushMs, at once for a full batch. */
  private schedule() {
    if (!this.pending.size || this.timer || this.writes.size >= WRITERS) return;
    const due = this.failures
      ? Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** (this.failures - 1))
      : this.closed || this.pending.size >= MAX_BATCH
        ? 0
        : Math.max(0, this.oldest + this.flushMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.pending.size && this.writes.size < WRITERS) this.startWrite();
    }, due);
    // A pending write does not keep a process alive by itself; a server stops through close().
    this.timer.unref?.();
  }

  private cancelTimer() {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

const buffers = new Map<Db, ScanBuffer>();

/** The buffer of scans recorded through `db` (the server's database), made on first use. */
export function scanBuffer(db: Db, log: Logger, flushMs?: number): ScanBuffer {
  let b = buffers.get(db);
  if (!b) buffers.set(db, (b = new ScanBuffer(db, log, flushMs)));
  return b;
}

/**
 * A change to a code (update, deactivate, archive) sees every scan it answered: its scans still in
 * memory are written in the change's own transaction, right after it locked the code's row. They
 * stay in the buffer too: if the change rolls back, the batch writes them; if it commits, the
 * batch skips them. True when there were any (the caller reads the row again).
 */
export async function writePendingOf(tx: Db, codeId: string): Promise<boolean> {
  const mine: PendingScan[] = [];
  for (const b of buffers.values()) mine.push(...b.of(codeId));
  if (!mine.length) return false;
  await writeScans(tx, mine);
  return true;
}

/** Scans of this store written before a read of its codes or analytics (read-your-writes). */
export async function settleStore(db: Db, storeId: string): Promise<void> {
  await buffers.get(db)?.settle((s) => s.store_id === storeId);
}

/** A scan written before its call-to-action marks it converted. */
export async function settleScan(db: Db, scanId: string): Promise<void> {
  await buffers.get(db)?.settle((s) => s.id === scanId);
}

/** At shutdown: everything pending through `db` written. */
export async function closeScanBuffer(db: Db): Promise<void> {
  await buffers.get(db)?.close();
}
