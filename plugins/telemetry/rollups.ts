import { writeBehind, type Db } from '../../core/sdk';

/** Upper bounds (ms) of the duration buckets; one more bucket holds everything slower. */
export const BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 30000];

/** Counts of one store, minute, kind, route and status. */
export interface Rollup {
  store_id: string;
  minute: number;
  kind: string;
  route: string;
  status: number;
  count: number;
  failed: number;
  errors: number;
  buckets: number[];
}

const bucketOf = (ms: number) => {
  for (let i = 0; i < BOUNDS_MS.length; i++) if (ms <= BOUNDS_MS[i]) return i;
  return BOUNDS_MS.length;
};

/**
 * Folds ended spans into counts in memory, handed to the rollup buffer each second: every request
 * is counted whatever spans are kept, at no write per request. Rows are found by store, then
 * route (strings the span already holds), then a short scan: no key string is built per span.
 */
export class RollupTally {
  private open = new Map<string, Map<string, Rollup[]>>();
  add(storeId: string, startedMs: number, kind: string, route: string, status: number, failed: boolean, error: boolean, durationMs: number) {
    const minute = startedMs - (startedMs % 60_000);
    let byRoute = this.open.get(storeId);
    if (!byRoute) this.open.set(storeId, (byRoute = new Map()));
    let rows = byRoute.get(route);
    if (!rows) byRoute.set(route, (rows = []));
    let r: Rollup | undefined;
    for (const x of rows)
      if (x.minute === minute && x.status === status && x.kind === kind) {
        r = x;
        break;
      }
    if (!r)
      rows.push(
        (r = { store_id: storeId, minute, kind, route, status, count: 0, failed: 0, errors: 0, buckets: new Array(BOUNDS_MS.length + 1).fill(0) }),
      );
    r.count++;
    if (failed) r.failed++;
    if (error) r.errors++;
    r.buckets[bucketOf(durationMs)]++;
  }
  /** Takes what was counted (of one store, or all). */
  take(storeId?: string): Rollup[] {
    const out: Rollup[] = [];
    for (const [store, byRoute] of this.open)
      if (!storeId || store === storeId) {
        for (const rows of byRoute.values()) out.push(...rows);
        this.open.delete(store);
      }
    return out;
  }
}

/** The process's tally (one tracer per process). */
export const tally = new RollupTally();

/** Rollups written behind; a batch folds its rows of one key first (a row may be updated once per statement). */
export const rollupBuffer = writeBehind<Rollup>({
  name: 'telemetry rollups',
  delayMs: 200,
  maxBatch: 2000,
  maxPending: 50_000,
  write: async (db, items) => {
    const folded = new Map<string, Rollup>();
    for (const r of items) {
      const key = `${r.store_id}|${r.minute}|${r.kind}|${r.route}|${r.status}`;
      const f = folded.get(key);
      if (!f) folded.set(key, { ...r, buckets: [...r.buckets] });
      else {
        f.count += r.count;
        f.failed += r.failed;
        f.errors += r.errors;
        r.buckets.forEach((n, i) => (f.buckets[i] += n));
      }
    }
    const rows = [...folded.values()].map((r) => ({ ...r, minute: new Date(r.minute).toISOString() }));
    await db.query(
      `INSERT INTO telemetry_rollups AS t (store_id, minute, kind, route, status, count, failed, errors, buckets)
       SELECT store_id, minute, kind, route, status, count, failed, errors, ARRAY(SELECT jsonb_array_elements_text(buckets)::bigint)
         FROM jsonb_to_recordset($1::text::jsonb) AS x(store_id uuid, minute timestamptz, kind text, route text, status integer,
              count bigint, failed bigint, errors bigint, buckets jsonb)
        ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (store_id, minute, kind, route, status) DO UPDATE SET
         count = t.count + excluded.count,
         failed = t.failed + excluded.failed,
         errors = t.errors + excluded.errors,
         buckets = ARRAY(SELECT a + b FROM unnest(t.buckets, excluded.buckets) AS u(a, b))`,
      [JSON.stringify(rows)],
    );
  },
});

/** A percentile of a bucket histogram: linear within the bucket it falls in (the last bucket: its lower bound). */
export function percentile(buckets: number[], q: number): number {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (!total) return 0;
  const rank = q * total;
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    if (seen + buckets[i] >= rank && buckets[i] > 0) {
      const lo = i === 0 ? 0 : BOUNDS_MS[i - 1];
      if (i === BOUNDS_MS.length) return lo;
      const hi = BOUNDS_MS[i];
      return Math.round((lo + ((rank - seen) / buckets[i]) * (hi - lo)) * 1000) / 1000;
    }
    seen += buckets[i];
  }
  return BOUNDS_MS[BOUNDS_MS.length - 1];
}

/** The store's counts since `since`, summed per kind (and requests per status class), with the requests' histogram. */
export async function readRollups(db: Db, storeId: string, since: Date) {
  return db.query<{ kind: string; status: number; count: string; failed: string; errors: string; buckets: (string | number)[] }>(
    `SELECT kind, status, count, failed, errors, buckets FROM telemetry_rollups WHERE store_id = $1 AND minute >= $2`,
    [storeId, since],
  );
}
