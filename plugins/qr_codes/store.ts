import type { Static } from '@sinclair/typebox';
import { errors, isoOrNull, jsonParam, listPage, parseInstant, setClause, stamps, unique, type Ctx, type Row } from '../../core/sdk';
import { contrastOnWhite, MIN_CONTRAST } from './image';
import { writePendingOf } from './scan-buffer';
import { LANDING_KEYS, type QrCode, type QrCreate, type QrQuery, type QrUpdate } from './schemas';

type Code = Static<typeof QrCode>;

/** `expired` is not stored: an active code whose expires_at has passed reads as expired. */
export const statusOf = (r: Row, now: Date): Code['status'] =>
  r.status === 'active' && r.expires_at && new Date(r.expires_at) <= now ? 'expired' : r.status;

export function toQrCode(ctx: Pick<Ctx, 'origin' | 'clock' | 'storePath'>, r: Row): Code {
  const base = ctx.origin;
  const max = r.max_scans === null ? null : Number(r.max_scans);
  const total = Number(r.total_scans);
  return {
    object: 'qr_code',
    id: r.id,
    code: r.code,
    type: r.type,
    status: statusOf(r, ctx.clock.now()),
    destination_url: r.destination_url,
    brand_color: r.brand_color,
    logo_url: r.logo_url,
    campaign_name: r.campaign_name,
    expires_at: isoOrNull(r.expires_at),
    max_scans: max,
    total_scans: total,
    remaining: max === null ? null : Math.max(0, max - total),
    expired_message: r.expired_message,
    landing_page: r.landing_page ?? null,
    track_conversions: r.track_conversions,
    image_url: `${base}${ctx.storePath}/qr-codes/${r.code}/image`,
    scan_url: `${base}/s/${r.code}`,
    ...stamps(r),
  };
}

/**
 * The row of a code of this store (archived ones are gone), or 404. Locked for a change, it counts
 * every scan this process answered (those still waiting for their batch are written first).
 */
export async function codeRow(ctx: Pick<Ctx, 'db' | 'store'>, code: string, forUpdate = false): Promise<Row> {
  const read = async () =>
    (
      await ctx.db.query(`SELECT * FROM qr_codes WHERE store_id = $1 AND code = $2 AND archived_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`, [
        ctx.store.id,
        code,
      ])
    )[0];
  const row = await read();
  if (!row) throw errors.notFound(`qr code: '${code}'`, 'code');
  return forUpdate && (await writePendingOf(ctx.db, row.id)) ? await read() : row;
}

/** http(s) only, no user:password@ (it would be shown to whoever scans), at most 2,048 characters. */
export function checkWebUrl(value: string, param: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw errors.validation(`${param} must be an absolute http or https URL.`, param);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.validation(`${param} must be an http or https URL.`, param);
  if (url.username || url.password) throw errors.validation(`${param} must not carry a user name or password.`, param);
  return value;
}

function checkColor(color: string | null | undefined) {
  if (color && contrastOnWhite(color) < MIN_CONTRAST)
    throw errors.validation(
      `brand_color ${color} is too light to scan on the white background (contrast ${contrastOnWhite(color).toFixed(1)}:1, at least ${MIN_CONTRAST}:1 needed).`,
      'brand_color',
    );
}

function checkLanding(page: Record<string, unknown> | null | undefined) {
  for (const k of ['image_url', 'cta_url'] as const) if (typeof page?.[k] === 'string') checkWebUrl(page[k] as string, `landing_page.${k}`);
}

/** The rules every resulting code meets (create, and a code after an update). */
function checkWhole(r: { type: string; destination_url: string | null; landing_page: Record<string, unknown> | null }) {
  if (r.type === 'landing_page') {
    if (!r.landing_page?.title)
      throw errors.validation('A landing_page code needs landing_page with a title.', r.landing_page ? 'landing_page.title' : 'landing_page');
  } else if (!r.destination_url) throw errors.validation(`A ${r.type} code needs a destination_url.`, 'destination_url');
}

const GENERATED = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789';
/** 10 characters from 56 unambiguous ones: ~58 bits, so a collision is not a practical concern. */
export function generateCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return [...bytes].map((b) => GENERATED[b % GENERATED.length]).join('');
}

const duplicate = (code: string) => () =>
  errors.conflict(`The code '${code}' is taken (codes are unique across this server).`, 'duplicate_code', 'code');

export async function createQrCode(ctx: Ctx, input: Static<typeof QrCreate>): Promise<Code> {
  const now = ctx.clock.now();
  const i = input as Record<string, any>;
  if (i.destination_url) checkWebUrl(i.destination_url, 'destination_url');
  if (i.logo_url) checkWebUrl(i.logo_url, 'logo_url');
  checkColor(i.brand_color);
  checkLanding(i.landing_page);
  let expires: Date | null = null;
  if (i.expires_at !== undefined) {
    expires = parseInstant(i.expires_at, 'expires_at');
    if (expires <= now) throw errors.validation('expires_at must be in the future.', 'expires_at');
  }
  const landing = i.landing_page && Object.keys(i.landing_page).length ? i.landing_page : null;
  checkWhole({ type: i.type, destination_url: i.destination_url ?? null, landing_page: landing });
  const code = i.code ?? generateCode();
  const [row] = await unique(
    ctx.db.query(
      `INSERT INTO qr_codes (id, store_id, code, type, destination_url, brand_color, logo_url, campaign_name, expires_at, max_scans,
         expired_message, landing_page, track_conversions, status, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::text::jsonb, $12, 'active', $13, $13) RETURNING *`,
      [
        ctx.store.id,
        code,
        i.type,
        i.destination_url ?? null,
        i.brand_color ?? null,
        i.logo_url ?? null,
        i.campaign_name ?? null,
        expires,
        i.max_scans ?? null,
        i.expired_message ?? null,
        jsonParam(landing),
        i.track_conversions ?? true,
        now,
      ],
    ),
    { qr_codes_code: duplicate(code) },
  );
  const created = toQrCode(ctx, row);
  ctx.emit('qr_code.created', created);
  return created;
}

export const listQrCodes = (ctx: Ctx, input: Static<typeof QrQuery>) => {
  const now = ctx.clock.now();
  // `expired` and `active` are read through expires_at, as statusOf does.
  const statusFilter: Record<string, unknown> =
    input.status === 'expired'
      ? { "status = 'active' AND expires_at <= $": now }
      : input.status === 'active'
        ? { "status = 'active' AND (expires_at IS NULL OR expires_at > $)": now }
        : { 'status = $': input.status };
  return listPage(
    ctx,
    {
      table: 'qr_codes',
      path: '/qr-codes',
      input,
      where: ['archived_at IS NULL'],
      filters: { ...statusFilter, 'type = $': input.type, 'campaign_name = $': input.campaign_name },
    },
    (rows) => rows.map((r) => toQrCode(ctx, r)),
  );
};

export async function updateQrCode(ctx: Ctx, input: Static<typeof QrUpdate>): Promise<Code> {
  const i = input as Record<string, any>;
  const now = ctx.clock.now();
  const row = await codeRow(ctx, i.code, true);
  if (i.destination_url) checkWebUrl(i.destination_url, 'destination_url');
  if (i.logo_url) checkWebUrl(i.logo_url, 'logo_url');
  checkColor(i.brand_color);
  checkLanding(i.landing_page);
  let expires: Date | null | undefined = i.expires_at === null ? null : undefined;
  if (typeof i.expires_at === 'string') expires = parseInstant(i.expires_at, 'expires_at');

  // landing_page merges subfield by subfield: null clears one, null for the whole clears it all.
  let landing: Record<string, unknown> | null | undefined = undefined;
  if (i.landing_page === null) landing = null;
  else if (i.landing_page) {
    const merged: Record<string, unknown> = { ...(row.landing_page ?? {}) };
    for (const k of LANDING_KEYS) if (k in i.landing_page) i.landing_page[k] === null ? delete merged[k] : (merged[k] = i.landing_page[k]);
    landing = Object.keys(merged).length ? merged : null;
  }
  const next = {
    type: row.type,
    destination_url: i.destination_url === undefined ? row.destination_url : i.destination_url,
    landing_page: landing === undefined ? row.landing_page : landing,
  };
  checkWhole(next);

  const maxScans = i.max_scans === undefined ? row.max_scans : i.max_scans;
  const expiresAt = expires === undefined ? row.expires_at : expires;
  const reached = maxScans !== null && Number(row.total_scans) >= Number(maxScans);
  let status = row.status;
  if (i.status === 'active') {
    // SPEC 3.3: deactivated, expired or maxed out -> active, with new limits when needed.
    if (expiresAt && new Date(expiresAt) <= now)
      throw errors.conflict('The code would still be expired: give a future expires_at (or null).', 'conflict_error', 'expires_at');
    if (reached)
      throw errors.conflict(`The code would still be maxed out: give max_scans above ${row.total_scans} (or null).`, 'conflict_error', 'max_scans');
    status = 'active';
  } else if (status === 'active' && reached) status = 'maxed_out';

  // A new logo URL drops the kept logo; the next image fetches the new one.
  const logoChanged = i.logo_url !== undefined && i.logo_url !== row.logo_url;
  const set = setClause(
    {
      destination_url: i.destination_url,
      brand_color: i.brand_color,
      logo_url: i.logo_url,
      logo_base64: logoChanged ? null : undefined,
      campaign_name: i.campaign_name,
      expires_at: expires,
      max_scans: i.max_scans,
      expired_message: i.expired_message,
      landing_page: landing,
      track_conversions: i.track_conversions,
      status,
      updated_at: now,
    },
    { json: ['landing_page'], after: 1 },
  );
  const [updated] = await ctx.db.query(`UPDATE qr_codes SET ${set.sql} WHERE id = $1 RETURNING *`, [row.id, ...set.params]);
  const out = toQrCode(ctx, updated);
  ctx.emit('qr_code.updated', out);
  return out;
}

export async function deactivateQrCode(ctx: Ctx, code: string): Promise<Code> {
  const row = await codeRow(ctx, code, true);
  if (row.status === 'deactivated') return toQrCode(ctx, row);
  const [updated] = await ctx.db.query(`UPDATE qr_codes SET status = 'deactivated', updated_at = $2 WHERE id = $1 RETURNING *`, [
    row.id,
    ctx.clock.now(),
  ]);
  const out = toQrCode(ctx, updated);
  ctx.emit('qr_code.updated', out);
  return out;
}

/** Archived: hidden from the API, and the scan URL answers 404. The code stays taken. */
export async function archiveQrCode(ctx: Ctx, code: string) {
  const row = await codeRow(ctx, code, true);
  await ctx.db.query('UPDATE qr_codes SET archived_at = $2, updated_at = $2 WHERE id = $1', [row.id, ctx.clock.now()]);
  return { id: row.id as string, object: 'qr_code', deleted: true };
}
