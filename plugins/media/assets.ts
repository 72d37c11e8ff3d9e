import { egressFetch, errors, iso, page, type Ctx, type PageInput } from '../../core/sdk';
import { checkRoom, checkSignature, notFound, urlOf, type AssetRow } from './files';
import { byteStore } from './storage';
import type { MediaConfig } from './config';
import { dimensions, sniff } from './sniff';
import { cropPixels, decodeImage, encodeImage, resizePixels, type ImageFormat, type Pixels } from './codecs';

export type MediaSettings = MediaConfig;
type MediaCtx = Ctx<MediaSettings>;

export function present(ctx: MediaCtx, row: AssetRow, expiresIn?: number) {
  return {
    object: 'media' as const,
    id: row.id,
    filename: row.filename,
    content_type: row.content_type,
    size: Number(row.size),
    width: row.width,
    height: row.height,
    visibility: row.visibility,
    source_id: row.source_id,
    ...urlOf(ctx, row, expiresIn ?? ctx.config.signed_url_ttl_s),
    created_at: iso(row.created_at as Date),
  };
}

/** A name safe in a URL path and a Content-Disposition: no slashes, quotes or control characters. */
function cleanName(name: string | undefined, ext: string): string {
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    .replace(/[^\w.\- ]+/g, '_')
    .trim()
    .slice(0, 200);
  return base && base !== '.' && base !== '..' ? base : `file.${ext}`;
}

export interface NewAsset {
  bytes: Uint8Array;
  filename?: string;
  visibility?: 'public' | 'private';
  source_id?: string;
  variant?: string;
}

/** Stores bytes as an asset: type sniffed, plan limits checked, file written before the row. */
export async function saveAsset(ctx: MediaCtx, a: NewAsset): Promise<AssetRow> {
  if (!a.bytes.length) throw errors.validation('The file is empty.', 'file');
  await checkRoom(ctx, a.bytes.length, ctx.config.limits);
  const { type, ext } = sniff(a.bytes);
  const dims = dimensions(a.bytes, type);
  const id = crypto.randomUUID();
  await byteStore(ctx.config).put(ctx.store.id, id, a.bytes, type);
  try {
    const [row] = await ctx.db.query<AssetRow>(
      `INSERT INTO media_assets (id, store_id, filename, content_type, size, width, height, visibility, source_id, variant, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [
        id,
        ctx.store.id,
        cleanName(a.filename, ext),
        type,
        a.bytes.length,
        dims?.width ?? null,
        dims?.height ?? null,
        a.visibility ?? 'public',
        a.source_id ?? null,
        a.variant ?? null,
        ctx.clock.now(),
      ],
    );
    return row;
  } catch (err) {
    await byteStore(ctx.config).remove(ctx.store.id, id);
    throw err;
  }
}

export async function assetRow(ctx: MediaCtx, id: string): Promise<AssetRow> {
  const [row] = await ctx.db.query<AssetRow>('SELECT * FROM media_assets WHERE store_id = $1 AND id = $2', [ctx.store.id, id]);
  if (!row) throw notFound();
  return row;
}

export const readAsset = (ctx: MediaCtx, row: AssetRow) => byteStore(ctx.config).get(row.store_id, row.id);

/** The bytes of an upload: a multipart `file` part, base64 `data`, or `source_url` through the egress guard. */
export async function uploadBytes(
  ctx: MediaCtx,
  input: Record<string, any>,
): Promise<{ bytes: Uint8Array; filename?: string; fields: Record<string, any> }> {
  const fields: Record<string, any> = { ...input };
  if (input.form !== undefined) {
    if (!(input.form instanceof FormData))
      throw errors.validation('form is the multipart body of POST /media; send file, data or source_url.', 'form');
    for (const [k, v] of input.form.entries()) if (typeof v === 'string') fields[k] = k === 'expires_in' ? Number(v) : v;
    const file = input.form.get('file');
    if (file instanceof Blob) return { bytes: new Uint8Array(await file.arrayBuffer()), filename: fields.filename ?? (file as File).name, fields };
  }
  const given = ['data', 'source_url'].filter((k) => fields[k] !== undefined);
  if (given.length !== 1) throw errors.validation('Give exactly one of file (multipart), data (base64) or source_url.', 'file');
  if (fields.data !== undefined) {
    const s = String(fields.data).replace(/^data:[^,]*,/, '');
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(s.replace(/\s+/g, ''))) throw errors.validation('data is not base64.', 'data');
    return { bytes: new Uint8Array(Buffer.from(s, 'base64')), filename: fields.filename, fields };
  }
  const res = await egressFetch(String(fields.source_url), {
    timeoutMs: ctx.config.fetch_timeout_s * 1000,
    maxBytes: 500 * 1024 * 1024 + 1,
    purpose: 'source',
    signal: ctx.shutdown,
  });
  if (res.status < 200 || res.status > 299) throw errors.validation(`source_url answered HTTP ${res.status}.`, 'source_url');
  const fromUrl = decodeURIComponent(new URL(res.url).pathname.split('/').pop() ?? '');
  return { bytes: res.body, filename: fields.filename ?? fromUrl, fields };
}

export function listMedia(ctx: MediaCtx, input: PageInput) {
  return page<AssetRow>(ctx.db, { table: 'media_assets', storeId: ctx.store.id, input }).then((p) => ({
    object: 'list' as const,
    url: `${ctx.storePath}/media`,
    has_more: p.has_more,
    data: p.rows.map((r) => present(ctx, r)),
  }));
}

export async function deleteAsset(ctx: MediaCtx, id: string) {
  // Its transforms go with it: they are copies of the same picture.
  const rows = await ctx.db.query<{ id: string }>('DELETE FROM media_assets WHERE store_id = $1 AND (id = $2 OR source_id = $2) RETURNING id', [
    ctx.store.id,
    id,
  ]);
  if (!rows.some((r) => r.id === id)) throw notFound();
  for (const r of rows) await byteStore(ctx.config).remove(ctx.store.id, r.id);
  return { id, object: 'media', deleted: true };
}

/** `GET /media/<store>/<asset>/<filename>`: public assets to anyone, private ones with a valid signature. */
export async function serveAsset(ctx: MediaCtx, input: Record<string, string>): Promise<Response> {
  const [row] = await ctx.db.query<AssetRow>('SELECT * FROM media_assets WHERE store_id = $1 AND id = $2 AND filename = $3', [
    input.store_id,
    input.asset_id,
    input.filename,
  ]);
  if (!row) throw notFound();
  if (row.visibility === 'private') checkSignature(ctx, row.store_id, row.id, input.expires, input.signature);
  const bytes = await readAsset(ctx, row);
  const headers: Record<string, string> = {
    'Content-Type': row.content_type,
    'Cache-Control': row.visibility === 'public' ? 'public, max-age=3600' : 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    // A stored SVG or HTML must never run script on svc's origin.
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  };
  if (!/^(image\/(png|jpeg|webp|gif|avif)|video\/|audio\/)/.test(row.content_type))
    headers['Content-Disposition'] = `attachment; filename="${row.filename}"`;
  return new Response(bytes, { headers });
}

export interface TransformInput {
  id: string;
  width?: number;
  height?: number;
  fit?: 'cover' | 'contain' | 'inside';
  crop?: { x: number; y: number; width: number; height: number };
  format?: ImageFormat;
  quality?: number;
}

const FORMATS: Record<string, ImageFormat> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/webp': 'webp' };
const EXT: Record<ImageFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

/** A derived image, made once per source and parameters (a repeat answers the first). */
export async function transform(ctx: MediaCtx, input: TransformInput) {
  const src = await assetRow(ctx, input.id);
  const from = FORMATS[src.content_type];
  if (!from) throw errors.validation(`Only PNG, JPEG and WebP images can be transformed; this asset is ${src.content_type}.`, 'id');
  const params = {
    width: input.width ?? null,
    height: input.height ?? null,
    fit: input.fit ?? 'inside',
    crop: input.crop ?? null,
    format: input.format ?? from,
    quality: input.quality ?? 80,
  };
  const variant = JSON.stringify(params);
  const [cached] = await ctx.db.query<AssetRow>('SELECT * FROM media_assets WHERE store_id = $1 AND source_id = $2 AND variant = $3', [
    ctx.store.id,
    src.id,
    variant,
  ]);
  if (cached) return { ...present(ctx, cached), cached: true };
  let px: Pixels = await decodeImage(from, await readAsset(ctx, src)).catch(() => {
    throw errors.validation('The source image could not be decoded.', 'id');
  });
  if (params.crop) {
    const c = params.crop;
    if (c.x + c.width > px.width || c.y + c.height > px.height)
      throw errors.validation(`crop reaches past the image (${px.width}x${px.height}).`, 'crop');
    px = cropPixels(px, c.x, c.y, c.width, c.height);
  }
  px = await fitPixels(px, params.width, params.height, params.fit);
  const bytes = await encodeImage(params.format, px, params.quality);
  const stem = src.filename.replace(/\.[^.]*$/, '');
  const row = await saveAsset(ctx, {
    bytes,
    filename: `${stem}-${px.width}x${px.height}.${EXT[params.format]}`,
    visibility: src.visibility,
    source_id: src.id,
    variant,
  });
  return { ...present(ctx, row), cached: false };
}

/** Scales to the box: inside keeps the aspect within it, cover fills it and cuts the overflow, contain fits and pads (transparent). */
async function fitPixels(px: Pixels, w: number | null, h: number | null, fit: string): Promise<Pixels> {
  if (w === null && h === null) return px;
  const ratio = px.width / px.height;
  if (w === null || h === null) {
    const W = w ?? Math.max(1, Math.round(h! * ratio));
    const H = h ?? Math.max(1, Math.round(w! / ratio));
    return resizePixels(px, W, H);
  }
  if (fit === 'cover') {
    const scale = Math.max(w / px.width, h / px.height);
    const big = await resizePixels(px, Math.max(w, Math.round(px.width * scale)), Math.max(h, Math.round(px.height * scale)));
    return cropPixels(big, Math.floor((big.width - w) / 2), Math.floor((big.height - h) / 2), w, h);
  }
  const scale = Math.min(w / px.width, h / px.height);
  const inner = await resizePixels(px, Math.max(1, Math.round(px.width * scale)), Math.max(1, Math.round(px.height * scale)));
  if (fit === 'inside') return inner;
  const out = new Uint8ClampedArray(w * h * 4);
  const ox = Math.floor((w - inner.width) / 2);
  const oy = Math.floor((h - inner.height) / 2);
  for (let row = 0; row < inner.height; row++)
    out.set(inner.data.subarray(row * inner.width * 4, (row + 1) * inner.width * 4), ((oy + row) * w + ox) * 4);
  return { data: out, width: w, height: h };
}
