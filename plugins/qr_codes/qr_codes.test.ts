import { beforeAll, describe, expect, test } from 'bun:test';
import { product, setup } from '../../test/kit/setup';
import { create, custom, scan, uniqueCode } from '../../test/kit/qr';

/** QR codes (issue 29): codes, validation and the state machine (scans and analytics: scans.test.ts). */

beforeAll(() => setup(), 60_000); // migrations: not within the first test's time limit

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
