/**
 * Issue 29: scans of codes without max_scans wait in memory for their batch
 * (plugins/qr_codes/scan-buffer.ts). A real `svc serve` process, told to hold them for a minute,
 * is stopped with SIGTERM right after the scans: it writes them before it exits, so a new process
 * on the same database counts every one.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../core/db';
import { backend, sharedDbUrl } from '../kit/db';
import { killAll, serveProcess } from '../kit/serve-process';

const ADMIN = 'qr-shutdown-test-admin-token-0123456789';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

/** The shared test database on PostgreSQL; undefined on the embedded backend (a data directory then). */
let dbUrl: string | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-qr-shutdown-'));

beforeAll(async () => {
  // The embedded backend needs no test database here: the server makes its own in dataDir.
  if (backend === 'postgres') dbUrl = await sharedDbUrl();
}, 60_000);

afterAll(killAll);

const launch = (env: Record<string, string> = {}) => serveProcess({ DATABASE_URL: dbUrl, SVC_DATA_DIR: dataDir, SVC_ADMIN_TOKEN: ADMIN, ...env });

test('scans answered just before SIGTERM are written before the process exits, and counted after a restart', async () => {
  const first = launch({ SVC_QR_SCAN_FLUSH_MS: '60000' });
  const url = await first.listening();
  const created: any = await (
    await fetch(`${url}/v1/stores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'QR shutdown shop', plan: 'pro' }),
    })
  ).json();
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${url}/v1/stores/${created.store.id}${path}`, {
      method,
      headers: { 'x-api-key': created.api_key.key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const code: any = await (
    await api('POST', '/qr-codes', {
      code: `sigterm-${crypto.randomUUID().slice(0, 8)}`,
      type: 'custom',
      destination_url: 'https://shop.example.com/',
    })
  ).json();

  // 25 scans from five devices, all answered at once.
  const answers = await Promise.all(
    Array.from({ length: 25 }, (_, i) =>
      fetch(`${url}/s/${code.code}`, { redirect: 'manual', headers: { 'user-agent': `${IPHONE} device/${i % 5}` } }),
    ),
  );
  expect(answers.map((r) => r.status)).toEqual(Array(25).fill(302));
  if (dbUrl) {
    // They are still in the process's memory (so this test shows the shutdown writing them).
    const db = await openDb({ databaseUrl: dbUrl, poolSize: 1 });
    const [{ n }] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM qr_scans WHERE code_id = $1', [code.id]);
    await db.close();
    expect(n).toBe(0);
  }

  first.proc.kill('SIGTERM');
  expect(await first.proc.exited).toBe(0);
  expect(first.out.log).not.toContain('could not be written');

  const second = launch();
  const again = await second.listening();
  const read = (path: string) =>
    fetch(`${again}/v1/stores/${created.store.id}${path}`, { headers: { 'x-api-key': created.api_key.key } }).then((r) => r.json() as any);
  expect((await read(`/qr-codes/${code.code}`)).total_scans).toBe(25);
  expect(await read(`/qr-codes/${code.code}/analytics`)).toMatchObject({ total_scans: 25, unique_scans: 5, by_device: { iOS: 25 } });
  second.proc.kill('SIGTERM');
  expect(await second.proc.exited).toBe(0);
}, 300_000);
