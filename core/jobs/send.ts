import { AsyncLocalStorage } from 'node:async_hooks';
import { PgBoss, type JobInsert } from 'pg-boss';
import type { Db } from '../db/types';

/**
 * Enqueueing pg-boss jobs inside svc's own transactions, so a job exists exactly when the change
 * that asked for it commits (the outbox rule: no event without its deliveries, no delivery job for
 * a rolled-back change).
 *
 * pg-boss accepts `{ db }` on insert/send to run its INSERT on a caller's transaction. It also
 * looks the queue up once (its table name) through the instance's own connection; on PGlite, whose
 * single connection the transaction holds, that lookup would wait for the transaction that waits
 * for it. So the sending instance's connection is "whatever transaction is current": an
 * AsyncLocalStorage carries it, and every statement pg-boss issues for a send runs on it.
 * The instance is never started (no timers, no polling): it only writes jobs.
 */
const current = new AsyncLocalStorage<Db>();

/** pg-boss's IDatabase over one of our Db handles (a transaction here). */
export const bossDb = (db: Db) => ({
  executeSql: async (text: string, values?: unknown[]) => ({ rows: await db.query(text, values ?? []) }),
});

// One sender per driver (the PGlite instance or the Bun.SQL pool), shared by its transactions.
const senders = new WeakMap<object, PgBoss>();

function senderFor(db: Db): PgBoss {
  const native = db.native as { pglite?: object; sql?: object };
  const key = (native.pglite ?? native.sql)!;
  let boss = senders.get(key);
  if (!boss) {
    boss = new PgBoss({
      db: {
        executeSql: (text, values) => {
          const tx = current.getStore();
          if (!tx) throw new Error('pg-boss sender used outside enqueue()');
          return bossDb(tx).executeSql(text, values);
        },
      },
      ...(native.pglite ? { backend: 'pglite' as const } : {}),
      schema: 'pgboss',
      supervise: false,
      schedule: false,
      migrate: false,
    });
    senders.set(key, boss);
  }
  return boss;
}

/** Inserts jobs through `tx` (a transaction, or a plain Db for a one-statement insert). */
export async function enqueue(tx: Db, queue: string, jobs: JobInsert[]): Promise<void> {
  if (!jobs.length) return;
  const boss = senderFor(tx);
  await current.run(tx, () => boss.insert(queue, jobs, { db: bossDb(tx) }));
}

/**
 * pg-boss's own INSERT of jobs into `queue`, as text, for a caller that writes its job inside a
 * statement of its own (a data-modifying CTE), so that a change and its job are one statement and
 * need no transaction. The text reads the jobs' JSON array from `$1::text::json`; a caller puts its
 * parameter (or a subquery) there through `payload`. Undefined when pg-boss's statement cannot go
 * in a CTE (a queue with NOTIFY is a WITH statement itself): the caller then uses enqueue().
 * Captured once per queue and driver by asking pg-boss to insert and keeping the statement it runs
 * (its queue lookup runs for real), so the SQL stays pg-boss's across its upgrades.
 */
export async function jobInsertStatement(db: Db, queue: string): Promise<((payload: string) => string) | undefined> {
  const native = db.native as { pglite?: object; sql?: object };
  const key = (native.pglite ?? native.sql)!;
  let byQueue = statements.get(key);
  if (!byQueue) statements.set(key, (byQueue = new Map()));
  let found = byQueue.get(queue);
  if (!found) {
    found = (async () => {
      let text: string | undefined;
      const capture = { executeSql: async (t: string) => ((text = t), { rows: [] }) };
      await current.run(db, () => senderFor(db).insert(queue, [{ data: {} }], { db: capture }));
      const marker = '$1::text::json';
      if (!text || /^\s*WITH\b/i.test(text) || text.split(marker).length !== 2) return undefined;
      const [before, after] = text.split(marker);
      return (payload: string) => `${before}(${payload})::text::json${after}`;
    })();
    found.catch(() => byQueue!.delete(queue)); // a failed lookup is asked again next time
    byQueue.set(queue, found);
  }
  return found;
}
const statements = new WeakMap<object, Map<string, Promise<((payload: string) => string) | undefined>>>();
