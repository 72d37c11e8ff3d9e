/**
 * Serves the admin console at /console and the webchat widget at /widget.js (issue 27), from the
 * files console/build.ts wrote, embedded in the server (and in the compiled binary: `type: 'text'`
 * imports are bundled). The console's files (its entry, the pages' chunks it loads on demand, the
 * style sheet) carry a hash of their content in their names, so they are cached for a year and a
 * new release is fetched at once. The page runs under a CSP that allows no inline script, nothing
 * from another origin, and no framing.
 */
import bundleText from './dist/bundle.txt' with { type: 'text' };
// @ts-expect-error TypeScript sees the bundle as a JavaScript module; imported as text it is its source.
import widgetJs from './dist/widget.js' with { type: 'text' };
import type { ConsoleBundle } from './build';

type Route = { method: string; path: string; handler: (c: { request: Request }) => Response | Promise<Response> };

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

interface Asset {
  body: string;
  gzipped?: Uint8Array;
  type: string;
}
const asset = (body: string, type: string): Asset => ({ body, type });

/** The asset, compressed when the client takes gzip (once, on first use: most chunks are never asked for). */
function serveAsset(a: Asset, request: Request, cache: string): Response {
  const gzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  const headers: Record<string, string> = {
    'Content-Type': a.type,
    'Cache-Control': cache,
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Accept-Encoding',
  };
  if (gzip) headers['Content-Encoding'] = 'gzip';
  if (gzip) a.gzipped ??= Bun.gzipSync(a.body);
  return new Response(gzip ? (a.gzipped as Uint8Array<ArrayBuffer>) : a.body, { headers });
}

export function shellHtml(jsPath: string, cssPath: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${cssPath}">
</head>
<body>
<div id="app"><p class="loading">Loading the console…</p></div>
<noscript>The console needs JavaScript. Every screen is also the REST API: see /docs.</noscript>
<script type="module" src="${jsPath}"></script>
</body>
</html>
`;
}

/** The console's routes, handed to the HTTP app by the composition root (core/cli.ts). */
export function consoleRoutes(): Route[] {
  const bundle: ConsoleBundle = JSON.parse(bundleText);
  const widget = asset(widgetJs as unknown as string, 'text/javascript; charset=utf-8');
  const page = shellHtml(`/console/${bundle.entry}`, `/console/${bundle.css}`);
  const year = 'public, max-age=31536000, immutable';
  const html = () =>
    new Response(page, {
      headers: {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': CONSOLE_CSP,
        'X-Frame-Options': 'DENY',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'same-origin',
        'Cache-Control': 'no-cache',
      },
    });
  return [
    { method: 'GET', path: '/console', handler: html },
    { method: 'GET', path: '/console/', handler: html },
    ...Object.entries(bundle.files).map(([name, body]): Route => {
      const a = asset(body, name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8');
      return { method: 'GET', path: `/console/${name}`, handler: ({ request }) => serveAsset(a, request, year) };
    }),
    // Storefronts embed this fixed URL: cached briefly, so a release reaches them within minutes.
    {
      method: 'GET',
      path: '/widget.js',
      handler: ({ request }) => {
        const r = serveAsset(widget, request, 'public, max-age=300');
        r.headers.set('Cross-Origin-Resource-Policy', 'cross-origin');
        return r;
      },
    },
  ];
}
