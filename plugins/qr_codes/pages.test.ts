import { afterAll, beforeAll, expect } from 'bun:test';
import { PNG } from 'pngjs';
import { browserTest, CHROMIUM } from '../../test/kit/browser';
import { setup, type Harness } from '../../test/kit/setup';

/**
 * The landing page and the expired page as a phone shows them: headless Chromium on a 375 px wide
 * viewport against the app listening on 127.0.0.1, and a local "shop" the call-to-action leads to.
 */

let h: Harness;
let app: { origin: string; stop: () => void };
let shop: ReturnType<typeof Bun.serve>;
const shopVisits: string[] = [];

beforeAll(async () => {
  h = await setup();
  const listening = h.app.listen({ port: 0, hostname: '127.0.0.1' });
  app = { origin: `http://127.0.0.1:${listening.server!.port}`, stop: () => listening.stop() };
  const banner = new PNG({ width: 40, height: 20 });
  banner.data.fill(200);
  const bannerBytes = new Uint8Array(PNG.sync.write(banner));
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === '/banner.png') return new Response(bannerBytes, { headers: { 'content-type': 'image/png' } });
      shopVisits.push(url.pathname + url.search);
      return new Response('<!doctype html><title>Shop</title><h1>The shop</h1>', { headers: { 'content-type': 'text/html' } });
    },
  });
}, 60_000);

afterAll(() => {
  app?.stop();
  shop?.stop(true);
});

async function withPhone(fn: (page: import('playwright-core').Page, dialogs: string[]) => Promise<void>) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({
      viewport: { width: 375, height: 667 },
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1',
    });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await fn(page, dialogs);
  } finally {
    await browser.close();
  }
}

browserTest(
  'the landing page shows its title, text, image and colors on a phone; its button converts the scan and reaches the shop',
  async () => {
    const shopOrigin = `http://127.0.0.1:${shop.port}`;
    const created = await h.call('POST', '/qr-codes', {
      code: `lp-${crypto.randomUUID().slice(0, 8)}`,
      type: 'landing_page',
      landing_page: {
        title: 'Spring <img src=x onerror=alert(1)> sale',
        description: 'Everything green, 20% off.',
        image_url: `${shopOrigin}/banner.png`,
        cta_text: 'Shop the sale',
        cta_url: `${shopOrigin}/spring`,
        background_color: '#102030',
        text_color: '#fafafa',
        accent_color: '#e91e63',
      },
    });
    expect(created.status).toBe(201);
    const code = created.body.code;
    await withPhone(async (page, dialogs) => {
      const res = await page.goto(`${app.origin}/s/${code}`);
      expect(res!.status()).toBe(200);
      expect(await page.locator('h1').innerText()).toBe('Spring <img src=x onerror=alert(1)> sale');
      expect(await page.locator('p').innerText()).toBe('Everything green, 20% off.');
      expect(await page.locator('img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(40);
      const style = await page.evaluate(() => {
        const body = getComputedStyle(document.body);
        const cta = getComputedStyle(document.querySelector('a.cta')!);
        return { bg: body.backgroundColor, fg: body.color, accent: cta.backgroundColor, scrollX: document.documentElement.scrollWidth };
      });
      expect(style).toEqual({ bg: 'rgb(16, 32, 48)', fg: 'rgb(250, 250, 250)', accent: 'rgb(233, 30, 99)', scrollX: 375 });
      await page.getByText('Shop the sale').click();
      await page.waitForURL(/\/spring/);
      expect(await page.locator('h1').innerText()).toBe('The shop');
      expect(dialogs).toEqual([]);
    });
    expect(shopVisits.filter((v) => v.startsWith('/spring'))).toEqual([expect.stringMatching(/^\/spring\?svc_scan=[0-9a-f-]{36}$/)]);
    const stats = (await h.call('GET', `/qr-codes/${code}/analytics?from=2026-04-01&to=2026-04-01`)).body;
    expect(stats).toMatchObject({ total_scans: 1, conversions: 1, conversion_rate: 1, by_device: { iOS: 1 } });
  },
  60_000,
);

browserTest(
  'a maxed-out code shows its expired_message with 410 Gone',
  async () => {
    const created = await h.call('POST', '/qr-codes', {
      code: `gone-${crypto.randomUUID().slice(0, 8)}`,
      type: 'coupon',
      destination_url: `http://127.0.0.1:${shop.port}/coupon`,
      max_scans: 1,
      expired_message: 'All 1 coupons are gone — see you next season!',
    });
    const code = created.body.code;
    await withPhone(async (page) => {
      const first = await page.goto(`${app.origin}/s/${code}`);
      expect(first!.url()).toStartWith(`http://127.0.0.1:${shop.port}/coupon?svc_scan=`);
      const second = await page.goto(`${app.origin}/s/${code}`);
      expect(second!.status()).toBe(410);
      expect(await page.locator('h1').innerText()).toBe('All 1 coupons are gone — see you next season!');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(375);
    });
  },
  60_000,
);
