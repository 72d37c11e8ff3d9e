/**
 * `bun bench/browser.ts`: browser screenshots (and custom PDFs) per minute through svc's REST API
 * (issue 47). Starts `svc serve` on a throwaway embedded database with Debian's Chromium
 * (SVC_CHROMIUM_PATH, default /usr/bin/chromium) and a product page served on 127.0.0.1 (opened to
 * the egress guard for this run only), then times, after a cold start:
 *
 * - `screenshot {url}`: a page loaded (every request through the egress guard) and captured, the
 *   PNG stored as a media asset; one client, then two clients of two stores at once;
 * - `screenshot {url, page_id}`: the page loaded again in an open tab (no new tab);
 * - `screenshot {page_id}`: an open page captured again (no load);
 * - `generate_document custom`: Handlebars HTML printed to a PDF and stored.
 *
 *   BENCH_SHOTS  requests per measurement (default 40)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const CHROMIUM = process.env.SVC_CHROMIUM_PATH ?? '/usr/bin/chromium';
const N = Number(process.env.BENCH_SHOTS ?? 40);
const log = (line: string) => console.error(line);

// A product page of a few kilobytes: a stylesheet, an SVG image and a script that adds reviews.
const site = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const path = new URL(req.url).pathname;
    if (path === '/style.css')
      return new Response('body{font:16px sans-serif;margin:2rem}h1{color:#234}.price{font-size:2rem;color:#a30}li{margin:.3rem 0}', {
        headers: { 'content-type': 'text/css' },
      });
    if (path === '/mug.svg')
      return new Response(
        '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240"><rect width="320" height="240" fill="#e8d7c3"/><circle cx="160" cy="120" r="80" fill="#7a4"/></svg>',
        {
          headers: { 'content-type': 'image/svg+xml' },
        },
      );
    const text = 'Hand-thrown stoneware, glazed in small batches. '.repeat(40);
    return new Response(
      `<!doctype html><html><head><title>Stoneware mug</title><link rel="stylesheet" href="/style.css"></head><body>
       <h1>Stoneware mug</h1><p class="price">24.00 EUR</p><img src="/mug.svg" alt="mug"><p>${text}</p><ul id="reviews"></ul>
       <script>document.getElementById('reviews').innerHTML = [1,2,3,4,5].map(i => '<li>Review ' + i + ': lovely.</li>').join('')</script>
       </body></html>`,
      { headers: { 'content-type': 'text/html; charset=utf-8' } },
    );
  },
});
const page = `http://127.0.0.1:${site.port}/`;

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-browser-'));
const port = 20000 + Math.floor(Math.random() * 20000);
const server = Bun.spawn([process.execPath, join(import.meta.dir, '../core/cli.ts'), 'serve', '--port', String(port)], {
  env: { ...process.env, SVC_DATA_DIR: dir, SVC_CHROMIUM_PATH: CHROMIUM, SVC_EGRESS_ALLOW: '127.0.0.1', DATABASE_URL: '' },
  stdout: 'ignore',
  stderr: 'ignore',
});
const base = `http://127.0.0.1:${port}`;
const cleanup = () => {
  server.kill();
  site.stop(true);
  rmSync(dir, { recursive: true, force: true });
};
process.on('SIGINT', () => (cleanup(), process.exit(130)));

async function call(key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json: any = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A store on the enterprise plan and a key holding platform and documents. */
async function newStore(): Promise<{ key: string; path: string }> {
  const admin = { authorization: `Bearer ${(await Bun.file(join(dir, 'admin-token')).text()).trim()}`, 'content-type': 'application/json' };
  const made: any = await (
    await fetch(`${base}/v1/stores`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Bench', plan: 'enterprise' }) })
  ).json();
  const path = `/v1/stores/${made.store.id}`;
  const key: any = await (
    await fetch(`${base}${path}/api-keys`, { method: 'POST', headers: admin, body: JSON.stringify({ scopes: ['platform', 'documents'] }) })
  ).json();
  return { key: key.key, path };
}

/** `n` runs of `one`, timed: per minute and the median latency. */
async function timed(n: number, one: () => Promise<unknown>) {
  const ms: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await one();
    ms.push(performance.now() - t);
  }
  const total = performance.now() - t0;
  ms.sort((a, b) => a - b);
  return { perMinute: (n / total) * 60_000, p50: ms[Math.floor(n / 2)], p95: ms[Math.floor(n * 0.95)] };
}

try {
  for (let i = 0; i < 120; i++) {
    if (
      await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await Bun.sleep(500);
  }
  const a = await newStore();
  const b = await newStore();
  const t = performance.now();
  const first = await call(a.key, 'POST', `${a.path}/browser/screenshot`, { url: page });
  const cold = performance.now() - t;
  if (first.media.content_type !== 'image/png') throw new Error('not a PNG');

  const rows: [string, { perMinute: number; p50: number; p95: number }][] = [];
  rows.push([
    'screenshot {url}: load + capture + store, 1 client',
    await timed(N, () => call(a.key, 'POST', `${a.path}/browser/screenshot`, { url: page })),
  ]);
  const open = await call(a.key, 'POST', `${a.path}/browser/navigate`, { url: page });
  rows.push([
    'screenshot {url, page_id}: load in an open page + capture + store',
    await timed(N, () => call(a.key, 'POST', `${a.path}/browser/screenshot`, { url: page, page_id: open.id })),
  ]);
  rows.push([
    'screenshot {page_id}: capture + store, 1 client',
    await timed(N, () => call(a.key, 'POST', `${a.path}/browser/screenshot`, { page_id: open.id })),
  ]);
  const t2 = performance.now();
  const both = await Promise.all([a, b].map((s) => timed(N / 2, () => call(s.key, 'POST', `${s.path}/browser/screenshot`, { url: page }))));
  const wall = performance.now() - t2;
  rows.push(['screenshot {url}: 2 clients (2 stores) at once', { perMinute: (N / wall) * 60_000, p50: both[0].p50, p95: both[0].p95 }]);
  const html = '<h1>Invoice for {{name}}</h1><table>{{#each lines}}<tr><td>{{this}}</td></tr>{{/each}}</table>';
  rows.push([
    'documents custom PDF: render + print + store',
    await timed(N / 2, () => call(a.key, 'POST', `${a.path}/documents`, { template: 'custom', html, data: { name: 'Ada', lines: ['a', 'b', 'c'] } })),
  ]);

  console.log(`\nBrowser figures (${N} requests each; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}; cold start ${cold.toFixed(0)} ms)\n`);
  console.log('| measurement | per minute | p50 (ms) | p95 (ms) |');
  console.log('|---|---:|---:|---:|');
  for (const [name, r] of rows)
    console.log(`| ${name} | ${Math.round(r.perMinute).toLocaleString('en-US')} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} |`);
} finally {
  cleanup();
}
