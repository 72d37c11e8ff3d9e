import { Type } from '@sinclair/typebox';
import { action, definePlugin, EgressError, Input, noExample, type Ctx } from '../../core/sdk';
import { cookies, exposures, fetchHeaders, probeTls, redirectsToHttps, type Finding, type Tls } from './scan';
import type { Severity } from './headers';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'An http(s) URL; private and loopback addresses are refused.' });
const Sev = Type.Union(['critical', 'high', 'medium', 'low', 'info'].map((s) => Type.Literal(s)));
const HeaderOut = Type.Object({
  name: Type.String(),
  present: Type.Boolean(),
  value: Type.Union([Type.String(), Type.Null()]),
  severity: Sev,
  remediation: Type.Union([Type.String(), Type.Null()]),
});
const HeadersOut = {
  url: Type.String({ description: 'After redirects.' }),
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'Null when the page could not be read (see tls.error).' }),
  headers: Type.Array(HeaderOut),
  missing: Type.Array(Type.String()),
};
const FindingOut = Type.Object({ id: Type.String(), severity: Sev, title: Type.String(), remediation: Type.String() });
const ScanOut = Type.Object({
  object: Type.Literal('security_scan'),
  ...HeadersOut,
  tls: Type.Union([
    Type.Null(),
    Type.Object({
      version: Type.Union([Type.String(), Type.Null()]),
      trusted: Type.Boolean(),
      error: Type.Union([Type.String(), Type.Null()]),
      valid_to: Type.Union([Type.String(), Type.Null()]),
      days_left: Type.Union([Type.Integer(), Type.Null()]),
      chain: Type.Array(Type.Object({ subject: Type.String(), issuer: Type.String(), valid_to: Type.String() })),
    }),
  ]),
  https_redirect: Type.Union([Type.Boolean(), Type.Null()], {
    description: 'Whether http:// answers with a redirect to https://; null if nothing answers on http.',
  }),
  cookies: Type.Array(
    Type.Object({ name: Type.String(), secure: Type.Boolean(), http_only: Type.Boolean(), same_site: Type.Union([Type.String(), Type.Null()]) }),
  ),
  exposures: Type.Array(Type.Object({ path: Type.String(), status: Type.Union([Type.Integer(), Type.Null()]), exposed: Type.Boolean() })),
  findings: Type.Array(FindingOut),
});
const noNet = noExample('scans a site outside svc, which the egress guard refuses on loopback in the sweeps; security_scan.test.ts covers it');

const TLS_FAILURE = /TLS certificate not trusted/;

/** The whole scan: headers, TLS, the https redirect, cookies and exposed files, then the findings. */
async function scan(ctx: Ctx, url: string) {
  let page: Awaited<ReturnType<typeof fetchHeaders>> | null = null;
  let address: string | null = null;
  try {
    page = await fetchHeaders(ctx, url);
    address = page.res.remoteAddress;
  } catch (e) {
    // An untrusted certificate is a finding of the scan, not a failure of it.
    if (!(e instanceof EgressError && TLS_FAILURE.test(e.message) && e.address)) throw e;
    address = e.address;
  }
  const u = new URL(page?.res.url ?? url);
  let tls: Tls | null = null;
  if (u.protocol === 'https:' && address) tls = await probeTls(u.hostname, address, Number(u.port || 443), ctx.clock.now()).catch(() => null);
  const [https_redirect, exposed] = await Promise.all([redirectsToHttps(ctx, u), exposures(ctx, u.origin)]);
  const jar = page ? cookies(page.res.headers) : [];
  const findings: Finding[] = [];
  for (const h of page?.headers ?? [])
    if (h.remediation)
      findings.push({
        id: `header:${h.name}`,
        severity: h.severity,
        title: `${h.name} ${h.present ? 'is weak' : 'is missing'}`,
        remediation: h.remediation,
      });
  if (u.protocol === 'http:' && !https_redirect)
    findings.push({
      id: 'https',
      severity: 'high',
      title: 'The site is served over plain http without a redirect to https',
      remediation: 'Serve the site over HTTPS and redirect every http request to it (301).',
    });
  if (u.protocol === 'https:' && https_redirect === false)
    findings.push({
      id: 'https_redirect',
      severity: 'medium',
      title: 'http:// does not redirect to https://',
      remediation: 'Answer every http request with a 301 to the https URL.',
    });
  if (tls) {
    if (!tls.trusted)
      findings.push({
        id: 'tls:untrusted',
        severity: 'critical',
        title: `The certificate is not trusted (${tls.error ?? 'unknown reason'})`,
        remediation: 'Install a certificate from a public CA (e.g. Let’s Encrypt) with its full intermediate chain.',
      });
    if (tls.version && /TLSv1(\.[01])?$|SSL/.test(tls.version))
      findings.push({
        id: 'tls:version',
        severity: 'high',
        title: `The server negotiates ${tls.version}`,
        remediation: 'Allow only TLS 1.2 and 1.3.',
      });
    if (tls.days_left !== null && tls.days_left < 30)
      findings.push({
        id: 'tls:expiry',
        severity: tls.days_left < 0 ? 'critical' : tls.days_left < 7 ? 'high' : 'medium',
        title: tls.days_left < 0 ? 'The certificate has expired' : `The certificate expires in ${tls.days_left} days`,
        remediation: 'Renew the certificate and automate renewal (ACME).',
      });
  }
  for (const c of jar) {
    const lacks = [!c.secure && u.protocol === 'https:' && 'Secure', !c.http_only && 'HttpOnly', !c.same_site && 'SameSite'].filter(Boolean);
    if (lacks.length)
      findings.push({
        id: `cookie:${c.name}`,
        severity: 'medium',
        title: `Cookie ${c.name} lacks ${lacks.join(', ')}`,
        remediation: `Set ${lacks.join('; ')} on the cookie (SameSite=Lax at least).`,
      });
  }
  for (const x of exposed)
    if (x.exposed)
      findings.push({
        id: `exposure:${x.path}`,
        severity: x.path === '/.git/HEAD' || x.path === '/.env' ? 'critical' : 'high',
        title: `${x.path} is publicly readable: ${x.why}`,
        remediation: `Deny ${x.path} in the web server and keep such files out of the document root; rotate any secret it held.`,
      });
  return {
    object: 'security_scan' as const,
    url: u.href,
    status: page?.res.status ?? null,
    headers: page?.headers ?? [],
    missing: page?.missing ?? [],
    tls,
    https_redirect,
    cookies: jar,
    exposures: exposed.map(({ path, status, exposed }) => ({ path, status, exposed })),
    findings,
  };
}

const SEVERITIES: Severity[] = ['critical', 'high', 'medium', 'low'];

/**
 * Security checks of a web site (SPEC 4.10): its headers, TLS, https redirect, cookie flags and
 * exposed files. Every URL, exposures included, goes through the egress guard.
 */
export default definePlugin({
  name: 'security_scan',
  category: 'intelligence',
  catalog: true,
  description: 'Check a web site’s security headers, TLS, cookies and exposed files, and report its findings by severity.',
  // SPEC 5.4: platform.
  scopes: { read: ['platform'], write: ['platform'] },
  actions: {
    check_headers: action({
      kind: 'read',
      external: true,
      description: 'The security headers of a page: CSP, HSTS, X-Content-Type-Options, X-Frame-Options (or CSP frame-ancestors), Referrer-Policy.',
      input: Input({ url: Url }),
      output: Type.Object({ object: Type.Literal('header_check'), ...HeadersOut }),
      rest: { method: 'GET', path: '/security-scan/headers' },
      example: noNet,
      handler: async (ctx, input) => {
        const { res, headers, missing } = await fetchHeaders(ctx, input.url);
        return { object: 'header_check' as const, url: res.url, status: res.status, headers, missing };
      },
    }),
    scan_url: action({
      kind: 'read',
      external: true,
      description:
        'A full scan: headers, TLS (version, expiry, chain), the http→https redirect, cookie flags and exposed files (/.git/HEAD, /.env, /.DS_Store, /server-status; their content is never answered).',
      input: Input({ url: Url }),
      output: ScanOut,
      rest: { method: 'GET', path: '/security-scan/scan' },
      example: noNet,
      handler: (ctx, input) => scan(ctx, input.url),
    }),
    vulnerability_report: action({
      kind: 'read',
      external: true,
      description: 'The scan’s findings grouped by severity (critical to low), each with its remediation.',
      input: Input({ url: Url }),
      output: Type.Object({
        object: Type.Literal('vulnerability_report'),
        url: Type.String(),
        scanned_at: Type.String(),
        total: Type.Integer(),
        counts: Type.Record(Type.String(), Type.Integer()),
        groups: Type.Array(Type.Object({ severity: Sev, findings: Type.Array(FindingOut) })),
      }),
      rest: { method: 'GET', path: '/security-scan/report' },
      example: noNet,
      handler: async (ctx, input) => {
        const r = await scan(ctx, input.url);
        const groups = SEVERITIES.map((severity) => ({ severity, findings: r.findings.filter((f) => f.severity === severity) }));
        return {
          object: 'vulnerability_report' as const,
          url: r.url,
          scanned_at: ctx.clock.now().toISOString(),
          total: r.findings.length,
          counts: Object.fromEntries(groups.map((g) => [g.severity, g.findings.length])),
          groups: groups.filter((g) => g.findings.length),
        };
      },
    }),
  },
});
