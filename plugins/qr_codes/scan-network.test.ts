import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildMmdb, city } from '../../test/kit/mmdb';
import { setup, type Harness } from '../../test/kit/setup';

/**
 * Scans over a real socket on 127.0.0.1 (the peer address, HEAD as Bun serves it): the scan cap
 * under concurrency, X-Forwarded-For only behind SVC_TRUSTED_PROXIES, cities from an mmdb file.
 */

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const PIXEL = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36';

const dir = mkdtempSync(join(tmpdir(), 'svc-geoip-'));
const mmdb = join(dir, 'city.mmdb');
writeFileSync(
  mmdb,
  buildMmdb({
    '81.2.69.0/24': city('London'),
    '203.0.113.0/24': city('Sydney', 'AU'),
    '198.51.100.7/32': city('Zürich', 'CH'),
  }),
);

interface Served {
  h: Harness;
  origin: string;
  stop: () => void;
}
const servers: Served[] = [];

async function serve(env: Record<string, string>): Promise<Served> {
  const h = await setup({ env });
  const listening = h.app.listen({ port: 0, hostname: '127.0.0.1' });
  const s = { h, origin: `http://127.0.0.1:${listening.server!.port}`, stop: () => listening.stop() };
  servers.push(s);
  return s;
}

afterAll(() => servers.forEach((s) => s.stop()));

let proxied: Served;
let direct: Served;
beforeAll(async () => {
  proxied = await serve({ SVC_GEOIP_DB: mmdb, SVC_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' });
  direct = await serve({ SVC_GEOIP_DB: mmdb });
}, 60_000);

async function newCode(s: Served, over: Record<string, unknown> = {}) {
  const res = await s.h.call('POST', '/qr-codes', {
    code: `net-${crypto.randomUUID().slice(0, 8)}`,
    type: 'custom',
    destination_url: 'https://shop.example.com/',
    ...over,
  });
  expect(res.status).toBe(201);
  return res.body;
}

const scan = (s: Served, code: string, headers: Record<string, string> = {}, method = 'GET') =>
  fetch(`${s.origin}/s/${code}`, { method, redirect: 'manual', headers: { 'user-agent': IPHONE, ...headers } });

test('50 concurrent scans of a code with max_scans 10: exactly 10 redirects, the rest 410', async () => {
  const code = await newCode(proxied, { max_scans: 10 });
  const answers = await Promise.all(Array.from({ length: 50 }, () => scan(proxied, code.code)));
  const statuses = answers.map((r) => r.status);
  expect(statuses.filter((s) => s === 302)).toHaveLength(10);
  expect(statuses.filter((s) => s === 410)).toHaveLength(40);
  expect((await proxied.h.call('GET', `/qr-codes/${code.code}`)).body).toMatchObject({ status: 'maxed_out', total_scans: 10, remaining: 0 });
  const [{ n }] = await proxied.h.db.query('SELECT count(*)::int AS n FROM qr_scans WHERE code_id = $1', [code.id]);
  expect(n).toBe(10);
}, 60_000);

test('HEAD is answered like GET but not counted', async () => {
  const code = await newCode(proxied, { max_scans: 1 });
  const head = await scan(proxied, code.code, {}, 'HEAD');
  expect(head.status).toBe(302);
  expect(head.headers.get('location')).toBe('https://shop.example.com/');
  expect((await proxied.h.call('GET', `/qr-codes/${code.code}`)).body.total_scans).toBe(0);
});

describe('cities', () => {
  test('behind a trusted proxy, the client is the rightmost untrusted X-Forwarded-For hop', async () => {
    const code = await newCode(proxied, { campaign_name: 'geo' });
    await scan(proxied, code.code, { 'x-forwarded-for': '81.2.69.142' });
    await scan(proxied, code.code, { 'x-forwarded-for': '81.2.69.160', 'user-agent': PIXEL });
    // A client-written first hop is ignored: the proxy appended the real one, then 10.1.2.3 relayed it.
    await scan(proxied, code.code, { 'x-forwarded-for': '81.2.69.1, 203.0.113.9, 10.1.2.3' });
    await scan(proxied, code.code, { 'x-forwarded-for': '198.51.100.7' });
    await scan(proxied, code.code, { 'x-forwarded-for': '192.0.2.1' }); // not in the database
    const stats = (await proxied.h.call('GET', `/qr-codes/${code.code}/analytics?from=2026-04-01&to=2026-04-01`)).body;
    expect(stats.by_city).toEqual({ London: 2, Sydney: 1, Zürich: 1, unknown: 1 });
    expect(stats.by_device).toEqual({ iOS: 4, Android: 1 });
    expect(stats.unique_scans).toBe(5);
  });

  test('without SVC_TRUSTED_PROXIES, X-Forwarded-For is ignored: the peer (127.0.0.1) has no city', async () => {
    const code = await newCode(direct);
    await scan(direct, code.code, { 'x-forwarded-for': '81.2.69.142' });
    const stats = (await direct.h.call('GET', `/qr-codes/${code.code}/analytics?from=2026-04-01&to=2026-04-01`)).body;
    expect(stats.by_city).toEqual({ unknown: 1 });
  });

  test('raw IP addresses are never stored', async () => {
    const code = await newCode(proxied);
    await scan(proxied, code.code, { 'x-forwarded-for': '81.2.69.142' });
    // Reading the code writes the store's scans still waiting for their batch.
    expect((await proxied.h.call('GET', `/qr-codes/${code.code}`)).body.total_scans).toBe(1);
    const rows = await proxied.h.db.query('SELECT * FROM qr_scans WHERE code_id = $1', [code.id]);
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? v.toString() : v));
    expect(text).not.toContain('81.2.69');
    expect(text).not.toContain('127.0.0.1');
    expect(rows[0].city).toBe('London');
  });
});
