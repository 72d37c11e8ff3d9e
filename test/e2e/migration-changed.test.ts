/**
 * Issue 36, as an operator meets it: a database on which an applied migration's recorded checksum
 * no longer matches the code (as when a released migration's text was edited) makes `svc serve`
 * exit 1 before it listens, naming the migration's file; `svc migrate` refuses the same way. On the
 * embedded database (a data directory of its own) or a throwaway PostgreSQL database.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../core/db';
import { backend, createThrowawayDatabase } from '../kit/db';
import { killAll, runSvc, serveProcess } from '../kit/serve-process';

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  killAll();
  for (const c of cleanups) await c();
});

async function ownDatabase(): Promise<{ env: Record<string, string | undefined>; open: () => ReturnType<typeof openDb> }> {
  if (backend === 'postgres') {
    const { url, drop } = await createThrowawayDatabase();
    cleanups.push(drop);
    return { env: { DATABASE_URL: url }, open: () => openDb({ databaseUrl: url, poolSize: 1 }) };
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return { env: { SVC_DATA_DIR: dataDir, DATABASE_URL: undefined }, open: () => openDb({ dataDir: join(dataDir, 'pg') }) };
}

test('an applied migration that changed stops serve (and migrate) with exit 1, naming its file', async () => {
  const { env, open } = await ownDatabase();
  const first = await runSvc(['migrate'], env);
  expect(first.code).toBe(0);

  // What an edited file looks like from the database's side: the checksum recorded when it ran differs.
  const db = await open();
  const [row] = await db.query<{ id: string }>(
    `UPDATE svc_migrations SET checksum = repeat('0', 64) WHERE id = 'products/002_currency_minor_units' RETURNING id`,
  );
  await db.close();
  expect(row?.id).toBe('products/002_currency_minor_units');

  const named = 'Applied migration changed since it ran: plugins/products/migrations/002_currency_minor_units.sql';
  const again = await runSvc(['migrate'], env);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain(`svc: ${named}`);

  const serve = serveProcess({ ...env, SVC_ADMIN_TOKEN: 'migration-test-admin-token-0123456789' });
  const code = await serve.proc.exited;
  await Bun.sleep(50); // the last of its output
  expect(code).toBe(1);
  expect(serve.out.log).toContain(`svc: ${named}`);
  expect(serve.out.log).not.toMatch(/listening on/);
}, 120_000);
