import { writeBehind, type Db, type Logger } from '../../core/sdk';
import { rollupBuffer, tally } from './rollups';
import { SPANS_PER_STORE } from './config';

/** One span as its store keeps it. */
export interface SpanRow {
  store_id: string;
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  kind: string;
  route: string | null;
  request_id: string | null;
  status_code: number | null;
  failed: boolean;
  error: boolean;
  /** Epoch milliseconds (a Date's text costs a request a measurable share; the database converts it). */
  started_at: number;
  duration_ms: number;
  attributes: Record<string, unknown> | null;
}

/** One occurrence of an error group. */
export interface ErrorOccurrence {
  store_id: string;
  fingerprint: string;
  kind: string;
  code: string;
  route: string;
  at: string;
  sample: Record<string, unknown>;
}

/**
 * Spans are written behind, a batch per statement: a request never waits for its span, and at
 * thousands of requests a second one insert per span would cost more than the request. A batch
 * written twice (its commit's answer lost) inserts nothing the second time.
 */
export const spanBuffer = writeBehind<SpanRow>({
  name: 'telemetry spans',
  delayMs: 500,
  maxBatch: 2000,
  maxPending: 20_000,
  write: async (db, items) => {
    // Column arrays (unnest) rather than one JSON document: the server parses far less per row.
    const col = <K extends keyof SpanRow>(k: K) => items.map((s) => s[k]);
    await db.query(
      `INSERT INTO telemetry_spans (store_id, trace_id, span_id, parent_id, name, kind, route, request_id, status_code, failed, error, started_at, duration_ms, attributes)
       SELECT s, t, sp, p, n, k, r, q, c, f, e, to_timestamp(at / 1000.0), d, x
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[],
                     $10::bool[], $11::bool[], $12::float8[], $13::float8[], $14::jsonb[]) AS u(s, t, sp, p, n, k, r, q, c, f, e, at, d, x)
       ON CONFLICT DO NOTHING`,
      [
        col('store_id'),
        col('trace_id'),
        col('span_id'),
        col('parent_id'),
        col('name'),
        col('kind'),
        col('route'),
        col('request_id'),
        col('status_code'),
        col('failed'),
        col('error'),
        col('started_at'),
        col('duration_ms'),
        items.map((s) => (s.attributes ? JSON.stringify(s.attributes) : '{}')),
      ],
    );
  },
});

/**
 * Error occurrences, folded into their groups: occurrences of one group in a batch are counted
 * together first (one row may be updated once per statement). Not idempotent by design: a batch
 * whose commit was lost and is written again counts its occurrences twice, which a count can bear.
 */
export const errorBuffer = writeBehind<ErrorOccurrence>({
  name: 'telemetry errors',
  delayMs: 200,
  maxBatch: 500,
  maxPending: 5000,
  write: async (db, items) => {
    const groups = new Map<string, ErrorOccurrence & { count: number; first: string; last: string }>();
    for (const o of items) {
      const key = `${o.store_id}:${o.fingerprint}`;
      const g = groups.get(key);
      if (!g) groups.set(key, { ...o, count: 1, first: o.at, last: o.at });
      else {
        g.count++;
        if (o.at < g.first) g.first = o.at;
        if (o.at >= g.last) [g.last, g.sample] = [o.at, o.sample];
      }
    }
    const rows = [...groups.values()].map((g) => ({
      store_id: g.store_id,
      fingerprint: g.fingerprint,
      kind: g.kind,
      code: g.code,
      route: g.route,
      count: g.count,
      first_seen: g.first,
      last_seen: g.last,
      sample: g.sample,
    }));
    await db.query(
      `INSERT INTO telemetry_errors AS e (store_id, fingerprint, kind, code, route, count, first_seen, last_seen, sample)
       SELECT * FROM jsonb_to_recordset($1::text::jsonb) AS x(store_id uuid, fingerprint text, kind text, code text, route text, count bigint,
              first_seen timestamptz, last_seen timestamptz, sample jsonb)
       ORDER BY store_id, fingerprint
       ON CONFLICT (store_id, fingerprint) DO UPDATE SET
         count = e.count + excluded.count,
         first_seen = least(e.first_seen, excluded.first_seen),
         last_seen = greatest(e.last_seen, excluded.last_seen),
         sample = CASE WHEN excluded.last_seen >= e.last_seen THEN excluded.sample ELSE e.sample END`,
      [JSON.stringify(rows)],
    );
  },
});

/** This process's spans, errors and counts of the store, written now: a read sees what happened before it. */
export async function flushStore(db: Db, log: Logger, storeId: string) {
  for (const r of tally.take(storeId)) rollupBuffer.add(db, r, log);
  await rollupBuffer.flush(undefined, (r) => r.store_id === storeId);
  await spanBuffer.flush(undefined, (s) => s.store_id === storeId);
  await errorBuffer.flush(undefined, (e) => e.store_id === storeId);
}

/**
 * Keeps the span store bounded: spans older than the retention go, then, in a store holding more
 * than 100,000, the oldest beyond that; error groups not seen within the retention go too.
 */
export async function prune(db: Db, now: Date, retentionHours: number, cap = SPANS_PER_STORE) {
  const cutoff = new Date(now.getTime() - retentionHours * 3600_000);
  const [old] = await db.query<{ n: string }>(
    'WITH gone AS (DELETE FROM telemetry_spans WHERE started_at < $1 RETURNING 1) SELECT count(*) AS n FROM gone',
    [cutoff],
  );
  const [over] = await db.query<{ n: string }>(
    `WITH full_stores AS (
       SELECT store_id FROM telemetry_spans GROUP BY store_id HAVING count(*) > $1
     ), cut AS (
       SELECT f.store_id,
              (SELECT started_at FROM telemetry_spans s WHERE s.store_id = f.store_id ORDER BY started_at DESC OFFSET $1 LIMIT 1) AS at
         FROM full_stores f
     ), gone AS (
       DELETE FROM telemetry_spans t USING cut WHERE t.store_id = cut.store_id AND t.started_at <= cut.at RETURNING 1
     ) SELECT count(*) AS n FROM gone`,
    [cap],
  );
  await db.query('DELETE FROM telemetry_errors WHERE last_seen < $1', [cutoff]);
  await db.query('DELETE FROM telemetry_rollups WHERE minute < $1', [cutoff]);
  return { expired: Number(old.n), over_cap: Number(over.n) };
}
