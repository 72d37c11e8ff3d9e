import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import Bowser from 'bowser';
import type { Reader, CityResponse } from 'maxmind';
import { lazy, type Ctx } from '../../core/sdk';
import type { QrCtx } from './config';

/** Who scanned: device, city and a keyed fingerprint, from the request alone. Raw IPs are never kept. */

// Link-preview fetchers and crawlers bowser does not name as bots (it knows Google, Bing, Slack, Facebook...).
const PREVIEWERS =
  /bot\b|bot\/|crawl|spider|slurp|preview|facebookexternalhit|whatsapp|telegram|embedly|skypeuripreview|vkshare|pinterest|redditbot|linkedin|discord|outbrain|nuzzel|google-?(?:read-aloud|site-verification)|headlesschrome/i;

interface Agent {
  crawler: boolean;
  device: 'iOS' | 'Android' | 'Desktop';
}

const agents = new Map<string, Agent>();
const AGENTS_KEPT = 2000;

/**
 * A User-Agent read once: a crawler or link previewer (not counted), and the device, iOS, Android
 * or Desktop (SPEC 2.9; neither phone OS counts as Desktop). The same few agents scan over and
 * over, so answers are kept (parsing is ~50 µs).
 */
export function agentOf(userAgent: string): Agent {
  // No User-Agent at all is some script, not a known crawler: counted (as Desktop), so caps hold.
  if (!userAgent) return { crawler: false, device: 'Desktop' };
  const known = agents.get(userAgent);
  if (known) return known;
  const parsed = Bowser.parse(userAgent);
  const os = parsed.os?.name;
  const agent: Agent = {
    crawler: PREVIEWERS.test(userAgent) || parsed.platform?.type === 'bot',
    device: os === 'iOS' || os === 'iPadOS' ? 'iOS' : os === 'Android' ? 'Android' : 'Desktop',
  };
  if (agents.size >= AGENTS_KEPT) agents.clear();
  agents.set(userAgent, agent);
  return agent;
}

// Loaded with the first geo-IP database (docs/footprint.md: libraries load on first use).
const maxmindReader = lazy(() => (require('maxmind') as { Reader: typeof Reader }).Reader);
const readers = new Map<string, Reader<CityResponse> | null>();
/**
 * The geo-IP database, opened once per process (the file is read whole and kept in memory). One
 * that cannot be read is logged once and cities count as unknown: a scan never fails for it.
 */
function geoReader(path: string, log: Ctx['log']): Reader<CityResponse> | null {
  let reader = readers.get(path);
  if (reader === undefined) {
    try {
      reader = new (maxmindReader())<CityResponse>(readFileSync(path));
    } catch (e) {
      log.error('SVC_GEOIP_DB cannot be read as a MaxMind database: cities count as unknown', { path, error: String(e) });
      reader = null;
    }
    readers.set(path, reader);
  }
  return reader;
}

/** The city of an address, or `unknown` (no database, a private address, no city): never invented. */
export function cityOf(ctx: Pick<QrCtx, 'config' | 'log'>, ip: string | undefined): string {
  const path = ctx.config.geoip_db;
  if (!path || !ip || !isIP(ip)) return 'unknown';
  return geoReader(path, ctx.log)?.get(ip)?.city?.names?.en ?? 'unknown';
}

/**
 * A device fingerprint: the first 64 bits of HMAC-SHA256(key, address + User-Agent), as a signed
 * bigint string. Keyed, so the stored value cannot be reversed to an address by trying them all.
 */
export function fingerprint(key: string, ip: string | undefined, userAgent: string): string {
  // Bun's own HMAC: the same bytes as node:crypto's createHmac, in about half the time.
  const mac = new Bun.CryptoHasher('sha256', key);
  mac.update(`${ip ?? ''}\n${userAgent}`);
  return mac.digest().readBigInt64BE(0).toString();
}
