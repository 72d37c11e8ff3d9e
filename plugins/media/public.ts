// What other plugins (image_gen, remove_bg) may use: storing bytes as an asset and reading one,
// under media's own settings (the caller's ctx.config is its own).
import { errors, SvcError, type Ctx } from '../../core/sdk';
import { assetRow, present, readAsset, saveAsset, type MediaSettings, type NewAsset } from './assets';

export { Asset } from './schemas';

const asMedia = (ctx: Ctx): Ctx<MediaSettings> => ({ ...ctx, config: ctx.registry.configOf('media') as MediaSettings });

/** Bytes stored as a new asset of the caller's store (plan limits checked), answered as media answers it. */
export async function storeMedia(ctx: Ctx, a: Omit<NewAsset, 'source_id' | 'variant'>) {
  const m = asMedia(ctx);
  return present(m, await saveAsset(m, a));
}

/** One of the store's assets and its bytes (404 naming `param` when it is not the store's). */
export async function mediaBytes(ctx: Ctx, id: string, param = 'media_id') {
  const m = asMedia(ctx);
  try {
    const row = await assetRow(m, id);
    return { row, bytes: await readAsset(m, row) };
  } catch (err) {
    throw err instanceof SvcError && err.code === 'resource_missing' ? errors.notFound('media asset', param) : err;
  }
}
