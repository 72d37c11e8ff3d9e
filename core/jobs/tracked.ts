import { Type } from '@sinclair/typebox';
import type { Db } from '../db/types';
import { iso, isoOrNull } from '../clock';
import type { JobObject } from '../plugins/contract';

/**
 * The jobs a client follows (`jobs` table, core/db/migrations/018_jobs.sql): what an action started
 * with ctx.startJob, and reactions to events. pg-boss runs them; this row is what a client reads
 * (status, progress, result) and what a cancel changes. Only the runner (run.ts) and a cancel move
 * a status, each with a guard on the status it expects, so a cancelled job never turns succeeded.
 */

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;

/** The job resource's schema: the output of an action that `startsJob`, and of `get_job`. */
export const JobStarted = Type.Object(
  {
    object: Type.Literal('job'),
    id: Type.String(),
    type: Type.String({ description: "'<plugin>.<job>', or '<plugin>.on:<event type>' for a reaction." }),
    status: Type.Union(JOB_STATUSES.map((s) => Type.Literal(s))),
    progress: Type.Object({ done: Type.Number(), total: Type.Union([Type.Number(), Type.Null()]) }),
    result: Type.Unknown({ description: "The handler's answer once succeeded, else null." }),
    error: Type.Union([Type.Object({ message: Type.String(), code: Type.Optional(Type.String()) }), Type.Null()]),
    created_at: Type.String(),
    started_at: Type.Union([Type.String(), Type.Null()]),
    finished_at: Type.Union([Type.String(), Type.Null()]),
    url: Type.String({ description: 'Where to read it: GET this path.' }),
  },
  { description: 'Long work a client follows: poll its url until the status is succeeded, failed or cancelled.' },
);

export const toJob = (r: any): JobObject => ({
  object: 'job',
  id: r.id,
  type: r.type,
  status: r.status,
  progress: { done: Number(r.progress_done), total: r.progress_total === null ? null : Number(r.progress_total) },
  result: r.result ?? null,
  error: r.error ?? null,
  created_at: iso(r.created_at),
  started_at: isoOrNull(r.started_at),
  finished_at: isoOrNull(r.finished_at),
  url: `/v1/stores/${r.store_id}/jobs/${r.id}`,
});

export async function insertJob(db: Db, storeId: string, type: string, at: Date): Promise<JobObject> {
  const [r] = await db.query(
    `INSERT INTO jobs (id, store_id, type, status, created_at) VALUES (gen_random_uuid(), $1, $2, 'queued', $3) RETURNING *`,
    [storeId, type, at],
  );
  return toJob(r);
}

/** The runner takes the job: false when it was cancelled (or is gone), and must not run. A retry finds it running. */
export async function claimJob(db: Db, id: string, at: Date): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET status = 'running', started_at = coalesce(started_at, $2), attempts = attempts + 1
     WHERE id = $1 AND status IN ('queued', 'running') RETURNING 1`,
    [id, at],
  );
  return rows.length > 0;
}

/** ctx.progress: false once the job was cancelled. */
export async function recordProgress(db: Db, id: string, done: number, total: number | undefined): Promise<boolean> {
  const rows = await db.query(
    `UPDATE jobs SET progress_done = $2, progress_total = coalesce($3, progress_total) WHERE id = $1 AND status = 'running' RETURNING 1`,
    [id, done, total ?? null],
  );
  return rows.length > 0;
}

export async function finishJob(db: Db, id: string, at: Date, result: unknown) {
  await db.query(
    `UPDATE jobs SET status = 'succeeded', result = $3::text::jsonb, finished_at = $2,
       progress_done = CASE WHEN progress_total IS NULL THEN progress_done ELSE progress_total END
     WHERE id = $1 AND status = 'running'`,
    [id, at, JSON.stringify(result ?? null)],
  );
}

/** A failed attempt: `final` when no retry is left (status failed), else back to queued with the error shown. */
export async function failJob(db: Db, id: string, at: Date, error: { message: string; code?: string }, final: boolean) {
  await db.query(
    `UPDATE jobs SET status = $3, error = $4::text::jsonb, finished_at = CASE WHEN $3 = 'failed' THEN $2::timestamptz ELSE NULL END
     WHERE id = $1 AND status IN ('queued', 'running')`,
    [id, at, final ? 'failed' : 'queued', JSON.stringify(error)],
  );
}

export async function getJob(db: Db, storeId: string, id: string): Promise<JobObject | undefined> {
  const [r] = await db.query('SELECT * FROM jobs WHERE store_id = $1 AND id = $2', [storeId, id]);
  return r ? toJob(r) : undefined;
}

/** Cancels a queued or running job; a finished one is answered as it is. */
export async function cancelJob(db: Db, storeId: string, id: string, at: Date): Promise<JobObject | undefined> {
  const [r] = await db.query(
    `UPDATE jobs SET status = 'cancelled', finished_at = $3 WHERE store_id = $1 AND id = $2 AND status IN ('queued', 'running') RETURNING *`,
    [storeId, id, at],
  );
  return r ? toJob(r) : getJob(db, storeId, id);
}
