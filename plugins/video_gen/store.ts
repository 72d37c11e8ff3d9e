import type { Static } from '@sinclair/typebox';
import { iso, isoOrNull, jsonParam, listPage, rowOr404, SvcError, type Ctx, type Db, type Row } from '../../core/sdk';
import type { Asset } from '../media/public';
import type { VideoQuery } from './schemas';

export type VideoRow = Row;
type AssetOut = Static<typeof Asset>;

/** A video as every answer shows it; `media` is its asset as media presents it (a fresh URL), or null. */
export const toVideo = (r: VideoRow, media: AssetOut | null) => ({
  object: 'video' as const,
  id: r.id as string,
  status: r.status as 'queued' | 'in_progress' | 'completed' | 'failed',
  progress: Number(r.progress),
  prompt: r.prompt as string,
  model: r.model as string,
  seconds: r.seconds === null ? null : Number(r.seconds),
  size: (r.size ?? null) as string | null,
  visibility: r.visibility as 'public' | 'private',
  media_id: (r.media_id ?? null) as string | null,
  media,
  error: (r.error ?? null) as { code: string; message: string } | null,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
  completed_at: isoOrNull(r.completed_at),
});

/** The asset through media's own action (as this plugin, which requires media); gone: null. */
async function assetOf(ctx: Ctx, mediaId: string | null): Promise<AssetOut | null> {
  if (!mediaId) return null;
  try {
    return (await ctx.call('media.get_media', { id: mediaId })) as AssetOut;
  } catch (err) {
    if (err instanceof SvcError && err.code === 'resource_missing') return null;
    throw err;
  }
}

/**
 * A video whose job ended without finishing it (cancelled before a worker took it, or failed once
 * its retries were spent) is shown failed, with the job's reason: the job will not touch it again.
 */
async function settled(ctx: Ctx, r: VideoRow): Promise<VideoRow> {
  if (r.status !== 'queued' && r.status !== 'in_progress') return r;
  const [job] = await ctx.db.query<{ status: string; error: { code?: string; message: string } | null }>(
    'SELECT status, error FROM jobs WHERE store_id = $1 AND id = $2',
    [ctx.store.id, r.id],
  );
  if (job?.status === 'cancelled') return { ...r, status: 'failed', error: { code: 'cancelled', message: 'The job was cancelled.' } };
  if (job?.status === 'failed')
    return { ...r, status: 'failed', error: { code: job.error?.code ?? 'failed', message: job.error?.message ?? 'The job failed.' } };
  return r;
}

export const presentVideo = async (ctx: Ctx, r: VideoRow) => toVideo(await settled(ctx, r), await assetOf(ctx, r.media_id ?? null));

export async function insertVideo(
  ctx: Ctx,
  v: {
    id: string;
    prompt: string;
    model: string;
    seconds: number | null;
    size: string | null;
    visibility: string;
    status: string;
    progress: number;
    provider_id: string;
  },
) {
  const now = ctx.clock.now();
  const [row] = await ctx.db.query(
    `INSERT INTO videos (id, store_id, prompt, model, seconds, size, visibility, status, progress, provider_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
    [v.id, ctx.store.id, v.prompt, v.model, v.seconds, v.size, v.visibility, v.status, v.progress, v.provider_id, now],
  );
  return row;
}

export const videoRow = (db: Db, storeId: string, id: string, lock?: 'FOR UPDATE') =>
  rowOr404(db, { table: 'videos', storeId, id, noun: 'video', lock });

/** Status and progress as last polled; a finished video is never moved back. */
export async function recordPoll(db: Db, storeId: string, id: string, status: string, progress: number, at: Date) {
  const [row] = await db.query(
    `UPDATE videos SET status = $3, progress = $4, updated_at = $5
      WHERE store_id = $1 AND id = $2 AND status IN ('queued', 'in_progress') RETURNING *`,
    [storeId, id, status, progress, at],
  );
  return row as VideoRow | undefined;
}

export async function markCompleted(db: Db, storeId: string, id: string, mediaId: string, seconds: number | null, at: Date) {
  const [row] = await db.query(
    `UPDATE videos SET status = 'completed', progress = 100, media_id = $3, seconds = coalesce($4, seconds), error = NULL,
            updated_at = $5, completed_at = $5
      WHERE store_id = $1 AND id = $2 AND status IN ('queued', 'in_progress') RETURNING *`,
    [storeId, id, mediaId, seconds, at],
  );
  return row as VideoRow | undefined;
}

export async function markFailed(db: Db, storeId: string, id: string, error: { code: string; message: string }, at: Date) {
  const [row] = await db.query(
    `UPDATE videos SET status = 'failed', error = $3::text::jsonb, updated_at = $4
      WHERE store_id = $1 AND id = $2 AND status IN ('queued', 'in_progress') RETURNING *`,
    [storeId, id, jsonParam(error), at],
  );
  return row as VideoRow | undefined;
}

/** The status `settled` shows, in SQL, so a status filter agrees with what the list shows. */
const SHOWN_STATUS = `CASE WHEN videos.status IN ('queued', 'in_progress') AND EXISTS (SELECT 1 FROM jobs j
  WHERE j.store_id = videos.store_id AND j.id = videos.id AND j.status IN ('cancelled', 'failed')) THEN 'failed' ELSE videos.status END`;

export const listVideos = (ctx: Ctx, input: Static<typeof VideoQuery>) =>
  listPage(ctx, { table: 'videos', path: '/videos', input, filters: { [`${SHOWN_STATUS} = $`]: input.status } }, (rows) =>
    Promise.all(rows.map((r) => presentVideo(ctx, r))),
  );
