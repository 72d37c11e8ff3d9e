import type { Db } from './types';
import { isDatabaseUnavailable } from './pg-errors';

/** Where a PostgreSQL URL points, for messages: host, port and database, never the password. */
export function describeDatabase(url: string): string {
  try {
    const u = new URL(url);
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres';
    return `${u.hostname || 'localhost'}:${u.port || '5432'}/${database}`;
  } catch {
    return 'the DATABASE_URL server';
  }
}

/**
 * Waits for the PostgreSQL server at start-up (a container starting beside it, a restart): retries
 * with backoff (250 ms doubling to 2 s) for up to `waitMs`, saying every 5 s what it waits for.
 * Past the wait, throws with the same description. Anything but "unreachable" (a wrong password,
 * a missing database) is thrown at once: waiting would not fix it.
 */
export async function waitForDatabase(db: Db, opts: { url: string; waitMs: number; log: (line: string) => void }): Promise<void> {
  const where = describeDatabase(opts.url);
  const started = performance.now();
  let lastSaid = started;
  let delay = 250;
  for (;;) {
    try {
      await db.query('SELECT 1');
      if (performance.now() - started > 1000) opts.log(`svc: the database at ${where} is reachable; starting.`);
      return;
    } catch (e) {
      if (!isDatabaseUnavailable(e)) throw e;
      const waited = performance.now() - started;
      const reason = (e as Error).message;
      if (waited >= opts.waitMs)
        throw new Error(
          `The database at ${where} is unreachable (${reason}); gave up after ${Math.round(waited / 1000)} s. Start it, or set SVC_DB_WAIT_S to wait longer.`,
        );
      if (performance.now() - lastSaid >= 5000 || lastSaid === started) {
        lastSaid = performance.now();
        opts.log(`svc: waiting for the database at ${where} (${reason}); ${Math.ceil((opts.waitMs - waited) / 1000)} s left (SVC_DB_WAIT_S).`);
      }
      await Bun.sleep(Math.min(delay, Math.max(0, opts.waitMs - waited)));
      delay = Math.min(delay * 2, 2000);
    }
  }
}
