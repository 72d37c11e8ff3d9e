import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { openDb, type Db } from './index';
import { checksumOf, migrate, MigrationChanged, type Migration } from './migrate';
import { allMigrations } from '../migrations';
import { createThrowawayDatabase } from '../../test/kit/db';

/**
 * Issue 36: a migration edited after it was applied is refused at start, naming its file, instead
 * of being skipped without a word. Each test has a database of its own (PGlite, or a throwaway one
 * on the DATABASE_URL server).
 */
const opened: { db: Db; drop?: () => Promise<void> }[] = [];
async function freshDb(): Promise<Db> {
  if (!process.env.DATABASE_URL) {
    const db = await openDb({});
    opened.push({ db });
    return db;
  }
  const { url, drop } = await createThrowawayDatabase();
  const db = await openDb({ databaseUrl: url, poolSize: 2 });
  opened.push({ db, drop });
  return db;
}
afterAll(async () => {
  for (const o of opened) {
    await o.db.close();
    await o.drop?.();
  }
});

const checksums = core014();
function core014(): Migration {
  return allMigrations([]).find((m) => m.id === 'core/014_migration_checksums')!;
}
const notes = (sql = 'CREATE TABLE notes_demo (id int)'): Migration => ({ id: 'notes/001_init', sql });
const more: Migration = { id: 'notes/002_more', sql: 'ALTER TABLE notes_demo ADD COLUMN body text' };

describe('migration checksums', () => {
  let db: Db;
  beforeAll(async () => {
    db = await freshDb();
  }, 60_000);

  test('each applied migration is recorded with the SHA-256 of its text', async () => {
    expect(await migrate(db, [checksums, notes()])).toEqual(['core/014_migration_checksums', 'notes/001_init']);
    const rows = await db.query<{ id: string; checksum: string }>('SELECT id, checksum FROM svc_migrations ORDER BY id');
    expect(rows).toEqual([
      { id: 'core/014_migration_checksums', checksum: checksumOf(checksums.sql) },
      { id: 'notes/001_init', checksum: checksumOf(notes().sql) },
    ]);
    expect(await migrate(db, [checksums, notes()])).toEqual([]);
  });

  test('an applied migration that changed is refused, naming its file, and nothing after it runs', async () => {
    const edited = notes('CREATE TABLE notes_demo (id int, extra text)');
    const err = await migrate(db, [checksums, edited, more]).catch((e) => e);
    expect(err).toBeInstanceOf(MigrationChanged);
    expect(err.message).toContain('plugins/notes/migrations/001_init.sql');
    expect(err.message).toContain('put the change in a new migration');
    const ids = (await db.query<{ id: string }>('SELECT id FROM svc_migrations')).map((r) => r.id);
    expect(ids).not.toContain('notes/002_more');
    // Restored, it starts again and the new one runs.
    expect(await migrate(db, [checksums, notes(), more])).toEqual(['notes/002_more']);
  });
});

test('a database from before checksums gets them filled on first start, then guarded', async () => {
  const db = await freshDb();
  // As svc left it before core/014: the table without the column, a migration applied.
  await db.exec('CREATE TABLE svc_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  await db.exec(notes().sql);
  await db.query('INSERT INTO svc_migrations (id) VALUES ($1)', ['notes/001_init']);
  expect(await migrate(db, [notes(), checksums])).toEqual(['core/014_migration_checksums']);
  const row = await db.query<{ checksum: string }>(`SELECT checksum FROM svc_migrations WHERE id = 'notes/001_init'`);
  expect(row[0].checksum).toBe(checksumOf(notes().sql));
  const err = await migrate(db, [notes('CREATE TABLE notes_demo (id bigint)'), checksums]).catch((e) => e);
  expect(err?.message).toContain('plugins/notes/migrations/001_init.sql');
}, 60_000);

test('core migrations are named by their path under core/db/migrations', async () => {
  const db = await freshDb();
  await migrate(db, [checksums]);
  const err = await migrate(db, [{ ...checksums, sql: checksums.sql + '\n-- edited' }]).catch((e) => e);
  expect(err?.message).toContain('core/db/migrations/014_migration_checksums.sql');
}, 60_000);
