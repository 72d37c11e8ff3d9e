import { Type } from '@sinclair/typebox';
import {
  actionFor,
  checkSpendCap,
  definePlugin,
  defineErrors,
  invalid,
  job,
  JobStarted,
  providerSettings,
  videosProvider,
  type ProviderConfig,
  onFirstCall,
} from '../../core/sdk';
import migration001 from './migrations/001_videos.sql' with { type: 'text' };
import { Video, VideoCreate, VideoId, VideoList, VideoQuery } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { runVideo } = onFirstCall(() => import('./run'));
const { insertVideo, listVideos, presentVideo, videoRow } = onFirstCall(() => import('./store'));

const VideoGenConfig = Type.Object({
  ...providerSettings,
  video_model: Type.String({ env: 'SVC_VIDEO_MODEL', default: 'sora-2', minLength: 1, description: 'The video model (OpenAI Videos API).' }),
  poll_s: Type.Number({ exclusiveMinimum: 0, maximum: 600, default: 10, description: 'Seconds between two polls of a video being made.' }),
  max_wait_s: Type.Integer({ minimum: 1, default: 3600, description: 'A video not finished this long after it was asked for is failed (timeout).' }),
});
const action = actionFor(VideoGenConfig);

/**
 * SPEC 4.10 video_gen: videos from a prompt through OpenAI's Videos API (Sora). generate_video asks
 * the provider at once (its refusals are the request's errors) and answers a job that polls the
 * video until it is completed or failed; the MP4 becomes a media asset; `video.completed` or
 * `video.failed` tells subscribers. Each video's seconds are metered and priced.
 */
export default definePlugin({
  name: 'video_gen',
  category: 'content',
  catalog: true,
  description: 'Generate short videos from a prompt (OpenAI Sora): a job that ends with the MP4 as a media asset; follow it with get_status.',
  resource: 'video',
  // SPEC 5.4: media, media:write, creations.
  scopes: { read: ['media', 'media:write', 'creations'], write: ['media', 'media:write', 'creations'] },
  requires: ['media'],
  config: VideoGenConfig,
  tables: ['videos'],
  migrations: [{ id: 'video_gen/001_videos', sql: migration001 }],
  events: { 'video.completed': Video, 'video.failed': Video },
  errors: defineErrors({
    video_failed: invalid('The provider could not make the video (its code and words are in the message), e.g. a prompt its policy refuses.'),
  }),
  jobs: {
    generate_video: job({
      description: 'Polls a video at the provider until it is completed or failed, then stores the MP4 as a media asset.',
      input: Type.Object({ origin: Type.Optional(Type.String({ maxLength: 2048 })) }),
      // A dead worker's video resumes within a minute or so, not after pg-boss's 15-minute expiry.
      heartbeatSeconds: 60,
      handler: runVideo,
    }),
  },
  actions: {
    generate_video: action({
      kind: 'write',
      description:
        'Start a video from a prompt (model SVC_VIDEO_MODEL, default sora-2): answers a job at once; the video’s id is the job’s. get_status shows its progress and, once completed, the MP4 media asset.',
      input: VideoCreate,
      output: JobStarted,
      startsJob: true,
      errors: ['video_failed'],
      emits: ['video.completed', 'video.failed'],
      rest: { method: 'POST', path: '/videos', status: 202 },
      // The sweeps' model server answers a queued video (test/kit/sweep.ts); video_gen.test.ts runs the job.
      example: { prompt: 'A linen apron folding itself on a table.', seconds: 4 },
      handler: async (ctx, input) => {
        const provider = videosProvider(ctx.config as ProviderConfig);
        await checkSpendCap({ db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices });
        const model = input.model ?? ctx.config.video_model;
        // Asked now, so a refusal, a rate limit or an unreachable provider is this request's answer.
        const v = await provider.create({ model, prompt: input.prompt, seconds: input.seconds, size: input.size }, ctx.shutdown);
        let origin: string | undefined;
        try {
          origin = ctx.origin;
        } catch {
          origin = undefined; // stdio without SVC_PUBLIC_URL: the job tries again, else links are relative
        }
        const started = await ctx.startJob('generate_video', origin ? { origin } : {});
        await insertVideo(ctx, {
          id: started.id,
          prompt: input.prompt,
          model,
          seconds: v.seconds || input.seconds || null,
          size: v.size || input.size || null,
          visibility: input.visibility ?? 'public',
          status: v.status === 'completed' || v.status === 'failed' ? 'queued' : v.status,
          progress: Math.round(v.progress),
          provider_id: v.id,
        });
        return started;
      },
    }),
    get_status: action({
      kind: 'read',
      description: 'A video: its status (queued, in_progress, completed, failed), progress, and once completed the MP4 media asset with its URL.',
      input: VideoId,
      output: Video,
      rest: { method: 'GET', path: '/videos/:id' },
      handler: async (ctx, input) => presentVideo(ctx, await videoRow(ctx.db, ctx.store.id, input.id)),
    }),
    list_videos: action({
      kind: 'read',
      description: 'The store’s videos, newest first; filter by status.',
      input: VideoQuery,
      output: VideoList,
      rest: { method: 'GET', path: '/videos' },
      handler: listVideos,
    }),
  },
});
