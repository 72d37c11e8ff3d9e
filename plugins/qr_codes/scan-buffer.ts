import { writeBehind, type Db, type Logger } from '../../core/sdk';

/**
 * Scans of codes without max_scans are recorded a few milliseconds late, many at a time: the scan
 * answers at once and its row waits here until the next write, which records every scan pending
 * in one statement (the code counters raised once per code, the scans, devices and day counters
 * as multi-row inserts) and commits it durably. One commit per batch instead of four row writes
 * and a commit per scan is what cut the database work of a scan by about a third.
 *
 * The price: scans still in memory when the process dies without a shutdown (kill -9, a crash,
 * the machine losing power) are lost: normally those of the last FLUSH_MS plus one write, never
 * more than 2,000 (past that, scans wait for their own write before they are answered).
 * SIGTERM loses nothing: the core's shutdown writes what is pending once requests have drained,
 * and scans that arrive after it are written before they are answered.
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

/**
 * The scans waiting (core/write-behind.ts): 500 a statement; codes split between two lanes by id,
 * each with one write in flight, so two writes never wait for each other's row locks (one can fill
 * the database's CPU while the other waits for its commit to reach the disk); past 2,000 scans not
 * written, a scan waits for its own write, so scans are never answered faster than they are recorded.
 */
const scans = writeBehind<PendingScan>({
  name: 'QR scan(s)',
  write: writeScans,
  delayMs: FLUSH_MS,
  maxBatch: 500,
  maxPending: 2000,
  lanes: 2,
  laneOf: (s) => s.code_id,
});

/** Keeps a scan for the next batch; a promise only when the scan must wait for its write. */
export function recordScan(db: Db, scan: PendingScan, log: Logger, flushMs = FLUSH_MS): Promise<boolean> | undefined {
  return scans.add(db, scan, log, flushMs);
}

/**
 * A change to a code (update, deactivate, archive) sees every scan it answered: its scans still in
 * memory are written in the change's own transaction, right after it locked the code's row. They
 * stay in the buffer too: if the change rolls back, the batch writes them; if it commits, the
 * batch skips them. True when there were any (the caller reads the row again).
 */
export async function writePendingOf(tx: Db, codeId: string): Promise<boolean> {
  // Of every database: `tx` is a transaction, not the database the scans were recorded through.
  const mine = scans.unwritten((s) => s.code_id === codeId);
  if (!mine.length) return false;
  await writeScans(tx, mine);
  return true;
}

/** Scans of this store written before a read of its codes or analytics (read-your-writes). */
export async function settleStore(db: Db, storeId: string): Promise<void> {
  await scans.flush(db, (s) => s.store_id === storeId);
}

/** A scan written before its call-to-action marks it converted. */
export async function settleScan(db: Db, scanId: string): Promise<void> {
  await scans.flush(db, (s) => s.id === scanId);
}
