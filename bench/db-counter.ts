/**
 * Counts the database round trips a Db makes, in place (the services hold the same object): every
 * query, and each transaction as two more (BEGIN and COMMIT). With BENCH_TRACE set, the texts are
 * tallied too, so a profile can name the statements one request costs.
 */
import type { Db } from '../core/db/types';

export function countRoundTrips(db: Db) {
  let trips = 0;
  const texts = new Map<string, number>();
  const trace = !!process.env.BENCH_TRACE;
  const note = (text: string) => {
    trips++;
    if (trace) {
      const key = text.replace(/\s+/g, ' ').slice(0, 140);
      texts.set(key, (texts.get(key) ?? 0) + 1);
    }
  };
  const counted = (tx: Db): Db => ({
    ...tx,
    query: (text, params) => (note(text), tx.query(text, params)),
    transaction: (fn) => fn(counted(tx)),
  });
  const query = db.query.bind(db);
  const transaction = db.transaction.bind(db);
  db.query = (text, params) => (note(text), query(text, params));
  db.transaction = (fn) => ((trips += 2), transaction((tx) => fn(counted(tx))));
  return {
    get trips() {
      return trips;
    },
    reset() {
      trips = 0;
      texts.clear();
    },
    /** The statements seen since the last reset, most frequent first (BENCH_TRACE only). */
    top(per: number, n = 20) {
      return [...texts]
        .sort((a, b) => b[1] - a[1])
        .slice(0, n)
        .map(([t, c]) => `${(c / per).toFixed(2)}  ${t}`);
    },
  };
}
