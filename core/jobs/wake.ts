import type { PgBoss } from 'pg-boss';
import type { Db } from '../db/types';

/** How often one statement asks which of this process's queues hold a job ready to run. */
const WAKE_INTERVAL_MS = 500;

/**
 * Wakes the workers of the queues that hold a job ready to run, from ONE statement per interval
 * for all of them. pg-boss's workers each poll their own queue: 31 queues polled every half second
 * kept an idle embedded server at about 11% of a core (62 fetches a second in the server's own
 * thread), and a PostgreSQL server answering 62 statements a second per worker process. The
 * workers' own polling is now a slow backstop (boss.ts, WORK_DEFAULTS); a job is still picked up
 * within about half a second of being ready, delayed jobs and retries included (unlike a NOTIFY
 * when a job is sent, which says nothing about a job whose start time arrives later).
 */
export function wakeWorkers(db: Db, boss: PgBoss, queues: string[], onError: (e: Error) => void): { stop(): Promise<void> } {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      const ready = await db.query<{ name: string }>(
        `SELECT q.name FROM pgboss.queue q
          WHERE q.name = ANY($1::text[])
            AND EXISTS (SELECT 1 FROM pgboss.job j
                         WHERE j.name = q.name AND j.state < 'active' AND NOT j.blocked AND j.start_after <= pgboss.job_now())`,
        [queues],
      );
      if (ready.length) {
        const names = new Set(ready.map((r) => r.name));
        for (const w of boss.getWipData()) if (names.has(w.name) && w.state !== 'stopping') boss.notifyWorker(w.id);
      }
    } catch (e) {
      // A database outage: the workers' backstop polling and the next tick carry on.
      if (!stopped) onError(e as Error);
    }
    if (!stopped) timer = setTimeout(() => (running = tick()), WAKE_INTERVAL_MS);
  };
  timer = setTimeout(() => (running = tick()), WAKE_INTERVAL_MS);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
