import {
  emitEvents,
  fail,
  recordUsage,
  SvcError,
  videosProvider,
  type Ctx,
  type JobCtx,
  type ProviderConfig,
  type ProviderVideo,
} from '../../core/sdk';
import { storeMedia } from '../media/public';
import { markCompleted, markFailed, recordPoll, toVideo, videoRow, type VideoRow } from './store';

export interface VideoSettings {
  video_model: string;
  poll_s: number;
  max_wait_s: number;
  provider_prices?: string;
}
type VideoCtx = JobCtx & Ctx<VideoSettings>;

/**
 * One attempt polls at most this long, then hands the job back to the queue (a retry resumes
 * from the saved provider id): pg-boss expires a job that runs past 15 minutes.
 */
const ATTEMPT_MS = 10 * 60_000;

/** Resolves after `ms`, or rejects when the job is cancelled or the server stops. */
const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

/**
 * A rate limit while polling is the provider asking for time, not a refusal of the video: the job
 * is retried with backoff (a 4xx SvcError would fail it at once).
 */
function retryable(err: unknown): unknown {
  if (err instanceof SvcError && err.code === 'rate_limit_exceeded') return new Error(err.message);
  return err;
}

/** Records a final failure and its `video.failed` event in one transaction (once: a finished video stays as it is). */
async function recordFailure(ctx: VideoCtx, row: VideoRow, error: { code: string; message: string }) {
  await ctx.db.transaction(async (tx) => {
    const failed = await markFailed(tx, ctx.store.id, row.id, error, ctx.clock.now());
    if (failed) await emitEvents(tx, ctx.registry, ctx.store.id, [{ type: 'video.failed', data: toVideo(failed, null), at: ctx.clock.now() }]);
  });
}

/** A final failure: recorded, then the job fails at once with the provider's words. */
async function failVideo(ctx: VideoCtx, row: VideoRow, error: { code: string; message: string }): Promise<never> {
  await recordFailure(ctx, row, error);
  throw fail('video_failed', `The video failed: ${error.message} (${error.code}).`);
}

/**
 * The job behind generate_video (its id is the video's): polls the provider's video until it is
 * completed or failed, showing its progress, then stores the MP4 as a media asset and records the
 * usage and the `video.completed` event in one transaction. A retry (a crash, a provider error
 * while polling) resumes from the saved provider id: the video is never asked for twice.
 */
export async function runVideo(ctx: VideoCtx, input: { origin?: string }) {
  const id = ctx.jobId;
  if (!id) throw fail('validation_failed', 'A video job is started by generate_video.');
  let row = await videoRow(ctx.db, ctx.store.id, id);
  if (row.status === 'completed') return toVideo(row, null);
  if (row.status === 'failed') throw fail('video_failed', `The video failed: ${row.error?.message ?? 'no reason given'}.`);
  const provider = videosProvider(ctx.config as ProviderConfig);
  const started = performance.now();
  const deadline = new Date(row.created_at).getTime() + ctx.config.max_wait_s * 1000;
  let v: ProviderVideo;
  for (;;) {
    try {
      v = await provider.get(row.provider_id, ctx.shutdown);
    } catch (err) {
      throw retryable(err);
    }
    if (v.status === 'completed' || v.status === 'failed') break;
    row = (await recordPoll(ctx.db, ctx.store.id, id, v.status, Math.round(v.progress), ctx.clock.now())) ?? row;
    try {
      await ctx.progress(Math.round(v.progress), 100);
    } catch (cancelled) {
      // Cancelled by the client: the video is over for svc (the provider's copy is left to expire).
      await recordFailure(ctx, row, { code: 'cancelled', message: 'The job was cancelled.' });
      throw cancelled;
    }
    if (ctx.clock.now().getTime() >= deadline)
      return failVideo(ctx, row, { code: 'timeout', message: `not finished within ${ctx.config.max_wait_s} s (SVC_VIDEO_GEN_MAX_WAIT_S)` });
    if (performance.now() - started > ATTEMPT_MS) throw new Error('The video is still being made; the job resumes polling on its next attempt.');
    await pause(ctx.config.poll_s * 1000, ctx.shutdown);
  }
  if (v.status === 'failed') return failVideo(ctx, row, v.error ?? { code: 'failed', message: 'the provider gave no reason' });

  let bytes: Uint8Array;
  try {
    bytes = await provider.content(row.provider_id, ctx.shutdown);
  } catch (err) {
    throw retryable(err);
  }
  // Links need this server's origin: the request's that started the job, else SVC_PUBLIC_URL, else relative.
  let origin = input.origin ?? '';
  if (!origin)
    try {
      origin = ctx.origin;
    } catch {
      origin = '';
    }
  const seconds = v.seconds || (row.seconds === null ? null : Number(row.seconds));
  const video = await ctx.db.transaction(async (tx) => {
    const at = ctx.clock.now();
    const asset = await storeMedia({ ...ctx, db: tx, origin }, { bytes, filename: `video-${id.slice(0, 8)}.mp4`, visibility: row.visibility });
    const done = await markCompleted(tx, ctx.store.id, id, asset.id, seconds, at);
    if (!done) throw new Error('The video row changed while its file was stored.');
    const meter = { db: tx, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices };
    await recordUsage(meter, provider.name, row.model, { requests: 1, video_seconds: seconds ?? 0 });
    const out = toVideo(done, asset);
    await emitEvents(tx, ctx.registry, ctx.store.id, [{ type: 'video.completed', data: out, at }]);
    return out;
  });
  return video;
}
