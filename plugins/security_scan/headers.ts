/** The response headers a site should send, each judged with what to do when it is missing or weak. */

export type Severity = 'critical' | 'high' | 'medium' | 'low' | 'info';

export interface HeaderCheck {
  name: string;
  present: boolean;
  value: string | null;
  severity: Severity;
  remediation: string | null;
}

/** Judges one page's headers; `https` says whether HSTS applies (browsers ignore it over http). */
export function judgeHeaders(h: Headers, https: boolean): HeaderCheck[] {
  const csp = h.get('content-security-policy');
  const hsts = h.get('strict-transport-security');
  const xcto = h.get('x-content-type-options');
  const xfo = h.get('x-frame-options');
  const referrer = h.get('referrer-policy');
  const frameAncestors = !!csp && /(^|;)\s*frame-ancestors\s/i.test(csp);
  const hstsAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(hsts ?? '')?.[1] ?? 0);
  return [
    check(
      'Content-Security-Policy',
      csp,
      csp ? 'info' : 'high',
      "Send a Content-Security-Policy (start with default-src 'self') to limit where scripts may load from.",
    ),
    check(
      'Strict-Transport-Security',
      hsts,
      !hsts ? (https ? 'high' : 'medium') : hstsAge < 15_552_000 ? 'low' : 'info',
      !hsts
        ? 'Serve the site over HTTPS and send Strict-Transport-Security: max-age=31536000; includeSubDomains.'
        : 'Raise the HSTS max-age to at least 180 days (31536000 is usual).',
      !!hsts && hstsAge >= 15_552_000,
    ),
    check(
      'X-Content-Type-Options',
      xcto,
      xcto?.trim().toLowerCase() === 'nosniff' ? 'info' : 'medium',
      'Send X-Content-Type-Options: nosniff so browsers do not guess content types.',
      xcto?.trim().toLowerCase() === 'nosniff',
    ),
    // frame-ancestors supersedes X-Frame-Options: either one protects against clickjacking.
    check(
      xfo || !frameAncestors ? 'X-Frame-Options' : 'Content-Security-Policy frame-ancestors',
      xfo ?? (frameAncestors ? csp : null),
      xfo || frameAncestors ? 'info' : 'medium',
      "Send X-Frame-Options: DENY (or SAMEORIGIN), or a CSP frame-ancestors 'none' directive, against clickjacking.",
    ),
    check('Referrer-Policy', referrer, referrer ? 'info' : 'low', 'Send Referrer-Policy: strict-origin-when-cross-origin (or stricter).'),
  ];
}

function check(name: string, value: string | null, severity: Severity, remediation: string, good = value !== null): HeaderCheck {
  return { name, present: value !== null, value, severity: good ? 'info' : severity, remediation: good ? null : remediation };
}
