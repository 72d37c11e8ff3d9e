import { ConfigError } from '../config';
import { errors } from '../errors';
import { formatIp, inCidr, parseCidr, parseIp, type Cidr } from './ip';

/**
 * The facts about this server that every request and every plugin shares, decided once here
 * (never per plugin): its public origin, and which peers are proxies whose X-Forwarded-For is
 * believed for the client's address.
 */
export interface Site {
  /** SVC_PUBLIC_URL without its trailing slash: the origin links, issuers and audiences use. */
  publicUrl?: string;
  /** SVC_TRUST_PROXY=true: the peer is a trusted proxy, whatever its address. */
  trustProxy: boolean;
  /** SVC_TRUSTED_PROXIES: addresses or CIDRs of the proxies in front of svc. */
  trustedProxies: Cidr[];
  /** SVC_SIGNED_URL_TTL_S: how long a signed link (a raw answer offered to a tool caller) works. */
  signedUrlTtlS: number;
}

const DEFAULT_SIGNED_URL_TTL_S = 900;

/** The site settings from the environment; a bad value stops boot naming the variable. */
export function readSite(env: Record<string, string | undefined>): Site {
  const publicUrl = env.SVC_PUBLIC_URL?.trim() || undefined;
  if (publicUrl && !/^https?:\/\/[^/\s]+/i.test(publicUrl))
    throw new ConfigError(`Invalid SVC_PUBLIC_URL '${publicUrl}': expected the server's public origin, like https://svc.example.com.`);
  const trustedProxies: Cidr[] = [];
  for (const entry of (env.SVC_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const cidr = parseCidr(entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`);
    if (!cidr) throw new ConfigError(`Invalid SVC_TRUSTED_PROXIES: '${entry}' is not an IP address or CIDR.`);
    trustedProxies.push(cidr);
  }
  const ttlText = env.SVC_SIGNED_URL_TTL_S?.trim() || String(DEFAULT_SIGNED_URL_TTL_S);
  const ttl = Number(ttlText);
  if (!/^\d+$/.test(ttlText) || ttl < 1 || ttl > 7 * 86_400)
    throw new ConfigError(`Invalid SVC_SIGNED_URL_TTL_S '${ttlText}': expected whole seconds, from 1 to 604800.`);
  const trustProxy = env.SVC_TRUST_PROXY === 'true' || env.SVC_TRUST_PROXY === '1';
  return { publicUrl: publicUrl?.replace(/\/+$/, ''), trustProxy, trustedProxies, signedUrlTtlS: ttl };
}

const isTrustedProxy = (site: Site, ip: string | undefined): boolean => {
  const bytes = ip ? parseIp(ip) : null;
  return !!bytes && site.trustedProxies.some((c) => inCidr(bytes, c));
};

/** Whether the peer is a proxy of ours: its forwarding headers are then believed. */
const peerTrusted = (site: Site, peer: string | undefined) => site.trustProxy || isTrustedProxy(site, peer);

/**
 * The client's address: the peer, unless the peer is a trusted proxy; then the rightmost
 * X-Forwarded-For entry that is not itself a trusted proxy. Each proxy appends the address it
 * saw, so entries to the left of the last untrusted one were written by the client and prove
 * nothing (a client that writes `X-Forwarded-For: 1.2.3.4` must not become 1.2.3.4).
 */
export function clientIpOf(site: Site, request: Request, peer: string | undefined): string | undefined {
  const direct = peer ? canonical(peer) : undefined;
  if (!peerTrusted(site, peer)) return direct;
  const hops = (request.headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (isTrustedProxy(site, hops[i])) continue;
    // Not an address (a proxy that writes `unknown`): the last hop we can vouch for is the peer.
    return parseIp(hops[i]) ? canonical(hops[i]) : direct;
  }
  // Every hop is a proxy of ours: the leftmost is the nearest thing to the client.
  return hops.length ? canonical(hops[0]) : direct;
}

const canonical = (ip: string) => {
  const b = parseIp(ip);
  return b ? formatIp(b) : ip;
};

/**
 * This server's public origin for one request: SVC_PUBLIC_URL when set, else the scheme and Host
 * the request came with (the scheme a trusted proxy names in X-Forwarded-Proto).
 */
export function requestOrigin(site: Site, request: Request, peer?: string): string {
  if (site.publicUrl) return site.publicUrl;
  // Asked on every MCP call: the URL is parsed only when the request has no Host header.
  const host = request.headers.get('host') ?? new URL(request.url).host;
  const forwarded = peerTrusted(site, peer) ? request.headers.get('x-forwarded-proto')?.split(',')[0].trim() : undefined;
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : request.url.slice(0, request.url.indexOf(':')).toLowerCase();
  return `${scheme}://${host}`;
}

/**
 * The origin outside any request (a job, stdio): SVC_PUBLIC_URL, or 400 `provider_not_configured`
 * naming it (its status is the error table's).
 */
export function configuredOrigin(site: Site): string {
  if (site.publicUrl) return site.publicUrl;
  throw errors.notConfigured('SVC_PUBLIC_URL', "this needs the server's public URL (e.g. https://svc.example.com) and no request names it");
}

/**
 * A request's `ctx.http`: its origin and client address, each worked out on first read (most
 * handlers read neither) and kept. `peer`: the server's socket address, asked only then too.
 */
export function requestFacts(site: Site, request: Request, peer?: () => string | undefined) {
  let origin: string | undefined;
  let clientIp: string | undefined;
  let ipKnown = false;
  return {
    request,
    get origin() {
      return (origin ??= requestOrigin(site, request, peer?.()));
    },
    get clientIp() {
      if (!ipKnown) {
        clientIp = clientIpOf(site, request, peer?.());
        ipKnown = true;
      }
      return clientIp;
    },
  };
}
