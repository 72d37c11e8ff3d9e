import { timingSafeEqual } from 'node:crypto';
import { errors, fail, iso, PLAN_LIMITS, secretBox, type Ctx, type Plan } from '../../core/sdk';

export interface AssetRow {
  id: string;
  store_id: string;
  filename: string;
  content_type: string;
  size: string | number;
  width: number | null;
  height: number | null;
  visibility: 'public' | 'private';
  source_id: string | null;
  variant: string | null;
  created_at: Date | string;
}

const PURPOSE = 'svc media url v1';
const signatureOf = (storeId: string, id: string, expires: number) => secretBox().mac(PURPOSE, `${storeId}/${id}/${expires}`).toString('base64url');

/** The URL of an asset: plain when public, with `expires` and an HMAC `signature` when private. */
export function urlOf(ctx: Ctx, row: AssetRow, ttlS: number): { url: string; url_expires_at: string | null } {
  const base = `${ctx.origin}/media/${row.store_id}/${row.id}/${encodeURIComponent(row.filename)}`;
  if (row.visibility === 'public') return { url: base, url_expires_at: null };
  const expires = Math.floor(ctx.clock.now().getTime() / 1000) + ttlS;
  return { url: `${base}?expires=${expires}&signature=${signatureOf(row.store_id, row.id, expires)}`, url_expires_at: iso(new Date(expires * 1000)) };
}

/** A private asset's link, checked: signature (constant time), then expiry; any failure is 403. */
export function checkSignature(ctx: Ctx, storeId: string, id: string, expires?: string, signature?: string) {
  if (!expires || !signature || !/^\d{1,12}$/.test(expires))
    throw fail('media_signature_invalid', 'This media file is private: its URL needs expires and signature (get_media gives a fresh one).');
  const given = Buffer.from(signature, 'base64url');
  const expected = Buffer.from(signatureOf(storeId, id, Number(expires)), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw fail('media_signature_invalid', 'This media URL is not valid: it was altered, or made by another server.');
  if (ctx.clock.now().getTime() / 1000 >= Number(expires))
    throw fail('media_signature_invalid', `This media URL expired at ${iso(new Date(Number(expires) * 1000))}: get_media gives a fresh one.`);
}

/** The plan's media limits, or SVC_MEDIA_LIMITS' (`plan=uploadMiB:storageGiB,...`) for that plan. */
export function limitsOf(plan: Plan, override: string): { upload: number; storage: number } {
  const base = PLAN_LIMITS[plan] ?? PLAN_LIMITS.free;
  const out = { upload: base.media_upload_bytes ?? Number.MAX_SAFE_INTEGER, storage: base.media_storage_bytes ?? Number.MAX_SAFE_INTEGER };
  for (const part of override.split(',')) {
    const m = /^\s*(\w+)\s*=\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(part);
    if (m && m[1] === plan) return { upload: Number(m[2]) * 1024 * 1024, storage: Number(m[3]) * 1024 ** 3 };
  }
  return out;
}

/** Refuses bytes over the upload limit (413) or past the store's storage limit (403). */
export async function checkRoom(ctx: Ctx, size: number, override: string) {
  const { upload, storage } = limitsOf(ctx.store.plan as Plan, override);
  if (size > upload)
    throw fail('request_too_large', `This file is ${size} bytes; the ${ctx.store.plan} plan takes uploads up to ${upload} bytes.`, 'file');
  const [{ used }] = await ctx.db.query<{ used: string }>('SELECT COALESCE(SUM(size), 0) AS used FROM media_assets WHERE store_id = $1', [
    ctx.store.id,
  ]);
  if (Number(used) + size > storage)
    throw fail(
      'media_quota_exceeded',
      `The store's media would take ${Number(used) + size} bytes; the ${ctx.store.plan} plan allows ${storage}. Delete media or change plan.`,
    );
}

export const notFound = () => errors.notFound('media asset', 'id');
