import type { Ctx, Db, Row } from '../../core/sdk';
import { agentOf, cityOf, fingerprint } from './client';
import type { QrCtx } from './config';
import { expiredPage, landingPage, notFoundPage } from './pages';
import { recordScan, settleScan } from './scan-buffer';
import { CODE_PATTERN } from './schemas';

/**
 * GET /s/{code}: the public scan. The code is read first; then
 * - without max_scans, the scan is answered at once and recorded a few milliseconds later with
 *   the others of that moment (scan-buffer.ts);
 * - with max_scans, the scan is claimed in one SQL statement: the UPDATE claims it only while the
 *   code is active, unexpired and under max_scans (PostgreSQL re-checks that WHERE on the row's
 *   latest version when concurrent scans queue on its lock, so exactly max_scans scans get
 *   through); from its RETURNING the scan is recorded, its device remembered (the first scan of a
 *   device is a unique scan) and the day's counters raised.
 */

const CODE = new RegExp(CODE_PATTERN);

const CLAIM = `
WITH hit AS (
  UPDATE qr_codes SET total_scans = total_scans + 1,
    status = CASE WHEN max_scans IS NOT NULL AND total_scans + 1 >= max_scans THEN 'maxed_out' ELSE status END
  WHERE code = $1 AND archived_at IS NULL AND status = 'active'
    AND (expires_at IS NULL OR expires_at > $2) AND (max_scans IS NULL OR total_scans < max_scans)
  RETURNING id, store_id, type, destination_url, landing_page, track_conversions
), scan AS (
  INSERT INTO qr_scans (id, store_id, code_id, scanned_at, device, city, fingerprint)
  SELECT gen_random_uuid(), store_id, id, $2, $3, $4, $5 FROM hit RETURNING id
), device AS (
  INSERT INTO qr_scan_devices (store_id, code_id, fingerprint) SELECT store_id, id, $5 FROM hit
  ON CONFLICT DO NOTHING RETURNING 1
), day AS (
  INSERT INTO qr_scan_days AS d (store_id, code_id, day, device, city, scans, unique_scans)
  SELECT store_id, id, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3, $4, 1, (SELECT count(*) FROM device) FROM hit
  ON CONFLICT (code_id, day, device, city) DO UPDATE SET scans = d.scans + 1, unique_scans = d.unique_scans + EXCLUDED.unique_scans
), relaxed AS (
  -- This statement's own transaction commits without waiting for the WAL flush: the code's row
  -- lock is not held across an fsync, so scans of one popular capped code do not queue behind
  -- disk writes. The price: a crash of the database server may forget the last fraction of a
  -- second of these scans (batched scans of uncapped codes commit durably).
  SELECT set_config('synchronous_commit', 'off', true)
)
SELECT hit.*, scan.id AS scan_id FROM hit, scan, relaxed`;

// What a scan needs of its code (not logo_base64, which can be hundreds of kilobytes).
const READ = `SELECT id, store_id, type, status, destination_url, landing_page, track_conversions, expires_at, max_scans, total_scans, expired_message
FROM qr_codes WHERE code = $1 AND archived_at IS NULL`;

let keyCache: { db: Db; key: string } | undefined;
/** The instance's fingerprint key (migration 001 made it), read once per process. */
async function fingerprintKey(db: Db): Promise<string> {
  if (keyCache?.db === db) return keyCache.key;
  const [row] = await db.query<{ key: string }>('SELECT key FROM qr_fingerprint_key WHERE id = 1');
  keyCache = { db, key: row.key };
  return row.key;
}

/**
 * A destination as the text before and after the scan id once svc_scan is set, worked out once
 * per destination (URL parsing is most of a redirect's own cost) and kept for the next scans. A
 * scan id is a UUID, which the URL's query serialization leaves as it is, so the result is the
 * same as setting the parameter on each scan.
 */
const SPLICE = '00000000-0000-4000-8000-000000000000';
const splices = new Map<string, [string, string]>();
const SPLICES_KEPT = 5000;

/** The destination with svc_scan=<scan id>, so an order placed after it names the scan. */
export function withScanId(destination: string, scanId: string | null): string {
  if (!scanId) return destination;
  let parts = splices.get(destination);
  if (!parts) {
    const url = new URL(destination);
    url.searchParams.set('svc_scan', SPLICE);
    const text = url.toString();
    const at = text.lastIndexOf(SPLICE);
    parts = [text.slice(0, at), text.slice(at + SPLICE.length)];
    if (splices.size >= SPLICES_KEPT) splices.clear();
    splices.set(destination, parts);
  }
  return parts[0] + scanId + parts[1];
}

const redirect = (to: string) =>
  new Response(null, { status: 302, headers: { Location: to, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } });

function answer(code: string, row: Row, scanId: string | null): Response {
  if (row.type === 'landing_page') {
    const page = row.landing_page ?? {};
    const cta = page.cta_url ? `/s/${encodeURIComponent(code)}/cta${scanId ? `?scan=${scanId}` : ''}` : null;
    return landingPage(page, cta);
  }
  return redirect(withScanId(row.destination_url, row.track_conversions ? scanId : null));
}

/** The code as it is (archived ones are gone). */
const current = async (db: Db, code: string) => (await db.query(READ, [code]))[0] as Row | undefined;

const usable = (r: Row, now: Date) =>
  r.status === 'active' && (!r.expires_at || new Date(r.expires_at) > now) && (r.max_scans === null || r.total_scans < r.max_scans);

export async function scan(ctx: QrCtx, code: string): Promise<Response> {
  if (!CODE.test(code)) return notFoundPage();
  const request = ctx.http?.request;
  const userAgent = request?.headers.get('user-agent') ?? '';
  const now = ctx.clock.now();
  const row = await current(ctx.db, code);
  if (!row) return notFoundPage();
  const refused = () => expiredPage(row.expired_message, row.landing_page);
  // HEAD requests, link previews and crawlers see what a person would, but are not counted.
  const agent = agentOf(userAgent);
  if (request?.method === 'HEAD' || agent.crawler) return usable(row, now) ? answer(code, row, null) : refused();
  if (!usable(row, now)) return refused();
  const ip = ctx.http?.clientIp;
  const print = fingerprint(await fingerprintKey(ctx.db), ip, userAgent);
  if (row.max_scans !== null) {
    const [hit] = await ctx.db.query(CLAIM, [code, now, agent.device, cityOf(ctx, ip), print]);
    return hit ? answer(code, hit, hit.scan_id) : refused();
  }
  // Uncapped: nothing to claim, so the scan is answered now and written with the next batch.
  const scanId = crypto.randomUUID();
  const late = recordScan(
    ctx.db,
    {
      id: scanId,
      store_id: row.store_id,
      code_id: row.id,
      scanned_at: now.toISOString(),
      device: agent.device,
      // A NUL (only an odd mmdb file could hold one) would make the whole batch unwritable.
      city: cityOf(ctx, ip).replaceAll('\u0000', ''),
      fingerprint: print,
    },
    ctx.log,
    ctx.config.scan_flush_ms,
  );
  if (late) await late;
  return answer(code, row, scanId);
}

/**
 * The landing page's call-to-action: the scan it came from is marked converted (once), then the
 * visitor goes on to cta_url. An unknown or foreign scan id converts nothing but still goes on.
 */
export async function followCta(ctx: Ctx, code: string, scanId: string | undefined): Promise<Response> {
  if (!CODE.test(code)) return notFoundPage();
  const row = await current(ctx.db, code);
  const cta = row?.type === 'landing_page' ? row.landing_page?.cta_url : undefined;
  if (!row || !cta) return notFoundPage();
  const valid = scanId && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(scanId);
  const request = ctx.http?.request;
  const counted = valid && request?.method !== 'HEAD' && !agentOf(request?.headers.get('user-agent') ?? '').crawler;
  // The first follow converts the scan, and its day's counter with it (a scan still waiting for its
  // batch is written first).
  if (counted) {
    await settleScan(ctx.db, scanId!.toLowerCase());
    await ctx.db.query(
      `WITH conv AS (
         UPDATE qr_scans SET converted_at = $3 WHERE id = $1 AND code_id = $2 AND converted_at IS NULL
         RETURNING code_id, (scanned_at AT TIME ZONE 'UTC')::date AS day, device, city
       )
       UPDATE qr_scan_days d SET conversions = d.conversions + 1 FROM conv
       WHERE d.code_id = conv.code_id AND d.day = conv.day AND d.device = conv.device AND d.city = conv.city`,
      [scanId, row.id, ctx.clock.now()],
    );
  }
  return redirect(withScanId(cta, row.track_conversions && valid ? scanId! : null));
}
