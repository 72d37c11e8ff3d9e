/**
 * Egress policy: which URLs and addresses a server-side request may reach.
 * Pure checks (no I/O) so registration-time validation and the fetch path share them.
 */
import { invalid, registerErrors, SvcError } from '../errors';
import { blockReason, formatIp, inCidr, parseCidr, parseIp, type BlockReason, type Cidr, type IpBytes } from './ip';

export type EgressCode = 'egress_blocked' | 'egress_invalid_url' | 'egress_timeout' | 'egress_failed';

/**
 * Refusals are 400s (the URL is the caller's mistake and retrying will not help);
 * timeouts and network failures are 5xx so SvcError.retryable lets webhook delivery
 * retry them (SPEC 6.1 rule 1-2).
 */
registerErrors('core/net', {
  egress_blocked: invalid('The URL points at an address outbound requests may not reach (private, loopback, metadata).'),
  egress_invalid_url: invalid('The URL is not a valid http(s) URL.'),
  egress_timeout: { status: 504, type: 'api_error', description: 'The outside server did not answer in time.' },
  egress_failed: { status: 502, type: 'api_error', description: 'The outside server could not be reached.' },
});

export class EgressError extends SvcError {
  constructor(
    readonly code: EgressCode,
    message: string,
    /** The host name of the URL concerned, when known. */
    readonly host: string | null = null,
    /** The refused (or failing) address, when known. */
    readonly address: string | null = null,
    options?: { cause?: unknown },
  ) {
    super(code, message, code === 'egress_failed' || code === 'egress_timeout' ? null : 'url');
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

export interface AllowList {
  cidrs: Cidr[];
  /** Lower-case host names without trailing dot; such a host may resolve to anything. */
  hosts: Set<string>;
}

export function normalizeHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/**
 * Parses SVC_EGRESS_ALLOW-style entries: host names, IP addresses and CIDRs.
 * Throws on a malformed entry: a typo must not silently leave the guard stricter or
 * looser than the operator meant (call it at startup to fail fast).
 */
export function parseAllowList(entries: string | readonly string[]): AllowList {
  const list = typeof entries === 'string' ? entries.split(',') : entries;
  const out: AllowList = { cidrs: [], hosts: new Set() };
  for (const raw of list) {
    const e = raw.trim();
    if (!e) continue;
    // Anything that looks numeric or has ':' / '/' must be an address or CIDR, so that
    // "10.0.0.300" or "10.0.0.0/33" is an error and not a host name nobody will use.
    if (/^[0-9.]+$/.test(e) || /[:/[\]]/.test(e)) {
      const c = parseCidr(e.replace(/^\[(.*)\]/, '$1'));
      if (!c) throw new Error(`Invalid SVC_EGRESS_ALLOW entry '${e}': expected an IP address or CIDR.`);
      out.cidrs.push(c);
    } else if (/^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?\.?$/i.test(e)) {
      out.hosts.add(normalizeHost(e));
    } else {
      throw new Error(`Invalid SVC_EGRESS_ALLOW entry '${e}': expected a host name, an IP address or a CIDR.`);
    }
  }
  return out;
}

let envCache: { raw: string; list: AllowList } | null = null;

/** The allow list for a request: the explicit option if given, else SVC_EGRESS_ALLOW (read per call, parsed once per value). */
export function resolveAllow(allow: readonly string[] | AllowList | undefined): AllowList {
  if (allow && 'cidrs' in allow) return allow;
  if (allow) return parseAllowList(allow);
  const raw = process.env.SVC_EGRESS_ALLOW ?? '';
  if (envCache?.raw !== raw) envCache = { raw, list: parseAllowList(raw) };
  return envCache.list;
}

function article(reason: BlockReason): string {
  return /^(a|e|i|o|unspec)/.test(reason) ? 'an' : 'a';
}

/**
 * Returns the canonical address text if `addrText` may be contacted for `host`,
 * else throws egress_blocked. An unparsable address is refused (fail closed).
 */
export function checkAddress(host: string, addrText: string, allow: AllowList, what: string): string {
  const h = normalizeHost(host);
  const bytes: IpBytes | null = parseIp(addrText);
  if (!bytes) {
    throw new EgressError('egress_blocked', `${what} ${h} resolves to '${addrText}', which is not a usable IP address.`, h, addrText);
  }
  const addr = formatIp(bytes);
  if (allow.hosts.has(h)) return addr;
  const reason = blockReason(bytes);
  if (!reason || allow.cidrs.some((c) => inCidr(bytes, c))) return addr;
  const literal = parseIp(h) !== null;
  const where = literal ? `${what} ${addr} is` : `${what} ${h} resolves to ${addr},`;
  throw new EgressError('egress_blocked', `${where} ${article(reason)} ${reason} address; allow it with SVC_EGRESS_ALLOW.`, h, addr);
}

export interface CheckUrlOptions {
  /** Refuse http: (outbound webhooks must be HTTPS, SPEC 6.1 rule 4). */
  httpsOnly?: boolean;
  allow?: readonly string[] | AllowList;
  /** Names the URL in messages: 'webhook' gives "webhook URL ...". */
  purpose?: string;
}

export function describe(purpose: string | undefined): string {
  return purpose ? `${purpose} URL` : 'URL';
}

/**
 * Validates a user-supplied URL without any network access (e.g. at registration):
 * http(s) only, no userinfo, and an IP-literal host must be allowed. Host names are
 * only resolved when the request is made, since DNS answers change.
 */
export function checkUrl(url: string | URL, opts: CheckUrlOptions = {}): URL {
  const what = describe(opts.purpose);
  let u: URL;
  try {
    u = new URL(String(url));
  } catch {
    throw new EgressError('egress_invalid_url', `${what} is not a valid absolute URL.`);
  }
  const ok = opts.httpsOnly ? ['https:'] : ['http:', 'https:'];
  if (!ok.includes(u.protocol)) {
    throw new EgressError(
      'egress_invalid_url',
      `${what} must use ${opts.httpsOnly ? 'https' : 'http or https'}, not ${u.protocol.slice(0, -1)}.`,
      u.hostname,
    );
  }
  // Credentials in the URL would be sent as Basic auth and end up in logs; ask for headers instead.
  if (u.username || u.password) {
    throw new EgressError('egress_invalid_url', `${what} must not contain a user name or password.`, u.hostname);
  }
  if (!u.hostname) throw new EgressError('egress_invalid_url', `${what} has no host.`);
  // WHATWG URL already normalized odd IPv4 spellings (0x7f.1, 2130706433) to dotted quads.
  if (parseIp(u.hostname)) checkAddress(u.hostname, u.hostname, resolveAllow(opts.allow), `${what} host`);
  return u;
}
