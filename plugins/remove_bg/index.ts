import { Type } from '@sinclair/typebox';
import {
  actionFor,
  definePlugin,
  errors,
  Input,
  job,
  JobStarted,
  metered,
  noExample,
  providerSettings,
  removeBgProvider,
  Uuid,
  type Ctx,
  type ProviderConfig,
} from '../../core/sdk';
import { Asset, mediaBytes, storeMedia } from '../media/public';

const RemoveBgConfig = Type.Object({ ...providerSettings });
const action = actionFor(RemoveBgConfig);

/** One picture through remove.bg: its background made transparent, stored as a new PNG asset. */
async function removeOne(ctx: Ctx<{ provider_prices?: string }>, mediaId: string, param = 'media_id') {
  const provider = removeBgProvider(ctx.config as ProviderConfig);
  const { row, bytes } = await mediaBytes(ctx, mediaId, param);
  if (!row.content_type.startsWith('image/')) throw errors.validation(`Asset ${row.id} is ${row.content_type}, not an image.`, param);
  const meter = { db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices };
  const png = await metered(meter, provider.name, 'removebg', async () => ({
    value: await provider.run(bytes, row.filename, ctx.shutdown),
    usage: { requests: 1, images: 1 },
  }));
  const stem = row.filename.replace(/\.[^.]*$/, '');
  return storeMedia(ctx, { bytes: png, filename: `${stem}-nobg.png`, visibility: row.visibility });
}

/**
 * SPEC 4.10 remove_bg: remove.bg's `POST /v1.0/removebg` (SVC_REMOVEBG_API_KEY) on a stored
 * picture, the result a PNG media asset; batch_remove is a job over up to 100 pictures.
 */
export default definePlugin({
  name: 'remove_bg',
  category: 'content',
  catalog: true,
  description: 'Remove the background of stored images (remove.bg): each result is a transparent PNG media asset.',
  // SPEC 5.4: media, media:write.
  scopes: { read: ['media', 'media:write'], write: ['media', 'media:write'] },
  requires: ['media'],
  config: RemoveBgConfig,
  jobs: {
    batch_remove: job({
      description: 'Removes the background of each listed asset in turn; the result lists the new assets and the failures.',
      input: Type.Object({ media_ids: Type.Array(Uuid(), { minItems: 1, maxItems: 100 }) }),
      // A provider refusing (a 4xx) will refuse again: few attempts.
      retries: 2,
      handler: async (ctx, input) => {
        const done: { media_id: string; result_id: string }[] = [];
        const failed: { media_id: string; error: string }[] = [];
        for (const [i, id] of input.media_ids.entries()) {
          try {
            done.push({ media_id: id, result_id: (await removeOne(ctx, id)).id });
          } catch (err) {
            // One missing or refused picture does not stop the others; a rate limit or the spend cap does (retried).
            const code = (err as { code?: string }).code;
            if (code === 'rate_limit_exceeded' || code === 'spend_cap_reached' || !code) throw err;
            failed.push({ media_id: id, error: (err as Error).message });
          }
          await ctx.progress(i + 1, input.media_ids.length);
        }
        return { object: 'batch_remove_result', done, failed };
      },
    }),
  },
  actions: {
    remove_background: action({
      kind: 'write',
      description: 'The background of a stored image removed (remove.bg), as a new transparent PNG asset.',
      input: Input({ media_id: Uuid() }),
      output: Asset,
      rest: { method: 'POST', path: '/remove-bg', status: 201 },
      example: noExample('calls remove.bg; remove_bg.test.ts covers it against a local fake'),
      handler: (ctx, input) => removeOne(ctx, input.media_id),
    }),
    batch_remove: action({
      kind: 'write',
      description: 'Background removal of up to 100 stored images, as a job: poll it for progress; its result lists the new assets.',
      input: Input({ media_ids: Type.Array(Uuid(), { minItems: 1, maxItems: 100, uniqueItems: true }) }),
      output: JobStarted,
      startsJob: true,
      rest: { method: 'POST', path: '/remove-bg/batch', status: 202 },
      example: noExample('calls remove.bg; remove_bg.test.ts covers it against a local fake'),
      handler: async (ctx, input) => {
        removeBgProvider(ctx.config as ProviderConfig); // unset: 400 now, before a job is queued
        for (const [i, id] of input.media_ids.entries()) await mediaBytes(ctx, id, `media_ids.${i}`).then(() => undefined);
        return ctx.startJob('batch_remove', { media_ids: input.media_ids });
      },
    }),
  },
});
