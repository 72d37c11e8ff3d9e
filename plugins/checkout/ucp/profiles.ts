/**
 * Agent (platform) profiles: the `UCP-Agent` header names one, svc fetches it through the egress
 * guard and keeps it (overview.md "Profile Requirements"):
 * - https only, no redirects, connect and response timeouts, a size cap; `http://` only when the
 *   operator sets SVC_UCP_ALLOW_INSECURE_PROFILES=1 (development: a loopback address still needs
 *   SVC_EGRESS_ALLOW, like every URL a request supplies);
 * - cached per process in a fixed-size LRU, at least 60 s whatever the origin's Cache-Control says
 *   (and at most an hour); an unknown signing key may force one refresh per origin per 60 s;
 * - failures are the spec's: invalid_profile_url 400, profile_unreachable 424,
 *   profile_malformed 422 (not JSON, or not the profile schema), version_unsupported 422.
 */
import { EgressError, egressFetch } from '../../../core/sdk';
import { ucpFail } from './errors';
import type { Jwk } from './signatures';
import { validateProfile } from './validate';

/** The protocol version this adapter speaks, and the only one it accepts. */
export const UCP_VERSION = '2026-04-08';

export interface Capability {
  version: string;
  spec?: string;
  schema?: string;
  extends?: string | string[];
  config?: Record<string, unknown>;
}

export interface AgentProfile {
  url: string;
  version: string;
  capabilities: Record<string, Capability[]>;
  payment_handlers: Record<string, unknown[]>;
  signing_keys: Jwk[];
  /** The order webhook URL (`dev.ucp.shopping.order` capability config), if the agent takes them. */
  webhook_url?: string;
}

export interface ProfileOptions {
  allowInsecure: boolean;
  now: number;
  timeoutMs?: number;
}

const MIN_TTL_MS = 60_000;
const MAX_TTL_MS = 3_600_000;
const CACHE_SIZE = 500;
const MAX_BYTES = 256 * 1024;

const cache = new Map<string, { profile: AgentProfile; until: number }>();
const lastForced = new Map<string, number>();

/** Parses `UCP-Agent: profile="https://..."` (an RFC 8941 dictionary); the profile URL, checked. */
export function profileUrlOf(header: string | null, allowInsecure: boolean): string {
  if (!header) throw ucpFail('invalid_profile_url', 'The UCP-Agent header is missing: name your profile as UCP-Agent: profile="https://...".');
  const m = /(?:^|,)\s*profile\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(header);
  if (!m) throw ucpFail('invalid_profile_url', 'UCP-Agent has no profile="<url>" member.');
  let url: URL;
  try {
    url = new URL(m[1].replace(/\\(.)/g, '$1'));
  } catch {
    throw ucpFail('invalid_profile_url', 'The UCP-Agent profile is not a URL.');
  }
  if (url.protocol !== 'https:' && !(allowInsecure && url.protocol === 'http:')) {
    throw ucpFail('invalid_profile_url', 'The UCP-Agent profile must be an https URL.');
  }
  if (url.username || url.password) throw ucpFail('invalid_profile_url', 'The UCP-Agent profile URL must not carry credentials.');
  return url.href;
}

function ttlOf(cacheControl: string | null): number {
  const age = Number(/max-age=(\d+)/.exec(cacheControl ?? '')?.[1] ?? 0) * 1000;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, age));
}

function toProfile(url: string, doc: unknown): AgentProfile {
  const checked = validateProfile(doc);
  if (!checked.ok) throw ucpFail('profile_malformed', `The agent profile at ${url} is not a UCP profile: ${checked.error}.`);
  const d = doc as {
    ucp: { version: string; capabilities?: AgentProfile['capabilities']; payment_handlers?: AgentProfile['payment_handlers'] };
    signing_keys?: Jwk[];
  };
  const capabilities = d.ucp.capabilities ?? {};
  const webhook = capabilities['dev.ucp.shopping.order']?.find((c) => typeof c.config?.webhook_url === 'string')?.config?.webhook_url as
    string | undefined;
  return {
    url,
    version: d.ucp.version,
    capabilities,
    payment_handlers: d.ucp.payment_handlers ?? {},
    signing_keys: d.signing_keys ?? [],
    webhook_url: webhook,
  };
}

async function fetchProfile(url: string, opts: ProfileOptions): Promise<{ profile: AgentProfile; ttl: number }> {
  let res;
  try {
    res = await egressFetch(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      httpsOnly: !opts.allowInsecure,
      followRedirects: false,
      timeoutMs: opts.timeoutMs ?? 5_000,
      maxBytes: MAX_BYTES,
      purpose: 'UCP agent profile',
    });
  } catch (err) {
    const why = err instanceof EgressError ? err.message : 'the request failed';
    throw ucpFail('profile_unreachable', `Unable to fetch the agent profile ${url}: ${why}`);
  }
  if (res.status < 200 || res.status >= 300) {
    const what = res.status >= 300 && res.status < 400 ? 'a redirect (profiles must not redirect)' : `HTTP ${res.status}`;
    throw ucpFail('profile_unreachable', `Unable to fetch the agent profile ${url}: it answered ${what}.`);
  }
  if (res.truncated) throw ucpFail('profile_malformed', `The agent profile at ${url} is over ${MAX_BYTES} bytes.`);
  let doc: unknown;
  try {
    doc = JSON.parse(res.text());
  } catch {
    throw ucpFail('profile_malformed', `The agent profile at ${url} is not valid JSON.`);
  }
  return { profile: toProfile(url, doc), ttl: ttlOf(res.headers.get('cache-control')) };
}

/** The agent's profile, from the cache or fetched; its version checked against this adapter's. */
export async function agentProfile(url: string, opts: ProfileOptions & { refresh?: boolean }): Promise<AgentProfile> {
  const hit = cache.get(url);
  let profile: AgentProfile;
  if (hit && hit.until > opts.now && !opts.refresh) {
    // LRU: a hit moves to the end of the insertion order.
    cache.delete(url);
    cache.set(url, hit);
    profile = hit.profile;
  } else {
    const fetched = await fetchProfile(url, opts);
    profile = fetched.profile;
    cache.delete(url);
    cache.set(url, { profile, until: opts.now + fetched.ttl });
    while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  if (profile.version !== UCP_VERSION) {
    throw ucpFail('version_unsupported', `Protocol version ${profile.version} is not supported. This business supports version ${UCP_VERSION}.`);
  }
  return profile;
}

/**
 * A key of the agent's profile by kid; on a miss, the profile is fetched again at most once per
 * origin per 60 s (overview.md "Fetching", rule 6), for an agent that just rotated its keys.
 */
export async function agentKey(profile: AgentProfile, kid: string, opts: ProfileOptions): Promise<Jwk | undefined> {
  const found = profile.signing_keys.find((k) => k.kid === kid);
  if (found) return found;
  const origin = new URL(profile.url).origin;
  if ((lastForced.get(origin) ?? -Infinity) + MIN_TTL_MS > opts.now) return undefined;
  lastForced.set(origin, opts.now);
  const fresh = await agentProfile(profile.url, { ...opts, refresh: true });
  return fresh.signing_keys.find((k) => k.kid === kid);
}

/** Tests: forget cached profiles. */
export function clearProfileCache(): void {
  cache.clear();
  lastForced.clear();
}
