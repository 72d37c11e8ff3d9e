import { hostname, loadavg } from 'node:os';
import type { Clock, Db } from '../../core/sdk';
import pkg from '../../package.json';
import { failOrphans, runQueuedTasks, TASK_CHANNEL } from './tasks';

/**
 * Each `svc serve` process is a node: a row it inserts at start, refreshes every HEARTBEAT_S and
 * deletes at a clean stop. A node without a heartbeat for STALE_S is stale (killed, frozen, cut
 * off); REMOVE_S later any live node's sweep deletes it. Times are the process clock's (ctx.clock).
 */
export const HEARTBEAT_S = 5;
export const STALE_S = 15;
export const REMOVE_S = 300;

export type Role = 'api' | 'worker' | 'all';

export interface NodeRow {
  id: string;
  host: string;
  role: Role;
  version: string;
  pid: number;
  started_at: Date;
  heartbeat_at: Date;
  load: { load_average: number[]; rss_bytes: number };
  queues: string[];
  recent_tasks: unknown[];
}

const loadNow = () => ({ load_average: loadavg().map((n) => Math.round(n * 100) / 100), rss_bytes: process.memoryUsage().rss });

/** The node's status as of `now`: live within STALE_S of its last heartbeat. */
export const statusOf = (row: Pick<NodeRow, 'heartbeat_at'>, now: Date): 'live' | 'stale' =>
  now.getTime() - new Date(row.heartbeat_at).getTime() <= STALE_S * 1000 ? 'live' : 'stale';

export interface RunningNode {
  id: string;
  /** One heartbeat now (the timer calls it; tests call it with a moved clock). */
  beat(): Promise<void>;
  /** Runs this node's queued tasks now (the timer and NOTIFY call it). */
  poll(): Promise<number>;
  /** A clean stop: the row goes at once. */
  stop(): Promise<void>;
}

/**
 * Registers this process as a node and keeps it fresh. `queues` are the job queues it works
 * (none for role api). Each heartbeat also deletes nodes stale for REMOVE_S, so the table holds
 * no ghost however processes die.
 */
export async function startNode(
  db: Db,
  clock: Clock,
  role: Role,
  queues: string[],
  opts: { timer?: boolean; dataDir?: string } = {},
): Promise<RunningNode> {
  const dataDir = opts.dataDir ?? process.env.SVC_DATA_DIR ?? './data';
  const id = crypto.randomUUID();
  const now = clock.now();
  await db.query(
    `INSERT INTO local_agent_nodes (id, host, role, version, pid, started_at, heartbeat_at, load, queues)
     VALUES ($1, $2, $3, $4, $5, $6, $6, $7::text::jsonb, $8::text::jsonb)`,
    [id, hostname(), role, pkg.version, process.pid, now, JSON.stringify(loadNow()), JSON.stringify(queues)],
  );
  let stopped = false;
  const beat = async () => {
    if (stopped) return;
    const at = clock.now();
    // A node swept while this one was frozen (longer than STALE_S + REMOVE_S) comes back as it was.
    await db.query(
      `INSERT INTO local_agent_nodes (id, host, role, version, pid, started_at, heartbeat_at, load, queues)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9::text::jsonb)
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = $7, load = $8::text::jsonb`,
      [id, hostname(), role, pkg.version, process.pid, now, at, JSON.stringify(loadNow()), JSON.stringify(queues)],
    );
    const gone = await db.query<{ id: string }>('DELETE FROM local_agent_nodes WHERE heartbeat_at < $1 RETURNING id', [
      new Date(at.getTime() - (STALE_S + REMOVE_S) * 1000),
    ]);
    await failOrphans(
      db,
      clock,
      gone.map((g) => g.id),
      'The node this task was for stopped sending heartbeats and was removed.',
    );
  };
  // One poll at a time: a NOTIFY during a poll asks for one more pass after it.
  let polling: Promise<number> | undefined;
  let again = false;
  const poll = async (): Promise<number> => {
    if (stopped) return 0;
    if (polling) return ((again = true), polling);
    polling = runQueuedTasks(db, clock, id, { dataDir }).finally(() => (polling = undefined));
    const n = await polling;
    if (again) return ((again = false), n + (await poll()));
    return n;
  };
  const timers: ReturnType<typeof setInterval>[] = [];
  let unlisten: (() => Promise<void>) | undefined;
  if (opts.timer !== false) {
    timers.push(setInterval(() => beat().catch(() => {}), HEARTBEAT_S * 1000));
    // NOTIFY brings a task at once; the poll every second covers a lost notification.
    timers.push(setInterval(() => poll().catch(() => {}), 1000));
    for (const t of timers) t.unref?.();
    unlisten = await db.listen(TASK_CHANNEL, (payload) => void (payload === id && poll().catch(() => {})));
  }
  return {
    id,
    beat,
    poll,
    stop: async () => {
      stopped = true;
      for (const t of timers) clearInterval(t);
      await unlisten?.();
      await polling?.catch(() => {});
      await db.query('DELETE FROM local_agent_nodes WHERE id = $1', [id]);
      await failOrphans(db, clock, [id], 'The node this task was for stopped before running it.');
    },
  };
}

/** Live and stale nodes that run jobs (role worker or all), and the newest worker heartbeat. */
export async function workerCounts(db: Db, now: Date): Promise<{ live: number; stale: number; last_heartbeat: Date | null }> {
  const rows = await db.query<{ heartbeat_at: Date }>(`SELECT heartbeat_at FROM local_agent_nodes WHERE role IN ('worker', 'all')`);
  const live = rows.filter((r) => statusOf(r, now) === 'live').length;
  const last = rows.reduce<Date | null>((m, r) => (!m || new Date(r.heartbeat_at) > m ? new Date(r.heartbeat_at) : m), null);
  return { live, stale: rows.length - live, last_heartbeat: last };
}
