import { egressFetch, EgressError, fail, type Ctx, type Row } from '../../core/sdk';
import { decodeLogo, renderPng, renderSvg, type Logo } from './image';
import { toQrCode } from './store';

/** The image endpoint: the logo fetched once and kept, an ETag, and a small cache of rendered images. */

const MAX_LOGO_BYTES = 256 * 1024;
const MAX_LOGO_SIDE = 1024;
const LOGO_TIMEOUT_MS = 5000;
const DEFAULT_COLOR = '#000000';

const logoError = (message: string) => fail('logo_unavailable', message, 'logo_url');

/**
 * The logo as PNG bytes: kept on the row after the first fetch (through the egress guard, so a
 * logo URL cannot reach a private address unless SVC_EGRESS_ALLOW allows it). Only PNG, at most
 * 256 KB and 1024 pixels a side.
 */
async function keptLogo(ctx: Ctx, row: Row): Promise<{ png: Uint8Array; logo: Logo }> {
  if (row.logo_base64) {
    const png = Buffer.from(row.logo_base64, 'base64');
    return { png, logo: decodeLogo(png) };
  }
  let res;
  try {
    res = await egressFetch(row.logo_url, {
      headers: { accept: 'image/png' },
      timeoutMs: LOGO_TIMEOUT_MS,
      maxBytes: MAX_LOGO_BYTES,
      purpose: 'logo',
      signal: ctx.shutdown,
    });
  } catch (e) {
    if (e instanceof EgressError) throw logoError(`The logo could not be fetched: ${e.message}`);
    throw e;
  }
  if (res.status !== 200) throw logoError(`Fetching the logo answered HTTP ${res.status}.`);
  if (res.truncated) throw logoError(`The logo is larger than ${MAX_LOGO_BYTES / 1024} KB.`);
  const type = res.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
  if (type !== 'image/png') throw logoError(`The logo must be a PNG image (image/png), not ${type ?? 'an untyped answer'}.`);
  let logo: Logo;
  try {
    logo = decodeLogo(res.body);
  } catch {
    throw logoError('The logo is not a valid PNG image.');
  }
  if (logo.width > MAX_LOGO_SIDE || logo.height > MAX_LOGO_SIDE)
    throw logoError(`The logo is ${logo.width}x${logo.height}; at most ${MAX_LOGO_SIDE} pixels a side.`);
  // Kept only if the code still names this logo (an update may have changed it meanwhile).
  await ctx.db.query('UPDATE qr_codes SET logo_base64 = $3 WHERE id = $1 AND logo_url = $2', [
    row.id,
    row.logo_url,
    Buffer.from(res.body).toString('base64'),
  ]);
  return { png: res.body, logo };
}

export interface Rendered {
  body: Buffer | string;
  contentType: string;
}

const CACHE_MAX = 256;
const cache = new Map<string, Rendered>();
/** Least recently used first out: a Map keeps insertion order, so a hit is moved to the end. */
function cached(key: string, render: () => Promise<Rendered>): Promise<Rendered> | Rendered {
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  return render().then((r) => {
    cache.set(key, r);
    if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
    return r;
  });
}

/** Tests and benchmarks: forget rendered images. */
export const clearImageCache = () => cache.clear();

/**
 * What identifies an image: the scan URL it encodes, its look and the row's version (an update
 * changes updated_at, and the logo with it).
 */
function etagOf(scanUrl: string, row: Row, size: number, format: string): string {
  const key = [scanUrl, row.brand_color, row.logo_url, new Date(row.updated_at).toISOString(), size, format].join('|');
  return `"${new Bun.CryptoHasher('sha1').update(key).digest('base64url')}"`;
}

export async function renderFor(ctx: Ctx, row: Row, size: number, format: 'png' | 'svg'): Promise<Rendered & { etag: string }> {
  const scanUrl = toQrCode(ctx, row).scan_url;
  const etag = etagOf(scanUrl, row, size, format);
  const rendered = await cached(etag, async () => {
    const color = row.brand_color ?? DEFAULT_COLOR;
    const withLogo = row.logo_url ? await keptLogo(ctx, row) : undefined;
    if (format === 'svg')
      return { body: renderSvg(scanUrl, { size, color, logo: withLogo?.logo, logoPng: withLogo?.png }), contentType: 'image/svg+xml' };
    return { body: renderPng(scanUrl, { size, color, logo: withLogo?.logo }), contentType: 'image/png' };
  });
  return { ...rendered, etag };
}

export async function imageResponse(ctx: Ctx, row: Row, size: number, format: 'png' | 'svg'): Promise<Response> {
  const scanUrl = toQrCode(ctx, row).scan_url;
  const etag = etagOf(scanUrl, row, size, format);
  // Private: the image is behind the store's key. Revalidated hourly; a 304 costs no render.
  const headers = { ETag: etag, 'Cache-Control': 'private, max-age=3600', 'X-Content-Type-Options': 'nosniff' };
  const match = ctx.http?.request.headers.get('if-none-match');
  if (match && match.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return new Response(null, { status: 304, headers });
  const r = await renderFor(ctx, row, size, format);
  // An SVG may be opened directly: it must run nothing even if a browser renders it as a page.
  const extra: Record<string, string> =
    format === 'svg' ? { 'Content-Security-Policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'" } : {};
  return new Response(r.body as BodyInit, { headers: { ...headers, ...extra, 'Content-Type': r.contentType } });
}
