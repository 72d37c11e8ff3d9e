/**
 * A new embedded database starts from the archive made at build time (core/db/seed.ts) instead of
 * initdb and every migration. It must be the same database a start that runs every migration
 * makes, and data folders made otherwise (an older release, an older archive) must keep working.
 * Embedded only: the archive is PGlite's; on PostgreSQL these run all the same.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgliteDb } from '../core/db/pglite';
import { migrate, checksumOf } from '../core/db/migrate';
import { buildSeed, findSeed, writeSeed } from '../core/db/seed';
import { allMigrations } from '../core/migrations';
import { installJobs } from '../core/jobs/run';
import { createRegistry } from '../core/plugins/registry';
import { systemClock } from '../core/clock';
import { loadConfig } from '../core/config';
import { openMigrated } from '../core/runtime';
import type { Db } from '../core/db/types';
import { pluginList } from '../plugins';
import { allJobs } from '../workers';

const registry = createRegistry(pluginList, { env: {} });
const migrations = allMigrations(registry.plugins);
const jobs = (db: Db) => allJobs(db, systemClock, registry);
const root = mkdtempSync(join(tmpdir(), 'svc-seed-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every object a migration can make, as comparable text (a function's body by digest). */
async function schemaOf(db: Db): Promise<string[]> {
  const rows = await db.query<{ k: string; v: string }>(`
    WITH own AS (SELECT oid FROM pg_namespace WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast'))
    SELECT 'column' AS k, table_schema || '.' || table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS v
      FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT 'index', schemaname || '.' || indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT 'constraint', conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace IN (SELECT oid FROM own)
    UNION ALL SELECT 'function', p.oid::regprocedure || ' ' || md5(pg_get_functiondef(p.oid)) FROM pg_proc p WHERE pronamespace IN (SELECT oid FROM own) AND prokind IN ('f', 'p')
    UNION ALL SELECT 'trigger', tgrelid::regclass || ' ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal
    UNION ALL SELECT 'extension', extname || ' ' || extversion FROM pg_extension
    UNION ALL SELECT 'sequence', schemaname || '.' || sequencename FROM pg_sequences
    UNION ALL SELECT 'view', schemaname || '.' || viewname || ' ' || md5(definition) FROM pg_views WHERE schemaname NOT IN ('pg_catalog', 'information_schema')
    UNION ALL SELECT 'type', typnamespace::regnamespace || '.' || typname FROM pg_type WHERE typnamespace IN (SELECT oid FROM own) AND typtype IN ('e', 'd', 'c')
    UNION ALL SELECT 'migration', id || ' ' || coalesce(checksum, 'none') FROM svc_migrations
    UNION ALL SELECT 'queue', name FROM pgboss.queue
    ORDER BY 1, 2`);
  return rows.map((r) => `${r.k} ${r.v}`);
}

/** What `svc serve` makes of the data folder: openMigrated, the archive when there is one for these migrations. */
async function served(dataDir: string): Promise<string[]> {
  const opened = await openMigrated(loadConfig({ SVC_DATA_DIR: dataDir }), { registry, jobs: (db) => jobs(db) }, () => {});
  try {
    return await schemaOf(opened.db);
  } finally {
    await opened.close();
  }
}

let byMigrations: string[];

describe('the embedded database made from the build-time archive', () => {
  test('is the database initdb and every migration make, with nothing left to apply', async () => {
    const made = await pgliteDb(join(root, 'migrated'));
    try {
      expect((await migrate(made, migrations)).length).toBe(migrations.length);
      await installJobs(made, jobs(made));
      byMigrations = await schemaOf(made);
    } finally {
      await made.close();
    }
    // `npm test` makes the archive beforehand (scripts/pglite-seed.ts); a bare `bun test` makes it here.
    if (!findSeed(migrations)) writeSeed(migrations, await buildSeed(migrations, async (db) => installJobs(db, jobs(db))));
    expect(findSeed(migrations)).toBeDefined();

    const archive = findSeed(migrations)!;
    const unpacked = await pgliteDb(join(root, 'archive', 'pg'), { seed: () => archive });
    try {
      expect(await migrate(unpacked, migrations)).toEqual([]);
    } finally {
      await unpacked.close();
    }
    const schema = await served(join(root, 'archive'));
    expect(schema.length).toBeGreaterThan(500);
    expect(schema.filter((l) => l.startsWith('migration ')).length).toBe(migrations.length);
    expect(schema).toEqual(byMigrations);
  }, 300_000);

  test('a data folder an older release made gets the newer migrations', async () => {
    const older = migrations.slice(0, migrations.length - 5);
    const dir = join(root, 'older');
    const db = await pgliteDb(join(dir, 'pg'));
    try {
      await migrate(db, older);
      await installJobs(db, jobs(db));
    } finally {
      await db.close();
    }
    expect(await served(dir)).toEqual(byMigrations);
  }, 300_000);

  test("an older release's archive gets the newer migrations on top, each with its checksum", async () => {
    const older = migrations.slice(0, migrations.length - 5);
    const archive = new Blob([await buildSeed(older, async (db) => installJobs(db, jobs(db)))]);
    // A start that died half-way through unpacking left a broken folder and its marker behind.
    const pg = join(root, 'older-archive', 'pg');
    mkdirSync(pg, { recursive: true });
    writeFileSync(join(pg, 'PG_VERSION'), '18\n');
    writeFileSync(`${pg}.unpacking`, '');
    const db = await pgliteDb(pg, { seed: () => archive });
    try {
      expect(existsSync(`${pg}.unpacking`)).toBe(false);
      expect(await migrate(db, migrations)).toEqual(migrations.slice(-5).map((m) => m.id));
      const recorded = await db.query<{ id: string; checksum: string }>('SELECT id, checksum FROM svc_migrations ORDER BY id');
      expect(recorded).toEqual(migrations.map((m) => ({ id: m.id, checksum: checksumOf(m.sql) })).sort((a, b) => (a.id < b.id ? -1 : 1)));
    } finally {
      await db.close();
    }
    expect(await served(join(root, 'older-archive'))).toEqual(byMigrations);
  }, 300_000);

  test('a start that died half-way through unpacking is redone, and a cut archive makes no database', async () => {
    const archive = findSeed(migrations)!;
    const pg = join(root, 'half', 'pg');
    // A cut archive fails the start and leaves only the folder beside, never a half database.
    const cut = new Blob([(await archive.bytes()).subarray(0, 2_000_000)]);
    await expect(pgliteDb(pg, { seed: () => cut })).rejects.toThrow();
    expect(existsSync(join(pg, 'PG_VERSION'))).toBe(false);
    // What a start killed while unpacking leaves: some files aside, the folder not there yet.
    mkdirSync(join(`${pg}.unpacking`, 'base'), { recursive: true });
    writeFileSync(join(`${pg}.unpacking`, 'PG_VERSION'), '18\n');
    const db = await pgliteDb(pg, { seed: () => archive });
    try {
      expect(existsSync(`${pg}.unpacking`)).toBe(false);
      expect(await migrate(db, migrations)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 300_000);

  test('an archive made from other migrations is not used', () => {
    const edited = migrations.map((m, i) => (i === migrations.length - 1 ? { ...m, sql: m.sql + '\n-- edited' } : m));
    expect(findSeed(migrations)).toBeDefined();
    expect(findSeed(edited)).toBeUndefined();
    expect(findSeed(migrations.slice(0, -1))).toBeUndefined();
  });
});
