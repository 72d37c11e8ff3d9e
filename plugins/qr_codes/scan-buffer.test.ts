import { beforeAll, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';

/**
 * Scans of codes without max_scans are answered at once and written in batches (scan-buffer.ts):
 * every one still counts, reads see them, and a change to a code counts them exactly once.
 */

beforeAll(() => setup(), 60_000); // migrations: not within the first test's time limit

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const DAY = '?from=2026-04-01&to=2026-04-01';

async function create(h: Harness, over: Record<string, unknown> = {}) {
  const res = await h.call('POST', '/qr-codes', {
    code: `b-${crypto.randomUUID().slice(0, 8)}`,
    type: 'custom',
    destination_url: 'https://shop.example.com/spring',
    ...over,
  });
  expect(res.status).toBe(201);
  return res.body;
}

const scan = (h: Harness, code: string, ua = IPHONE) => h.raw('GET', `/s/${code}`, undefined, { 'x-api-key': '', 'user-agent': ua });
const scanIdOf = (res: { headers: Headers }) => new URL(res.headers.get('location')!).searchParams.get('svc_scan')!;
const countScans = async (h: Harness, codeId: string) =>
  (await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM qr_scans WHERE code_id = $1', [codeId]))[0].n;

test('1,000 parallel scans of a code without max_scans all redirect and all count, each once', async () => {
  const h = await setup();
  const code = await create(h, { campaign_name: 'parallel' });
  // Ten devices (the fingerprint is a hash of address and User-Agent), a hundred scans each.
  const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => scan(h, code.code, `${IPHONE} device/${i % 10}`)));
  expect(answers.every((r) => r.status === 302)).toBe(true);
  const ids = new Set(answers.map(scanIdOf));
  expect(ids.size).toBe(1000);

  const stats = (await h.call('GET', `/qr-codes/${code.code}/analytics${DAY}`)).body;
  expect(stats).toMatchObject({ total_scans: 1000, unique_scans: 10, by_device: { iOS: 1000 } });
  expect(stats.by_day).toEqual([{ date: '2026-04-01', scans: 1000 }]);
  expect((await h.call('GET', `/qr-codes/${code.code}`)).body.total_scans).toBe(1000);
  expect((await h.call('GET', `/qr-campaigns/parallel/analytics${DAY}`)).body.total_scans).toBe(1000);
  // Every redirect's svc_scan names a scan that was written.
  const written = await h.db.query<{ id: string }>('SELECT id FROM qr_scans WHERE code_id = $1', [code.id]);
  expect(new Set(written.map((r) => r.id))).toEqual(ids);
}, 60_000);

test('reads see scans at once: the code, the list and the analytics', async () => {
  const h = await setup();
  const code = await create(h);
  await scan(h, code.code);
  expect((await h.call('GET', '/qr-codes')).body.data.find((c: any) => c.code === code.code).total_scans).toBe(1);
  await scan(h, code.code);
  expect((await h.call('GET', `/qr-codes/${code.code}`)).body.total_scans).toBe(2);
  await scan(h, code.code);
  expect((await h.call('GET', `/qr-codes/${code.code}/analytics${DAY}`)).body).toMatchObject({ total_scans: 3, unique_scans: 1 });
});

test('a change to a code counts the scans it answered once, whether the change fails or commits', async () => {
  const h = await setup();
  const code = await create(h);
  for (let i = 0; i < 3; i++) expect((await scan(h, code.code)).status).toBe(302);
  // Refused after the code's row was locked (and its waiting scans written): rolled back, scans kept.
  const refused = await h.call('PATCH', `/qr-codes/${code.code}`, { brand_color: '#ffffff' });
  expect(refused.status).toBe(400);
  // Capping at the scans already made maxes the code out: the change saw all three.
  const capped = await h.call('PATCH', `/qr-codes/${code.code}`, { max_scans: 3 });
  expect(capped.body).toMatchObject({ status: 'maxed_out', total_scans: 3, remaining: 0 });
  expect((await scan(h, code.code)).status).toBe(410);
  // The batch that still held them skipped them: nothing is counted twice.
  expect((await h.call('GET', `/qr-codes/${code.code}`)).body.total_scans).toBe(3);
  expect((await h.call('GET', `/qr-codes/${code.code}/analytics${DAY}`)).body).toMatchObject({ total_scans: 3, unique_scans: 1 });
  expect(await countScans(h, code.id)).toBe(3);
});

test('deactivating right after scans: the scans answered before it still count', async () => {
  const h = await setup();
  const code = await create(h);
  await Promise.all([scan(h, code.code), scan(h, code.code)]);
  const off = await h.call('POST', `/qr-codes/${code.code}/deactivate`);
  expect(off.body).toMatchObject({ status: 'deactivated', total_scans: 2 });
  expect((await scan(h, code.code)).status).toBe(410);
  expect((await h.call('GET', `/qr-codes/${code.code}/analytics${DAY}`)).body.total_scans).toBe(2);
});
