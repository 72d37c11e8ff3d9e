import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/kit/setup';

/** QR codes (issue 29): codes, validation, the state machine, scans and conversions. */

beforeAll(() => setup(), 60_000); // migrations: not within the first test's time limit

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const PIXEL = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36';
const LAPTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

const uniqueCode = (prefix = 'c') => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
const custom = (over: Record<string, unknown> = {}) => ({
  code: uniqueCode(),
  type: 'custom',
  destination_url: 'https://shop.example.com/spring',
  ...over,
});

async function create(h: Harness, over: Record<string, unknown> = {}) {
  const res = await h.call('POST', '/qr-codes', custom(over));
  expect(res.status).toBe(201);
  return res.body;
}

/** A scan as a phone would make it (no API key: the route is public). */
const scan = (h: Harness, code: string, ua = IPHONE, method = 'GET') => h.raw(method, `/s/${code}`, undefined, { 'x-api-key': '', 'user-agent': ua });

describe('create, read, list', () => {
  test('a created code is active with no scans, and names its scan and image URLs', async () => {
    const h = await setup();
    const code = await create(h, { max_scans: 5, campaign_name: 'spring' });
    expect(code).toMatchObject({ object: 'qr_code', status: 'active', total_scans: 0, max_scans: 5, remaining: 5, campaign_name: 'spring' });
    expect(code.scan_url).toBe(`http://svc.test/s/${code.code}`);
    expect(code.image_url).toBe(`http://svc.test${h.base}/qr-codes/${code.code}/image`);
    const got = await h.call('GET', `/qr-codes/${code.code}`);
    expect(got.body).toEqual(code);
  });

  test('SVC_PUBLIC_URL names the scan URL; an omitted code is generated', async () => {
    const h = await setup({ env: { SVC_PUBLIC_URL: 'https://qr.example.com/' } });
    const res = await h.call('POST', '/qr-codes', { type: 'coupon', destination_url: 'https://shop.example.com/c' });
    expect(res.status).toBe(201);
    expect(res.body.code).toMatch(/^[A-Za-z0-9]{10}$/);
    expect(res.body.scan_url).toBe(`https://qr.example.com/s/${res.body.code}`);
  });

  test('codes are unique across stores: another store taking one is 409 duplicate_code', async () => {
    const a = await setup();
    const b = await setup();
    const code = uniqueCode();
    await create(a, { code });
    const again = await b.call('POST', '/qr-codes', custom({ code }));
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'conflict_error', code: 'duplicate_code', param: 'code' });
    // ...yet the other store cannot read it.
    expect((await b.call('GET', `/qr-codes/${code}`)).status).toBe(404);
  });

  test('the list filters by status, type and campaign', async () => {
    const h = await setup();
    const campaign = uniqueCode('camp');
    const a = await create(h, { campaign_name: campaign });
    const b = await create(h, { campaign_name: campaign, type: 'product' });
    await create(h);
    await h.call('POST', `/qr-codes/${b.code}/deactivate`);
    const inCampaign = await h.call('GET', `/qr-codes?campaign_name=${campaign}`);
    expect(inCampaign.body.data.map((c: any) => c.code).sort()).toEqual([a.code, b.code].sort());
    expect((await h.call('GET', `/qr-codes?campaign_name=${campaign}&status=active`)).body.data.map((c: any) => c.code)).toEqual([a.code]);
    expect((await h.call('GET', `/qr-codes?campaign_name=${campaign}&type=product`)).body.data.map((c: any) => c.code)).toEqual([b.code]);
    expect(inCampaign.body.url).toBe(`${h.base}/qr-codes`);
  });

  test('archiving hides the code and its scan URL answers 404; the code stays taken', async () => {
    const h = await setup();
    const code = await create(h);
    expect((await h.call('DELETE', `/qr-codes/${code.code}`)).body).toEqual({ id: code.id, object: 'qr_code', deleted: true });
    expect((await h.call('GET', `/qr-codes/${code.code}`)).status).toBe(404);
    expect((await scan(h, code.code)).status).toBe(404);
    expect((await h.call('POST', '/qr-codes', custom({ code: code.code }))).status).toBe(409);
  });

  test('scopes: marketing:read reads but cannot write; marketing:write writes', async () => {
    const h = await setup();
    const code = await create(h);
    const reader = await h.newKey(['marketing:read']);
    expect((await h.call('GET', `/qr-codes/${code.code}`, undefined, { 'x-api-key': reader })).status).toBe(200);
    const denied = await h.call('POST', '/qr-codes', custom(), { 'x-api-key': reader });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('insufficient_scope');
    const writer = await h.newKey(['marketing:write']);
    expect((await h.call('POST', '/qr-codes', custom(), { 'x-api-key': writer })).status).toBe(201);
    const orders = await h.newKey(['orders']);
    expect((await h.call('GET', '/qr-codes', undefined, { 'x-api-key': orders })).status).toBe(403);
  });
});

describe('bad input, field by field (400 naming the field)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a code with a space', { code: 'a b' }, 'code'],
    ['a code of 65 characters', { code: 'x'.repeat(65) }, 'code'],
    ['an empty code', { code: '' }, 'code'],
    ['an unknown type', { type: 'flyer' }, 'type'],
    ['no type', { type: undefined }, 'type'],
    ['a custom code without destination_url', { destination_url: undefined }, 'destination_url'],
    ['a javascript: destination', { destination_url: 'javascript:alert(1)' }, 'destination_url'],
    ['a data: destination', { destination_url: 'data:text/html,<b>x</b>' }, 'destination_url'],
    ['a relative destination', { destination_url: '/spring' }, 'destination_url'],
    ['a destination with userinfo', { destination_url: 'https://user:pw@shop.example.com/' }, 'destination_url'],
    ['a destination over 2,048 characters', { destination_url: `https://shop.example.com/${'a'.repeat(2040)}` }, 'destination_url'],
    ['a non-hex brand_color', { brand_color: 'blue' }, 'brand_color'],
    ['too light a brand_color', { brand_color: '#ffff00' }, 'brand_color'],
    ['a light grey brand_color', { brand_color: '#bbbbbb' }, 'brand_color'],
    ['an ftp logo_url', { logo_url: 'ftp://files.example.com/logo.png' }, 'logo_url'],
    ['max_scans 0', { max_scans: 0 }, 'max_scans'],
    ['max_scans 2.5', { max_scans: 2.5 }, 'max_scans'],
    ['max_scans as text', { max_scans: 'ten' }, 'max_scans'],
    ['expires_at in the past', { expires_at: '2026-03-01T00:00:00Z' }, 'expires_at'],
    ['expires_at not a date', { expires_at: 'next week' }, 'expires_at'],
    ['an empty campaign_name', { campaign_name: '' }, 'campaign_name'],
    ['an empty expired_message', { expired_message: '' }, 'expired_message'],
    ['track_conversions as text', { track_conversions: 'no' }, 'track_conversions'],
    ['a landing_page code without landing_page', { type: 'landing_page', destination_url: undefined }, 'landing_page'],
    ['a landing_page without title', { type: 'landing_page', landing_page: { description: 'x' } }, 'landing_page.title'],
    ['a landing_page with an unknown field', { type: 'landing_page', landing_page: { title: 'x', font: 'Comic' } }, 'landing_page.font'],
    [
      'a landing_page cta_url with javascript:',
      { type: 'landing_page', landing_page: { title: 'x', cta_url: 'javascript:alert(1)' } },
      'landing_page.cta_url',
    ],
    [
      'a landing_page image_url not http',
      { type: 'landing_page', landing_page: { title: 'x', image_url: 'file:///etc/passwd' } },
      'landing_page.image_url',
    ],
    ['a landing_page color not hex', { type: 'landing_page', landing_page: { title: 'x', accent_color: 'red' } }, 'landing_page.accent_color'],
    ['a status on create', { status: 'active' }, 'status'],
    ['an unknown field', { colour: '#000000' }, 'colour'],
  ];
  for (const [name, over, param] of cases)
    test(name, async () => {
      const h = await setup();
      const res = await h.call('POST', '/qr-codes', custom(over));
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
    });

  test('analytics ranges: not a date, from after to, more than 366 days', async () => {
    const h = await setup();
    const code = await create(h);
    const at = (q: string) => h.call('GET', `/qr-codes/${code.code}/analytics?${q}`);
    expect((await at('from=2026-02-30')).body.error.param).toBe('from');
    expect((await at('from=yesterday')).body.error.param).toBe('from');
    expect((await at('from=2026-03-02&to=2026-03-01')).body.error.param).toBe('from');
    const long = await at('from=2025-01-01&to=2026-01-02');
    expect(long.status).toBe(400);
    expect(long.body.error.param).toBe('to');
    expect((await at('from=2025-01-01&to=2026-01-01')).status).toBe(200); // 366 days
  });

  test('image size and format', async () => {
    const h = await setup();
    const code = await create(h);
    for (const [q, param] of [
      ['size=63', 'size'],
      ['size=2049', 'size'],
      ['size=big', 'size'],
      ['format=gif', 'format'],
    ])
      expect((await h.call('GET', `/qr-codes/${code.code}/image?${q}`)).body.error).toMatchObject({ param });
  });
});

describe('the state machine (SPEC 3.3), row by row', () => {
  test('(none) -> active on create, total_scans 0', async () => {
    const h = await setup();
    expect(await create(h)).toMatchObject({ status: 'active', total_scans: 0 });
  });

  test('active -> deactivated by deactivate: scans no longer redirect (410 with expired_message)', async () => {
    const h = await setup();
    const code = await create(h, { expired_message: 'Spring sale is over' });
    expect((await h.call('POST', `/qr-codes/${code.code}/deactivate`)).body.status).toBe('deactivated');
    const res = await scan(h, code.code);
    expect(res.status).toBe(410);
    expect(res.body).toContain('Spring sale is over');
    expect((await h.call('GET', `/qr-codes/${code.code}`)).body.total_scans).toBe(0);
  });

  test('active -> expired when expires_at passes: the expired page', async () => {
    const h = await setup();
    const code = await create(h, { expires_at: '2026-04-02T00:00:00Z' });
    expect((await scan(h, code.code)).status).toBe(302);
    h.clock.set(new Date('2026-04-02T00:00:01Z'));
    expect((await h.call('GET', `/qr-codes/${code.code}`)).body.status).toBe('expired');
    const res = await scan(h, code.code);
    expect(res.status).toBe(410);
    expect(res.body).toContain('This code is no longer active.');
    expect((await h.call('GET', '/qr-codes?status=expired')).body.data.map((c: any) => c.code)).toContain(code.code);
  });

  test('active -> maxed_out when total_scans reaches max_scans: that scan is the last to redirect', async () => {
    const h = await setup();
    const code = await create(h, { max_scans: 2 });
    expect((await scan(h, code.code)).status).toBe(302);
    const last = await scan(h, code.code);
    expect(last.status).toBe(302);
    expect((await h.call('GET', `/qr-codes/${code.code}`)).body).toMatchObject({ status: 'maxed_out', total_scans: 2, remaining: 0 });
    expect((await scan(h, code.code)).status).toBe(410);
    expect((await h.call('GET', `/qr-codes/${code.code}`)).body.total_scans).toBe(2);
  });

  test('deactivated -> active by update with status active', async () => {
    const h = await setup();
    const code = await create(h);
    await h.call('POST', `/qr-codes/${code.code}/deactivate`);
    expect((await h.call('PATCH', `/qr-codes/${code.code}`, { status: 'active' })).body.status).toBe('active');
    expect((await scan(h, code.code)).status).toBe(302);
  });

  test('expired -> active with a new expires_at; without one it is 409 conflict_error', async () => {
    const h = await setup();
    const code = await create(h, { expires_at: '2026-04-02T00:00:00Z' });
    h.clock.set(new Date('2026-04-03T00:00:00Z'));
    const refused = await h.call('PATCH', `/qr-codes/${code.code}`, { status: 'active' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: 'conflict_error', code: 'conflict_error', param: 'expires_at' });
    const ok = await h.call('PATCH', `/qr-codes/${code.code}`, { status: 'active', expires_at: '2026-05-01T00:00:00Z' });
    expect(ok.body).toMatchObject({ status: 'active', expires_at: '2026-05-01T00:00:00.000Z' });
    expect((await scan(h, code.code)).status).toBe(302);
  });

  test('maxed_out -> active with a higher max_scans; the same max_scans is 409', async () => {
    const h = await setup();
    const code = await create(h, { max_scans: 1 });
    await scan(h, code.code);
    expect((await h.call('PATCH', `/qr-codes/${code.code}`, { status: 'active' })).status).toBe(409);
    const ok = await h.call('PATCH', `/qr-codes/${code.code}`, { status: 'active', max_scans: 3 });
    expect(ok.body).toMatchObject({ status: 'active', total_scans: 1, remaining: 2 });
    expect((await scan(h, code.code)).status).toBe(302);
  });

  test('lowering max_scans to the scans already made maxes the code out', async () => {
    const h = await setup();
    const code = await create(h);
    await scan(h, code.code);
    expect((await h.call('PATCH', `/qr-codes/${code.code}`, { max_scans: 1 })).body.status).toBe('maxed_out');
  });

  test('update: fields left out are kept, null clears, landing_page subfields one by one', async () => {
    const h = await setup();
    const code = await create(h, {
      type: 'landing_page',
      destination_url: undefined,
      campaign_name: 'x',
      landing_page: { title: 'Spring', description: 'Fresh', cta_text: 'Shop' },
    });
    const res = await h.call('PATCH', `/qr-codes/${code.code}`, {
      campaign_name: null,
      landing_page: { description: null, cta_url: 'https://shop.example.com/' },
    });
    expect(res.body.campaign_name).toBeNull();
    expect(res.body.landing_page).toEqual({ title: 'Spring', cta_text: 'Shop', cta_url: 'https://shop.example.com/' });
    const noTitle = await h.call('PATCH', `/qr-codes/${code.code}`, { landing_page: { title: null } });
    expect(noTitle.status).toBe(400);
    expect(noTitle.body.error.param).toBe('landing_page.title');
    expect((await h.call('PATCH', `/qr-codes/${code.code}`, { status: 'deactivated' })).body.error.param).toBe('status');
  });
});

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
