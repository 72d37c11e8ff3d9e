import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Clock, Db } from '../../core/sdk';
import { claimJob, failJob, finishJob } from '../../core/platform';
import { reindexEmbeddings } from '../embeddings/public';
import { rebuildRollups } from '../analytics/public';

/**
 * What a node runs for run_task, in its own process: the job row (core `jobs`) moves as the
 * core's runner moves it (claimed, then succeeded or failed), and the outcome joins the node's
 * recent_tasks. Tasks are taken one at a time, oldest first.
 */
export const TASKS = ['analyze', 'reindex_embeddings', 'rebuild_rollups', 'backup'] as const;
export type Task = (typeof TASKS)[number];
export const TASK_CHANNEL = 'local_agent_tasks';
const RECENT = 10;

export interface TaskOptions {
  /** The data directory (backups go to its backups/): SVC_DATA_DIR, else ./data. */
  dataDir: string;
}

async function runTask(db: Db, clock: Clock, task: Task, opts: TaskOptions): Promise<Record<string, unknown>> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  if (task === 'analyze') {
    // Fresh planner statistics: PGlite has no autovacuum, and a bulk import leaves PostgreSQL's stale until it runs.
    await db.exec('ANALYZE');
    return { task, duration_ms: ms() };
  }
  if (task === 'reindex_embeddings') return { task, ...(await reindexEmbeddings(db)), duration_ms: ms() };
  // Analytics' daily rollups recomputed from the orders, every store (after a bulk import or a restore).
  if (task === 'rebuild_rollups') return { task, ...(await rebuildRollups(db, clock)), duration_ms: ms() };
  const pglite = (db.native as { pglite?: { dumpDataDir(c: 'gzip'): Promise<Blob> } }).pglite;
  if (!pglite) throw new Error('backup copies the embedded database; on PostgreSQL use pg_dump');
  // PGlite's own dump of its data directory: a consistent copy taken between statements.
  const dump = await pglite.dumpDataDir('gzip');
  const dir = resolve(opts.dataDir, 'backups');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `svc-${clock.now().toISOString().replace(/[:.]/g, '-')}.tar.gz`);
  const bytes = await Bun.write(path, dump);
  return { task, path, bytes, duration_ms: ms() };
}

/** Takes and runs this node's queued tasks. Answers how many ran. */
export async function runQueuedTasks(db: Db, clock: Clock, nodeId: string, opts: TaskOptions): Promise<number> {
  let ran = 0;
  for (;;) {
    const [t] = await db.query<{ id: string; task: Task }>(
      `UPDATE local_agent_tasks SET status = 'running' WHERE id = (
         SELECT id FROM local_agent_tasks WHERE node_id = $1 AND status = 'queued' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
       ) RETURNING id, task`,
      [nodeId],
    );
    if (!t) return ran;
    ran++;
    // A job cancelled meanwhile is not run.
    if (await claimJob(db, t.id, clock.now())) {
      let outcome: Record<string, unknown>;
      try {
        const result = await runTask(db, clock, t.task, opts);
        await finishJob(db, t.id, clock.now(), result);
        outcome = { job_id: t.id, task: t.task, status: 'succeeded', result };
      } catch (e) {
        const error = { message: e instanceof Error ? e.message : String(e), code: 'task_failed' };
        await failJob(db, t.id, clock.now(), error, true);
        outcome = { job_id: t.id, task: t.task, status: 'failed', error };
      }
      await remember(db, nodeId, { ...outcome, finished_at: clock.now().toISOString() });
    }
    await db.query(`UPDATE local_agent_tasks SET status = 'done' WHERE id = $1`, [t.id]);
  }
}

/** Newest first, the last RECENT kept. */
async function remember(db: Db, nodeId: string, entry: object) {
  await db.query(
    `UPDATE local_agent_nodes SET recent_tasks = (
       SELECT coalesce(jsonb_agg(x ORDER BY n), '[]'::jsonb)
         FROM jsonb_array_elements(jsonb_build_array($2::text::jsonb) || recent_tasks) WITH ORDINALITY AS t(x, n) WHERE n <= $3
     ) WHERE id = $1`,
    [nodeId, JSON.stringify(entry), RECENT],
  );
}

/** Tasks of nodes that are gone (swept, or stopped with tasks waiting) fail: no other node takes a task meant for one. */
export async function failOrphans(db: Db, clock: Clock, nodeIds: string[], why: string) {
  if (!nodeIds.length) return;
  const rows = await db.query<{ id: string }>(
    `UPDATE local_agent_tasks SET status = 'done' WHERE node_id = ANY($1::uuid[]) AND status <> 'done' RETURNING id`,
    [nodeIds],
  );
  for (const r of rows) await failJob(db, r.id, clock.now(), { message: why, code: 'node_gone' }, true);
}
