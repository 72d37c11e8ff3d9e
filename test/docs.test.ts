import { describe, expect, test } from 'bun:test';
import { chromium } from 'playwright-core';
import { browserTest, CHROMIUM } from './kit/browser';
import { DOCS_ASSETS } from '../core/http/docs';
import { setup } from './kit/setup';

describe('GET /docs (served)', () => {
  test('the page references only its own /docs/ assets, and no other host', async () => {
    const h = await setup();
    const r = await h.app.handle(new Request('http://svc.test/docs'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await r.text();
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(2);
    for (const ref of refs) expect(ref.startsWith('/docs/') || ref === '/openapi.json').toBe(true);
    for (const ref of refs) {
      const asset = await h.app.handle(new Request(`http://svc.test${ref}`));
      expect(asset.status, ref).toBe(200);
      await asset.arrayBuffer();
    }
  });

  test('each embedded asset is served whole with its content type', async () => {
    const h = await setup();
    for (const [name, asset] of Object.entries(DOCS_ASSETS)) {
      const r = await h.app.handle(new Request(`http://svc.test/docs/${name}`));
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(asset.type);
      const bytes = (await r.arrayBuffer()).byteLength;
      expect(bytes).toBeGreaterThan(0);
      expect(bytes).toBe(Bun.file(asset.file).size);
    }
  });
});

describe('GET /docs in headless Chromium', () => {
  browserTest(
    'renders the operations with no outside request and no console error',
    async () => {
      const h = await setup();
      const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: h.app.fetch });
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
        const outside: string[] = [];
        const consoleErrors: string[] = [];
        const failed: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') consoleErrors.push(m.text());
        });
        page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
        page.on('requestfailed', (r) => failed.push(r.url()));
        // Every request goes through here; one to any other host is recorded and never leaves.
        await page.route('**/*', (route) => {
          const url = new URL(route.request().url());
          if (url.hostname !== '127.0.0.1') {
            outside.push(url.href);
            return route.abort();
          }
          return route.continue();
        });

        const base = `http://127.0.0.1:${server.port}`;
        const res = await page.goto(`${base}/docs`, { waitUntil: 'load' });
        expect(res?.status()).toBe(200);
        // Swagger UI renders all ~230 operations of a 1.5 MB document at once (virtualization off):
        // seconds on a quiet machine, 20 s and more on a loaded 2-core one. A ceiling, not a speed check.
        await page.getByText('products_list_products', { exact: false }).first().waitFor({ timeout: 90_000 });
        await page.getByText('Create a product.', { exact: false }).first().waitFor({ timeout: 20_000 });
        // One operation opened, so the screenshot shows parameters and responses too. The click sets
        // the URL's hash (deep links): Playwright would wait for that "navigation" while the page's
        // one thread is still rendering (30 s and more at a load of 15), so it waits for the result.
        await page.locator('#operations-products-products_list_products button').first().click({ noWaitAfter: true, timeout: 60_000 });
        await page.getByText('Filter by status', { exact: false }).first().waitFor({ timeout: 60_000 });
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: '/tmp/docs.png', fullPage: false });

        // Every operation is in the page (Swagger UI, left alone, keeps only those near the viewport
        // of a long list), so find-in-page reaches any of them.
        const bodyText = await page.locator('body').innerText();
        const doc = await (await fetch(`${base}/openapi.json`)).json();
        const ids = Object.values<Record<string, { operationId: string }>>(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
        // Past Swagger UI's threshold (150 rows), so this checks the long-list case.
        expect(ids.length).toBeGreaterThan(150);
        for (const id of ['orders_create_order', 'admin_create_store', 'products_delete_product']) expect(ids).toContain(id);
        expect(ids.filter((id) => !bodyText.includes(id))).toEqual([]);
        expect(outside).toEqual([]);
        expect(failed).toEqual([]);
        expect(consoleErrors).toEqual([]);
      } finally {
        await browser.close();
        server.stop(true);
      }
    },
    300_000,
  );
});
