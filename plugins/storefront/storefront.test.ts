import { afterAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { browserTest, CHROMIUM } from '../../test/kit/browser';
import { mcpClient } from '../../test/kit/mcp';
import { mkProduct } from '../../test/kit/orders';
import { setup, type Harness } from '../../test/kit/setup';

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

const preview = async (h: Harness) => {
  const res = await h.app.handle(new Request(`http://svc.test/v1/stores/${h.store.id}/storefront/preview`, { headers: { 'x-api-key': h.key } }));
  return { status: res.status, headers: res.headers, html: await res.text() };
};
const HOSTILE = `<script>alert("x")</script><img src=x onerror=alert(1)> & "quoted"`;

test('a new store has the default theme; an update keeps what it leaves out and null clears a text', async () => {
  const h = await setup();
  const first = await h.call('GET', '/storefront');
  expect(first.body).toMatchObject({
    object: 'storefront_config',
    theme: { layout: 'classic', products_per_row: 4, hero_title: null },
    updated_at: null,
  });
  expect(first.body.fonts).toContain('Inter');
  const as = { 'x-api-key': await h.newKey(['storefront:write']) };
  const up = await h.call('PATCH', '/storefront/theme', { primary_color: '#0f766e', layout: 'grid', hero_title: 'Spring', products_per_row: 3 }, as);
  expect(up.status).toBe(200);
  const again = await h.call('PATCH', '/storefront/theme', { heading_font: 'Merriweather', hero_title: null }, as);
  expect(again.body.theme).toMatchObject({
    primary_color: '#0f766e',
    layout: 'grid',
    products_per_row: 3,
    heading_font: 'Merriweather',
    hero_title: null,
  });
  expect((await h.call('GET', '/storefront', undefined, { 'x-api-key': await h.newKey(['storefront:read']) })).body.theme.primary_color).toBe(
    '#0f766e',
  );
  // A key for another area cannot touch it.
  expect((await h.call('PATCH', '/storefront/theme', { layout: 'grid' }, { 'x-api-key': await h.newKey(['commerce']) })).status).toBe(403);
});

test('a bad value is 400 naming its field', async () => {
  const h = await setup();
  const bad: [Record<string, unknown>, string][] = [
    [{ primary_color: 'red' }, 'primary_color'],
    [{ text_color: '#12345' }, 'text_color'],
    [{ heading_font: 'Comic Sans MS' }, 'heading_font'],
    [{ logo_url: 'http://cdn.example.com/logo.png' }, 'logo_url'],
    [{ layout: 'carousel' }, 'layout'],
    [{ products_per_row: 7 }, 'products_per_row'],
    [{ products_per_row: 1 }, 'products_per_row'],
    [{ hero_title: 'x'.repeat(121) }, 'hero_title'],
  ];
  for (const [body, param] of bad) {
    const r = await h.call('PATCH', '/storefront/theme', body);
    expect([r.status, r.body.error.param]).toEqual([400, param]);
  }
  expect((await h.call('GET', '/storefront')).body.updated_at).toBeNull();
});

test('the preview is one HTML page with the name, theme and active products, every user text escaped', async () => {
  const h = await setup();
  await h.call('PATCH', '/settings', { name: 'Acme <b>Tools</b>' });
  await mkProduct(h, { name: 'Claw <i>Hammer</i>', pricing_data: { retail: 12.5 } });
  await mkProduct(h, { name: 'Hidden draft', status: 'draft' });
  await h.call('PATCH', '/storefront/theme', {
    primary_color: '#0f766e',
    hero_title: HOSTILE,
    hero_subtitle: '</p><style>body{display:none}</style>',
    announcement_text: "Free shipping' onmouseover='x",
    footer_text: '<a href="javascript:alert(1)">f</a>',
  });
  const r = await preview(h);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
  expect(r.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;');
  expect(r.html).not.toContain('<script');
  expect(r.html).not.toContain('<img src=x');
  expect(r.html).not.toContain('<a href');
  expect(r.html).toContain('Free shipping&#39; onmouseover=&#39;x');
  expect(r.html).toContain('Acme &lt;b&gt;Tools&lt;/b&gt;');
  expect(r.html).toContain('Claw &lt;i&gt;Hammer&lt;/i&gt;');
  expect(r.html).toContain('12.50');
  expect(r.html).not.toContain('Hidden draft');
  expect(r.html).toContain('--primary: #0f766e');
  // Self-contained: no script, stylesheet link or font fetched from elsewhere.
  expect(r.html).not.toMatch(/<link|<script|@import|url\(/i);
});

test('over MCP the preview is a signed link valid one hour that serves the page', async () => {
  const h = await setup();
  await h.call('PATCH', '/storefront/theme', { hero_title: 'Welcome in' });
  const { client } = await mcpClient(h, { query: '?tools=flat' });
  try {
    const out: any = await client.callTool({ name: 'storefront_preview', arguments: {} });
    expect(out.isError).toBeFalsy();
    expect(out.structuredContent).toMatchObject({ object: 'signed_link', content_type: 'text/html' });
    expect(Date.parse(out.structuredContent.expires_at) - h.clock.now().getTime()).toBe(3600_000);
    const res = await h.app.handle(new Request(out.structuredContent.url));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Welcome in');
    const cfg: any = await client.callTool({ name: 'storefront_get_config', arguments: {} });
    expect(cfg.structuredContent.theme.hero_title).toBe('Welcome in');
  } finally {
    await client.close();
  }
});

browserTest(
  'headless Chromium displays the preview: the hostile title as text, the theme colors, a row of products',
  async () => {
    const h = await setup();
    await mkProduct(h, { name: 'Claw Hammer' });
    await mkProduct(h, { name: 'Chisel Set' });
    await mkProduct(h, { name: 'Mallet' });
    await h.call('PATCH', '/storefront/theme', { hero_title: HOSTILE, primary_color: '#0f766e', products_per_row: 3 });
    const { html } = await preview(h);
    const { chromium } = await import('playwright-core');
    browser ??= await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.setContent(html);
    expect(await page.locator('.hero h1').innerText()).toBe(HOSTILE);
    expect(dialogs).toEqual([]);
    expect(await page.locator('header').evaluate((e) => getComputedStyle(e).backgroundColor)).toBe('rgb(15, 118, 110)');
    const names = await page.locator('.product .name').allInnerTexts();
    expect(names.sort()).toEqual(['Chisel Set', 'Claw Hammer', 'Mallet']);
    // Three per row: the three products share one row's top.
    const tops = await page.locator('.product').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    expect(new Set(tops).size).toBe(1);
    await page.close();
  },
  60_000,
);
