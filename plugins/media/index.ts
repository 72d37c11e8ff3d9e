import { Type } from '@sinclair/typebox';
import {
  actionFor,
  definePlugin,
  Deleted,
  defineErrors,
  errors,
  forbidden,
  Input,
  ListOf,
  ListParams,
  noExample,
  Uuid,
  onFirstCall,
} from '../../core/sdk';
import { Asset } from './schemas';
import { MediaConfig } from './config';
import migration001 from './migrations/001_media.sql' with { type: 'text' };

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { assetRow, deleteAsset, listMedia, present, saveAsset, serveAsset, transform, uploadBytes } = onFirstCall(() => import('./assets'));

const action = actionFor(MediaConfig);

const ExpiresIn = Type.Integer({
  minimum: 1,
  maximum: 604_800,
  description: "A private asset's URL lifetime in seconds (1 s to 7 days; default SVC_MEDIA_SIGNED_URL_TTL_S, 3600).",
});

// A 1x1 PNG, so the sweeps' upload example makes a real asset.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/**
 * SPEC 4.10 media: a store's files, kept under the data directory and served by svc at
 * /media/<store>/<asset>/<filename>. Private files need a signed URL; images are transformed with
 * WebAssembly codecs (codecs.ts), each variant made once.
 */
export default definePlugin({
  name: 'media',
  category: 'content',
  catalog: true,
  description: 'Upload, list, transform (resize, crop, convert) and delete the store’s images and files; each has a URL svc serves.',
  scopes: { read: ['media', 'media:read', 'media:write'], write: ['media', 'media:write'] },
  tables: ['media_assets'],
  migrations: [{ id: 'media/001_media', sql: migration001 }],
  config: MediaConfig,
  errors: defineErrors({
    media_quota_exceeded: forbidden("The store's media storage is full for its plan."),
    media_signature_invalid: forbidden("A private media URL's signature is missing, wrong or expired."),
  }),
  actions: {
    upload: action({
      kind: 'write',
      description:
        'Store a file: multipart field file (REST), base64 data, or source_url (downloaded). The type is sniffed from the bytes; visibility public (default) or private (signed URLs).',
      input: Input({
        data: Type.Optional(
          Type.String({ maxLength: 6_000_000, description: 'The file in base64 (small files: the 1 MiB REST and 4 MiB MCP body limits hold).' }),
        ),
        source_url: Type.Optional(
          Type.String({ minLength: 1, maxLength: 2048, description: 'An http(s) URL to download; private and loopback addresses are refused.' }),
        ),
        filename: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        visibility: Type.Optional(Type.Union([Type.Literal('public'), Type.Literal('private')], { default: 'public' })),
        expires_in: Type.Optional(ExpiresIn),
        form: Type.Optional(Type.Unknown({ description: 'REST only: the multipart body (field file, and the fields above).' })),
      }),
      output: Asset,
      rest: { method: 'POST', path: '/media', status: 201, body: 'multipart' },
      example: { data: PIXEL, filename: 'pixel.png' },
      handler: async (ctx, input) => {
        const { bytes, filename, fields } = await uploadBytes(ctx, input);
        const visibility = fields.visibility ?? 'public';
        if (visibility !== 'public' && visibility !== 'private') throw errors.validation('visibility is public or private.', 'visibility');
        const ttl = fields.expires_in;
        if (ttl !== undefined && !(Number.isInteger(ttl) && ttl >= 1 && ttl <= 604_800))
          throw errors.validation('expires_in is whole seconds from 1 to 604800 (7 days).', 'expires_in');
        return present(ctx, await saveAsset(ctx, { bytes, filename, visibility }), ttl);
      },
    }),
    list_media: action({
      kind: 'read',
      description: 'The store’s media, newest first.',
      input: Input({ ...ListParams }),
      output: ListOf(Asset),
      rest: { method: 'GET', path: '/media' },
      handler: (ctx, input) => listMedia(ctx, input),
    }),
    get_media: action({
      kind: 'read',
      description: 'One asset, with a fresh URL (a signed one for private assets, valid expires_in seconds).',
      input: Input({ id: Uuid(), expires_in: Type.Optional(ExpiresIn) }),
      output: Asset,
      rest: { method: 'GET', path: '/media/:id' },
      example: noExample('needs an uploaded asset; media.test.ts covers it over REST and MCP'),
      handler: async (ctx, input) => present(ctx, await assetRow(ctx, input.id), input.expires_in),
    }),
    transform: action({
      kind: 'write',
      description:
        'A resized, cropped or converted copy of a PNG, JPEG or WebP image, as a new asset (the same parameters answer the same copy). fit: inside (default), cover or contain; crop (pixels) is cut first.',
      input: Input({
        id: Uuid(),
        width: Type.Optional(Type.Integer({ minimum: 1, maximum: 8192 })),
        height: Type.Optional(Type.Integer({ minimum: 1, maximum: 8192 })),
        fit: Type.Optional(Type.Union([Type.Literal('cover'), Type.Literal('contain'), Type.Literal('inside')])),
        crop: Type.Optional(
          Type.Object(
            {
              x: Type.Integer({ minimum: 0 }),
              y: Type.Integer({ minimum: 0 }),
              width: Type.Integer({ minimum: 1, maximum: 16384 }),
              height: Type.Integer({ minimum: 1, maximum: 16384 }),
            },
            { additionalProperties: false },
          ),
        ),
        format: Type.Optional(Type.Union([Type.Literal('png'), Type.Literal('jpeg'), Type.Literal('webp')])),
        quality: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'JPEG and WebP quality (default 80).' })),
      }),
      output: Type.Object({ ...Asset.properties, cached: Type.Boolean({ description: 'An earlier transform with these parameters was answered.' }) }),
      rest: { method: 'POST', path: '/media/:id/transform', status: 201 },
      example: noExample('needs an uploaded image; media.test.ts covers it over REST and MCP'),
      handler: (ctx, input) => transform(ctx, input),
    }),
    delete: action({
      kind: 'destructive',
      description: 'Delete an asset and its transforms: the bytes and the URL go (404 after).',
      input: Input({ id: Uuid() }),
      output: Deleted,
      rest: { method: 'DELETE', path: '/media/:id' },
      example: noExample('needs an uploaded asset; media.test.ts covers it over REST and MCP'),
      handler: (ctx, input) => deleteAsset(ctx, input.id),
    }),
    serve_media: action({
      kind: 'read',
      description: 'The file itself, as its URL serves it (public, or private with expires and signature).',
      input: Input({
        store_id: Uuid(),
        asset_id: Uuid(),
        filename: Type.String({ minLength: 1, maxLength: 300 }),
        expires: Type.Optional(Type.String({ maxLength: 20 })),
        signature: Type.Optional(Type.String({ maxLength: 100 })),
      }),
      output: Type.Object({}, { description: 'The file bytes.' }),
      rest: {
        method: 'GET',
        path: '/media/:store_id/:asset_id/:filename',
        auth: 'public',
        scope: 'global',
        response: 'raw',
        contentType: 'application/octet-stream',
      },
      example: noExample('serves an uploaded file; media.test.ts covers it'),
      handler: (ctx, input) => serveAsset(ctx, input),
    }),
  },
});
