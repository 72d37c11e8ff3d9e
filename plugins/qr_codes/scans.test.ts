import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup } from '../../test/kit/setup';
import { create, scan, uniqueCode, IPHONE, PIXEL, LAPTOP } from '../../test/kit/qr';

/** QR codes (issue 29): scans, landing pages, conversions and analytics (codes and their states: qr_codes.test.ts). */

beforeAll(() => setup(), 60_000); // migrations: not within the first test's time limit

describe('scans', () => {
  test('a redirect is 302 no-store, appends svc_scan, and the switch turns it off', async () => {
    const h = await setup();
    const code = await create(h, { destination_url: 'https://shop.example.com/spring?utm=qr' });
    const res = await scan(h, code.code);
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const to = new URL(res.headers.get('location')!);
    expect(to.origin + to.pathname).toBe('https://shop.example.com/spring');
    expect(to.searchParams.get('utm')).toBe('qr');
    expect(to.searchParams.get('svc_scan')).toMatch(/^[0-9a-f-]{36}$/);
    const off = await create(h, { track_conversions: false });
    expect((await scan(h, off.code)).headers.get('location')).toBe('https://shop.example.com/spring');
  });

  test('crawlers and link previews are answered but not counted', async () => {
    const h = await setup();
    const code = await create(h, { max_scans: 1 });
    for (const ua of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'WhatsApp/2.23.20.0',
      'TelegramBot (like TwitterBot)',
      'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    ]) {
      const res = await scan(h, code.code, ua);
      expect(res.status).toBe(302);
      expect(new URL(res.headers.get('location')!).searchParams.has('svc_scan')).toBe(false);
    }
    expect((await h.call('GET', `/qr-codes/${code.code}`)).body.total_scans).toBe(0);
  });

  test('a scan without a User-Agent is counted as Desktop', async () => {
    const h = await setup();
    const code = await create(h);
    expect((await h.raw('GET', `/s/${code.code}`, undefined, { 'x-api-key': '' })).status).toBe(302);
    const stats = (await h.call('GET', `/qr-codes/${code.code}/analytics?from=2026-04-01&to=2026-04-01`)).body;
    expect(stats).toMatchObject({ total_scans: 1, by_device: { Desktop: 1 } });
  });

  test('an unreadable SVC_GEOIP_DB never fails a scan: the city is unknown', async () => {
    const h = await setup({ env: { SVC_GEOIP_DB: '/nonexistent/city.mmdb' } });
    const code = await create(h);
    expect((await scan(h, code.code)).status).toBe(302);
    expect((await h.call('GET', `/qr-codes/${code.code}/analytics?from=2026-04-01&to=2026-04-01`)).body.by_city).toEqual({ unknown: 1 });
  });

  test('an unknown code is a 404 page', async () => {
    const h = await setup();
    const res = await scan(h, 'no-such-code-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect((await scan(h, '%3Cscript%3E')).status).toBe(404);
  });

  test('a landing page is rendered escaped, with a CSP; its call-to-action converts the scan once', async () => {
    const h = await setup();
    const code = await create(h, {
      type: 'landing_page',
      destination_url: undefined,
      landing_page: { title: '<script>alert(1)</script>Spring', cta_text: 'Shop now', cta_url: 'https://shop.example.com/spring' },
    });
    const page = await scan(h, code.code);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;Spring');
    const href = /href="([^"]+)"/.exec(page.body)![1].replaceAll('&amp;', '&');
    const go = await h.raw('GET', href, undefined, { 'x-api-key': '', 'user-agent': IPHONE });
    expect(go.status).toBe(302);
    expect(go.headers.get('location')).toStartWith('https://shop.example.com/spring?svc_scan=');
    await h.raw('GET', href, undefined, { 'x-api-key': '', 'user-agent': IPHONE });
    const stats = (await h.call('GET', `/qr-codes/${code.code}/analytics?from=2026-04-01&to=2026-04-01`)).body;
    expect(stats).toMatchObject({ total_scans: 1, conversions: 1, conversion_rate: 1 });
  });

  test('an order created with attribution {qr_scan_id} counts as a conversion of that scan', async () => {
    const h = await setup();
    const code = await create(h);
    const scanIds: string[] = [];
    for (const ua of [IPHONE, PIXEL, LAPTOP, IPHONE])
      scanIds.push(new URL((await scan(h, code.code, ua)).headers.get('location')!).searchParams.get('svc_scan')!);
    const p = (await h.call('POST', '/products', product())).body;
    const order = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }], attribution: { qr_scan_id: scanIds[1] } });
    expect(order.status).toBe(201);
    expect(order.body.attribution).toEqual({ qr_scan_id: scanIds[1] });
    // A second order from the same scan converts nothing more; an unknown scan id converts nothing.
    await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }], attribution: { qr_scan_id: scanIds[1] } });
    await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }], attribution: { qr_scan_id: crypto.randomUUID() } });
    const stats = (await h.call('GET', `/qr-codes/${code.code}/analytics?from=2026-04-01&to=2026-04-01`)).body;
    expect(stats).toMatchObject({ total_scans: 4, conversions: 1, conversion_rate: 0.25 });
    const bad = await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }], attribution: { qr_scan_id: 'nope' } });
    expect(bad.body.error.param).toBe('attribution.qr_scan_id');
    expect((await h.call('POST', '/orders', { line_items: [{ product_id: p.id, quantity: 1 }] })).body.attribution).toBeNull();
  });
});

describe('analytics', () => {
  test('by_day lists every UTC day of the range with zeros; devices and unique scans', async () => {
    const h = await setup();
    const code = await create(h);
    await scan(h, code.code, IPHONE);
    await scan(h, code.code, IPHONE); // same device: not unique
    await scan(h, code.code, PIXEL);
    h.clock.set(new Date('2026-04-03T23:59:59Z'));
    await scan(h, code.code, LAPTOP);
    const res = await h.call('GET', `/qr-codes/${code.code}/analytics?from=2026-03-31&to=2026-04-04`);
    expect(res.body).toEqual({
      object: 'qr_analytics',
      code: code.code,
      campaign_name: null,
      from: '2026-03-31',
      to: '2026-04-04',
      total_scans: 4,
      unique_scans: 3,
      by_city: { unknown: 4 },
      by_device: { iOS: 2, Android: 1, Desktop: 1 },
      by_day: [
        { date: '2026-03-31', scans: 0 },
        { date: '2026-04-01', scans: 3 },
        { date: '2026-04-02', scans: 0 },
        { date: '2026-04-03', scans: 1 },
        { date: '2026-04-04', scans: 0 },
      ],
      conversions: 0,
      conversion_rate: 0,
    });
    // The default range: the 30 days up to today.
    const byDefault = (await h.call('GET', `/qr-codes/${code.code}/analytics`)).body;
    expect(byDefault.by_day).toHaveLength(30);
    expect(byDefault.to).toBe('2026-04-03');
  });

  test("campaign analytics add up the campaign's codes; an unknown campaign is 404", async () => {
    const h = await setup();
    const campaign = uniqueCode('camp');
    const a = await create(h, { campaign_name: campaign });
    const b = await create(h, { campaign_name: campaign });
    const other = await create(h);
    await scan(h, a.code, IPHONE);
    await scan(h, b.code, PIXEL);
    await scan(h, b.code, PIXEL);
    await scan(h, other.code, LAPTOP);
    const res = await h.call('GET', `/qr-campaigns/${campaign}/analytics?from=2026-04-01&to=2026-04-01`);
    expect(res.body).toMatchObject({ campaign_name: campaign, code: null, total_scans: 3, unique_scans: 2, by_device: { iOS: 1, Android: 2 } });
    const none = await h.call('GET', `/qr-campaigns/nothing-here/analytics`);
    expect(none.status).toBe(404);
    expect(none.body.error.param).toBe('campaign_name');
  });
});
