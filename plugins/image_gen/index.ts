import { Type } from '@sinclair/typebox';
import {
  actionFor,
  definePlugin,
  errors,
  imagesProvider,
  Input,
  metered,
  noExample,
  providerSettings,
  upscaleProvider,
  Uuid,
  type Ctx,
  type ProviderConfig,
} from '../../core/sdk';
import { Asset, mediaBytes, storeMedia } from '../media/public';

const ImageGenConfig = Type.Object({
  ...providerSettings,
  image_model: Type.String({ env: 'SVC_IMAGE_MODEL', default: 'gpt-image-1', description: 'The OpenAI-compatible image model.' }),
});
const action = actionFor(ImageGenConfig);

const Visibility = Type.Optional(
  Type.Union([Type.Literal('public'), Type.Literal('private')], { description: 'Of the new assets (default public).' }),
);
const Size = Type.Optional(
  Type.String({
    pattern: '^(\\d{2,4}x\\d{2,4}|auto)$',
    errorMessage: 'must be WIDTHxHEIGHT (e.g. 1024x1024) or auto',
    description: 'WIDTHxHEIGHT as the model allows (1024x1024, 1536x1024, ...), or auto.',
  }),
);
const Images = Type.Object({ object: Type.Literal('list'), data: Type.Array(Asset) });

const meterOf = (ctx: Ctx<{ provider_prices?: string }>) => ({
  db: ctx.db,
  clock: ctx.clock,
  storeId: ctx.store.id,
  prices: ctx.config.provider_prices,
});

/** Each picture a provider answered, stored as a media asset named after the action. */
async function keep(ctx: Ctx, images: Uint8Array[], stem: string, visibility?: 'public' | 'private') {
  const data = [];
  for (const [i, bytes] of images.entries()) data.push(await storeMedia(ctx, { bytes, filename: `${stem}-${i + 1}.png`, visibility }));
  return { object: 'list' as const, data };
}

/**
 * SPEC 4.10 image_gen: pictures from a prompt (OpenAI-compatible /images/generations), edits of a
 * stored picture (/images/edits) and 4x upscales (Stability AI). Every result is a media asset;
 * every call is metered (images) and refused at the store's spend cap.
 */
export default definePlugin({
  name: 'image_gen',
  category: 'content',
  catalog: true,
  description: 'Generate images from a prompt, edit a stored image with a prompt, or upscale one; each result is a media asset with a URL.',
  // SPEC 5.4: media, media:write, creations.
  scopes: { read: ['media', 'media:write', 'creations'], write: ['media', 'media:write', 'creations'] },
  requires: ['media'],
  config: ImageGenConfig,
  actions: {
    generate_image: action({
      kind: 'write',
      description: 'Images drawn from a prompt by the image model (SVC_IMAGE_MODEL), stored as media assets.',
      input: Input({
        prompt: Type.String({ minLength: 1, maxLength: 32_000 }),
        n: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, default: 1 })),
        size: Size,
        model: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        visibility: Visibility,
      }),
      output: Images,
      rest: { method: 'POST', path: '/images/generate', status: 201 },
      example: noExample('calls an image model; image_gen.test.ts covers it against a local fake'),
      handler: async (ctx, input) => {
        const provider = imagesProvider(ctx.config as ProviderConfig);
        const model = input.model ?? ctx.config.image_model;
        const out = await metered(meterOf(ctx), provider.name, model, async () => {
          const r = await provider.generate({ model, prompt: input.prompt, size: input.size, n: input.n ?? 1 }, ctx.shutdown);
          return { value: r.images, usage: { requests: 1, images: r.images.length } };
        });
        return keep(ctx, out, 'generated', input.visibility);
      },
    }),
    edit_image: action({
      kind: 'write',
      description: 'A stored image changed as the prompt says (the image model’s edit), as a new media asset.',
      input: Input({
        media_id: Uuid(),
        prompt: Type.String({ minLength: 1, maxLength: 32_000 }),
        size: Size,
        model: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        visibility: Visibility,
      }),
      output: Images,
      rest: { method: 'POST', path: '/images/edit', status: 201 },
      example: noExample('calls an image model; image_gen.test.ts covers it against a local fake'),
      handler: async (ctx, input) => {
        const provider = imagesProvider(ctx.config as ProviderConfig);
        const { row, bytes } = await mediaBytes(ctx, input.media_id);
        if (!row.content_type.startsWith('image/')) throw errors.validation(`Asset ${row.id} is ${row.content_type}, not an image.`, 'media_id');
        const model = input.model ?? ctx.config.image_model;
        const out = await metered(meterOf(ctx), provider.name, model, async () => {
          const r = await provider.edit({ model, prompt: input.prompt, image: bytes, filename: row.filename, size: input.size }, ctx.shutdown);
          return { value: r.images, usage: { requests: 1, images: r.images.length } };
        });
        return keep(ctx, out, 'edited', input.visibility ?? row.visibility);
      },
    }),
    upscale: action({
      kind: 'write',
      description: 'A stored image upscaled 4x by Stability AI (fast upscale), as a new PNG media asset.',
      input: Input({ media_id: Uuid(), visibility: Visibility }),
      output: Asset,
      rest: { method: 'POST', path: '/images/upscale', status: 201 },
      example: noExample('calls Stability AI; image_gen.test.ts covers it against a local fake'),
      handler: async (ctx, input) => {
        const provider = upscaleProvider(ctx.config as ProviderConfig);
        const { row, bytes } = await mediaBytes(ctx, input.media_id);
        if (!row.content_type.startsWith('image/')) throw errors.validation(`Asset ${row.id} is ${row.content_type}, not an image.`, 'media_id');
        const out = await metered(meterOf(ctx), provider.name, 'upscale-fast', async () => ({
          value: await provider.run(bytes, row.filename, ctx.shutdown),
          usage: { requests: 1, images: 1 },
        }));
        const stem = row.filename.replace(/\.[^.]*$/, '');
        return storeMedia(ctx, { bytes: out, filename: `${stem}-upscaled.png`, visibility: input.visibility ?? row.visibility });
      },
    }),
  },
});
