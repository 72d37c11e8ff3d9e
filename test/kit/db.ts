import { openDb, type Db } from '../../core/db';
import { migrate } from '../../core/db/migrate';
import { allMigrations } from '../../core/migrations';
import { installJobs } from '../../core/jobs/run';
import type { PluginDef } from '../../core/plugins/contract';
import { createRegistry } from '../../core/plugins/registry';
import { allJobs } from '../../workers';
import { systemClock } from '../../core/clock';

/**
 * The test database: an in-memory PGlite, or, when DATABASE_URL is set, a throwaway database
 * created on that server and dropped when the run ends. One per test process; tests isolate
 * themselves by creating their own store. It starts with the core's tables only: each `setup`
 * migrates the plugins it lists (a core test needs no plugin's tables).
 */
const g = globalThis as any;

export const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';

/** Creates a fresh empty database on the DATABASE_URL server and returns its URL. */
export async function createThrowawayDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.DATABASE_URL!;
  const name = `svc_test_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = new Bun.SQL(base, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.close();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = new Bun.SQL(base, { max: 1 });
      await a.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.close();
    },
  };
}

/** The shared test database, migrated for these plugins (and the core's job queues installed). */
export async function sharedDb(plugins: readonly PluginDef[] = []): Promise<Db> {
  g.__svcTestDb ??= (async () => {
    let db: Db;
    if (process.env.DATABASE_URL) {
      const { url, drop } = await createThrowawayDatabase();
      g.__svcDropDb = drop;
      g.__svcTestDbUrl = url;
      db = await openDb({ databaseUrl: url, poolSize: 8 });
    } else {
      db = await openDb({});
    }
    await migrate(db, allMigrations([]));
    await installJobs(db, allJobs(db, systemClock, createRegistry([])));
    return db;
  })();
  const db: Db = await g.__svcTestDb;
  await migrateFor(db, plugins);
  return db;
}

// Plugins already migrated in this process: a setup per test must not pay for the migrator's lock.
const migrated = new Set<string>();
async function migrateFor(db: Db, plugins: readonly PluginDef[]) {
  const missing = plugins.filter((p) => !migrated.has(p.name));
  if (!missing.length) return;
  const registry = createRegistry([...plugins]);
  await migrate(db, allMigrations(plugins));
  await installJobs(
    db,
    allJobs(db, systemClock, registry).filter((j) => missing.some((p) => j.queue.startsWith(`${p.name}.`))),
  );
  for (const p of missing) migrated.add(p.name);
}

/** The shared test database's URL on PostgreSQL (for child processes); undefined on PGlite. */
export async function sharedDbUrl(): Promise<string | undefined> {
  await sharedDb();
  return g.__svcTestDbUrl;
}

export async function closeSharedDb() {
  if (!g.__svcTestDb) return;
  const db = await g.__svcTestDb;
  await db.close();
  if (g.__svcDropDb) await g.__svcDropDb();
}

/** Thrown to roll a scratch schema's rehearsal back once it has been checked. */
class Rollback extends Error {}

/**
 * A database history of its own without a second database (upgrade tests): a schema of its own,
 * first on the search_path, inside one transaction rolled back at the end (DDL is transactional),
 * so the shared test database is left as it was. Opening a fresh embedded database costs seconds.
 */
export async function inScratchSchema(fn: (tx: Db) => Promise<void>) {
  const db = await sharedDb();
  const schema = `scratch_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await db
    .transaction(async (tx) => {
      await tx.exec(`CREATE SCHEMA ${schema}; SET LOCAL search_path = ${schema}`);
      await fn(tx);
      throw new Rollback();
    })
    .catch((e) => {
      if (!(e instanceof Rollback)) throw e;
    });
}
