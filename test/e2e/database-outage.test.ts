/**
 * Issue 36, database outages, against a PostgreSQL server this file starts and stops itself
 * (test/kit/private-postgres.ts; never the shared one): `svc serve` started with the database down
 * waits for it, saying what it waits for, then serves; past SVC_DB_WAIT_S it exits non-zero with
 * that message; while the database is away requests answer 503 database_unavailable with
 * Retry-After, and serve again once it is back. The embedded database (PGlite) lives inside the
 * process and cannot be away, so this file runs whatever the backend of the suite.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { loadConfig } from '../../core/config';
import { describeDatabase } from '../../core/db/wait';
import { privatePostgres, type PrivatePostgres } from '../kit/private-postgres';
import { killAll, serveProcess } from '../kit/serve-process';

const ADMIN = 'outage-test-admin-token-0123456789';
const PASSWORD = 'never-print-this-password';

let pg: PrivatePostgres;
let dbUrl: string;

beforeAll(async () => {
  pg = await privatePostgres();
  const admin = new Bun.SQL(pg.url, { max: 1 });
  await admin.unsafe('CREATE DATABASE svc_outage');
  await admin.close();
  // Trust authentication ignores the password: it is here to show it never reaches the output.
  dbUrl = `postgres://postgres:${PASSWORD}@127.0.0.1:${pg.port}/svc_outage`;
}, 120_000);

afterAll(async () => {
  killAll();
  await pg?.destroy();
});

const launch = (env: Record<string, string>) =>
  serveProcess({ DATABASE_URL: dbUrl, SVC_ADMIN_TOKEN: ADMIN, SVC_SECRET_KEY: Buffer.alloc(32, 3).toString('base64'), ...env });

async function eventually(ok: () => boolean | Promise<boolean>, what: string, ms: number) {
  const end = performance.now() + ms;
  while (!(await ok())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

describe('starting with the database down', () => {
  test('past SVC_DB_WAIT_S it exits non-zero, naming host, port and database (never the password)', async () => {
    await pg.stop();
    const started = performance.now();
    const { proc, out } = launch({ SVC_DB_WAIT_S: '3' });
    const code = await proc.exited;
    const seconds = (performance.now() - started) / 1000;
    await Bun.sleep(50);
    expect(code).not.toBe(0);
    expect(seconds).toBeGreaterThanOrEqual(3);
    expect(out.log).toContain(`waiting for the database at 127.0.0.1:${pg.port}/svc_outage`);
    expect(out.log).toContain(`svc: The database at 127.0.0.1:${pg.port}/svc_outage is unreachable`);
    expect(out.log).toContain('SVC_DB_WAIT_S');
    expect(out.log).not.toContain(PASSWORD);
  }, 60_000);

  test('it waits, saying so every few seconds, and serves once the database is up; an outage later is 503 with Retry-After', async () => {
    await pg.stop().catch(() => {});
    const { proc, out } = launch({ SVC_DB_WAIT_S: '60' });
    await eventually(() => out.log.includes('waiting for the database'), 'the first waiting line', 30_000);
    await Bun.sleep(6000); // long enough for a second line
    expect(out.log.match(/waiting for the database at 127\.0\.0\.1:\d+\/svc_outage/g)!.length).toBeGreaterThanOrEqual(2);
    expect(proc.exitCode).toBeNull();
    await pg.start();
    // Started: listening, and the workers (role all) running; an outage in the middle of start-up
    // is a failed start (exit 1, for the supervisor to restart), not what this test is about.
    await eventually(() => /listening on http:\/\/[^\s:]+:(\d+)/.test(out.log) && out.log.includes('workers: '), 'the server to start', 90_000);
    expect(out.log).not.toContain(PASSWORD);
    const base = `http://127.0.0.1:${/listening on http:\/\/[^\s:]+:(\d+)/.exec(out.log)![1]}`;

    const made = await fetch(`${base}/v1/stores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Outage shop', plan: 'pro' }),
    });
    expect(made.status).toBe(201);
    const { store, api_key } = (await made.json()) as any;
    const products = () => fetch(`${base}/v1/stores/${store.id}/products`, { headers: { 'x-api-key': api_key.key } });
    expect((await products()).status).toBe(200);

    await pg.stop();
    const during = await products().catch((e) => {
      throw new Error(`${e.message}; exit ${proc.exitCode}; log:\n${out.log.slice(-3000)}`);
    });
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toBe('5');
    const body = (await during.json()) as any;
    expect(body.error).toMatchObject({ type: 'api_error', code: 'database_unavailable' });
    expect(body.error.request_id).toBe(during.headers.get('x-request-id')!);
    // A write too, and MCP.
    const write = await fetch(`${base}/v1/stores/${store.id}/products`, {
      method: 'POST',
      headers: { 'x-api-key': api_key.key, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Lamp', sku: 'L-1', type: 'simple', status: 'active', pricing_data: { retail: 5 } }),
    });
    expect(write.status).toBe(503);
    const mcp = await fetch(`${base}/agent/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': api_key.key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    expect(mcp.status).toBe(503);
    expect(mcp.headers.get('retry-after')).toBe('5');

    await pg.start();
    await eventually(async () => (await products()).status === 200, 'requests to succeed again', 30_000);
    expect(proc.exitCode).toBeNull();
    expect(out.log).not.toContain(PASSWORD);
  }, 180_000);
});

test('SVC_DB_WAIT_S: 30 seconds unless set; anything but seconds is a configuration error', () => {
  expect(loadConfig({}).dbWaitMs).toBe(30_000);
  expect(loadConfig({ SVC_DB_WAIT_S: '0' }).dbWaitMs).toBe(0);
  expect(loadConfig({ SVC_DB_WAIT_S: '2.5' }).dbWaitMs).toBe(2500);
  for (const bad of ['soon', '-1', '10s']) expect(() => loadConfig({ SVC_DB_WAIT_S: bad })).toThrow(`Invalid SVC_DB_WAIT_S '${bad}'`);
});

test('what the server waits for is named by host, port and database, never user or password', () => {
  expect(describeDatabase('postgres://app:s3cret@db.internal:6543/shop?sslmode=require')).toBe('db.internal:6543/shop');
  expect(describeDatabase('postgres://app:s3cret@db.internal/shop')).toBe('db.internal:5432/shop');
  expect(describeDatabase('not a url')).not.toContain('not a url');
});
