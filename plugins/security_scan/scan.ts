import { connect, type PeerCertificate } from 'node:tls';
import { EgressError, egressFetch, type Ctx } from '../../core/sdk';
import { judgeHeaders, type HeaderCheck, type Severity } from './headers';

const TIMEOUT_MS = 10_000;
const UA = { 'user-agent': 'svc-security-scan/1' };
/** Files a site must not serve; each answers 200 with content that looks like the real thing. */
const EXPOSURES: { path: string; plausible: (body: Uint8Array, text: string) => boolean; why: string }[] = [
  {
    path: '/.git/HEAD',
    plausible: (_, t) => /^(ref: refs\/|[0-9a-f]{40}\s*$)/.test(t),
    why: 'the Git repository (source and history) can be downloaded',
  },
  {
    path: '/.env',
    plausible: (_, t) => /^\s*[A-Z_][A-Z0-9_]*\s*=/m.test(t) && !/<html/i.test(t),
    why: 'environment settings, often secrets, are readable',
  },
  {
    path: '/.DS_Store',
    plausible: (b) => b.length >= 8 && b[4] === 0x42 && b[5] === 0x75 && b[6] === 0x64 && b[7] === 0x31,
    why: 'a directory listing leaks file names',
  },
  {
    path: '/server-status',
    plausible: (_, t) => /Apache Server Status|Server uptime/i.test(t),
    why: 'Apache’s status page shows live requests and clients',
  },
];

export interface Finding {
  id: string;
  severity: Severity;
  title: string;
  remediation: string;
}

export async function fetchHeaders(ctx: Ctx, url: string) {
  const res = await egressFetch(url, { timeoutMs: TIMEOUT_MS, maxBytes: 64 * 1024, purpose: 'scan', headers: UA, signal: ctx.shutdown });
  const headers = judgeHeaders(res.headers, res.url.startsWith('https:'));
  return { res, headers, missing: headers.filter((h) => !h.present && h.severity !== 'info').map((h) => h.name) };
}

export interface Tls {
  version: string | null;
  trusted: boolean;
  error: string | null;
  valid_to: string | null;
  days_left: number | null;
  chain: { subject: string; issuer: string; valid_to: string }[];
}

/**
 * The TLS handshake, made to the address the egress guard already checked (never resolved again),
 * with the URL's name for SNI and verification; an untrusted chain is reported, not refused.
 */
export function probeTls(host: string, address: string, port: number, now: Date): Promise<Tls> {
  return new Promise((resolve, reject) => {
    const sock = connect({
      host: address,
      port,
      servername: /^[\d.]+$|:/.test(host) ? undefined : host,
      rejectUnauthorized: false,
      timeout: TIMEOUT_MS,
    });
    sock.once('secureConnect', () => {
      const chain: Tls['chain'] = [];
      let c: PeerCertificate | undefined = sock.getPeerCertificate(true);
      const seen = new Set<string>();
      while (c && c.fingerprint256 && !seen.has(c.fingerprint256) && chain.length < 10) {
        seen.add(c.fingerprint256);
        chain.push({ subject: name(c.subject), issuer: name(c.issuer), valid_to: new Date(c.valid_to).toISOString() });
        c = (c as PeerCertificate & { issuerCertificate?: PeerCertificate }).issuerCertificate;
      }
      const validTo = chain[0]?.valid_to ?? null;
      const err = sock.authorizationError ? String(sock.authorizationError) : null;
      resolve({
        version: sock.getProtocol() ?? null,
        trusted: sock.authorized,
        error: err,
        valid_to: validTo,
        days_left: validTo ? Math.floor((Date.parse(validTo) - now.getTime()) / 86_400_000) : null,
        chain,
      });
      sock.end();
    });
    sock.once('timeout', () => (sock.destroy(), reject(new Error('TLS handshake timed out'))));
    sock.once('error', reject);
  });
}

const name = (s: unknown) => {
  const o = (s ?? {}) as Record<string, string>;
  return o.CN ?? Object.values(o).join(', ');
};

export interface Cookie {
  name: string;
  secure: boolean;
  http_only: boolean;
  same_site: string | null;
}

export function cookies(h: Headers): Cookie[] {
  return h.getSetCookie().map((line) => {
    const [pair, ...attrs] = line.split(';').map((p) => p.trim());
    const flags = attrs.map((a) => a.toLowerCase());
    const ss = flags.find((a) => a.startsWith('samesite='));
    return {
      name: pair.split('=')[0],
      secure: flags.includes('secure'),
      http_only: flags.includes('httponly'),
      same_site: ss ? attrs[flags.indexOf(ss)].split('=')[1] : null,
    };
  });
}

/** Whether the http:// form of the site sends visitors on to https (the first hop only). */
export async function redirectsToHttps(ctx: Ctx, url: URL): Promise<boolean | null> {
  const plain = new URL(url.href);
  plain.protocol = 'http:';
  if (url.protocol === 'https:') plain.port = '';
  try {
    const res = await egressFetch(plain.href, {
      timeoutMs: TIMEOUT_MS,
      maxBytes: 1024,
      followRedirects: false,
      purpose: 'scan',
      headers: UA,
      signal: ctx.shutdown,
    });
    const loc = res.headers.get('location');
    return res.status >= 300 && res.status < 400 && !!loc && new URL(loc, plain).protocol === 'https:';
  } catch (e) {
    if (e instanceof EgressError && e.code === 'egress_failed') return null; // nothing listens on http
    throw e;
  }
}

/** The exposed files: only the path and status are kept, never a byte of what was served. */
export async function exposures(ctx: Ctx, origin: string) {
  return Promise.all(
    EXPOSURES.map(async (x) => {
      try {
        const res = await egressFetch(origin + x.path, {
          timeoutMs: TIMEOUT_MS,
          maxBytes: 4096,
          followRedirects: false,
          purpose: 'scan',
          headers: UA,
          signal: ctx.shutdown,
        });
        return { path: x.path, status: res.status, exposed: res.status === 200 && x.plausible(res.body, res.text()), why: x.why };
      } catch (e) {
        if (e instanceof EgressError && e.code !== 'egress_blocked') return { path: x.path, status: null, exposed: false, why: x.why };
        throw e;
      }
    }),
  );
}

export type { HeaderCheck };
