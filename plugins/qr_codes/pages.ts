/** The public pages of a scan: the landing page, the expired page, not found. Mobile-first, no script. */

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

// No script at all; images only over http(s) (the landing image), styles only inline.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src https: http:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

export function htmlResponse(status: number, body: string, extra: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      ...extra,
    },
  });
}

interface Colors {
  background: string;
  text: string;
  accent: string;
}

function document(title: string, colors: Colors, inner: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
*{box-sizing:border-box}
body{margin:0;min-height:100vh;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:${colors.background};color:${colors.text};display:flex;justify-content:center}
main{width:100%;max-width:34rem;padding:2rem 1.25rem;text-align:center}
h1{font-size:1.75rem;line-height:1.2;margin:0 0 1rem}
img{max-width:100%;height:auto;border-radius:.5rem;margin:0 0 1rem}
p{margin:0 0 1.5rem;white-space:pre-line}
a.cta{display:block;padding:1rem;border-radius:.5rem;background:${colors.accent};color:#fff;font-weight:600;text-decoration:none}
@media (min-width:40rem){main{padding-top:4rem}a.cta{display:inline-block;padding:1rem 2.5rem}}
</style></head>
<body><main>${inner}</main></body></html>`;
}

export interface Landing {
  title?: string;
  description?: string;
  image_url?: string;
  cta_text?: string;
  cta_url?: string;
  background_color?: string;
  text_color?: string;
  accent_color?: string;
}

/** Colors are checked hex on input; anything else falls back, so nothing reaches the style unchecked. */
const hex = (v: string | undefined, fallback: string) => (v && /^#[0-9a-fA-F]{3,6}$/.test(v) ? v : fallback);

/** The landing page; `ctaHref` is our tracking link to the call-to-action (or none). */
export function landingPage(page: Landing, ctaHref: string | null): Response {
  const colors = {
    background: hex(page.background_color, '#ffffff'),
    text: hex(page.text_color, '#111111'),
    accent: hex(page.accent_color, '#1a73e8'),
  };
  const inner = [
    page.image_url ? `<img src="${escapeHtml(page.image_url)}" alt="">` : '',
    `<h1>${escapeHtml(page.title ?? '')}</h1>`,
    page.description ? `<p>${escapeHtml(page.description)}</p>` : '',
    ctaHref ? `<a class="cta" href="${escapeHtml(ctaHref)}" rel="noopener">${escapeHtml(page.cta_text ?? 'Continue')}</a>` : '',
  ].join('\n');
  return htmlResponse(200, document(page.title ?? 'Welcome', colors, inner));
}

export const DEFAULT_EXPIRED = 'This code is no longer active.';

/** What a code that no longer redirects shows: its expired_message, with 410 Gone. */
export function expiredPage(message: string | null, page?: Landing | null): Response {
  const colors = { background: hex(page?.background_color, '#ffffff'), text: hex(page?.text_color, '#111111'), accent: '#1a73e8' };
  return htmlResponse(410, document('No longer active', colors, `<h1>${escapeHtml(message ?? DEFAULT_EXPIRED)}</h1>`));
}

export function notFoundPage(): Response {
  return htmlResponse(
    404,
    document('Not found', { background: '#ffffff', text: '#111111', accent: '#1a73e8' }, '<h1>This code does not exist.</h1>'),
  );
}
