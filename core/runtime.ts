import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config';
import { openDb, refreshStatistics, type Db } from './db';
import { lockDataDir } from './db/lock';
import { migrate } from './db/migrate';
import { findSeed } from './db/seed';
import { waitForDatabase } from './db/wait';
import { allMigrations } from './migrations';
import { installJobs, type JobDef } from './jobs/run';
import type { Registry } from './plugins/registry';
import type { Clock } from './clock';

/**
 * What the composition root (core/cli.ts) hands the core: the plugins and the jobs. The core never
 * imports plugins/ or workers/ itself, so tests compose their own.
 */
import type { PageRoute } from './http/app';

export interface Composition {
  registry: Registry;
  jobs: (db: Db, clock: Clock) => JobDef[];
  /** Pages served beside the API (the admin console), made once per server. */
  pages?: () => PageRoute[];
}

/** Closes the pool before passing the error on (a pool left open keeps the process alive). */
const closing = (db: Db) => async (e: unknown) => {
  await db.close().catch(() => {});
  throw e;
};

/** An open, migrated database plus how to let go of it (and of the data directory lock). */
export interface Opened {
  db: Db;
  close: () => Promise<void>;
}

export async function openMigrated(
  config: Config,
  app: Composition,
  log: (line: string) => void = (l) => console.error(l),
  opts: { statistics?: 'now' | 'later' } = {},
): Promise<Opened> {
  const unlock = config.databaseUrl ? () => {} : lockDataDir(config.dataDir);
  try {
    const migrations = allMigrations(app.registry.plugins);
    const db = await openDb({
      databaseUrl: config.databaseUrl,
      dataDir: config.databaseUrl ? undefined : join(config.dataDir, 'pg'),
      poolSize: config.poolSize,
      // A new embedded database starts from the archive made with these very migrations, if any.
      seed: () => findSeed(migrations),
    });
    if (config.databaseUrl) await waitForDatabase(db, { url: config.databaseUrl, waitMs: config.dbWaitMs, log }).catch(closing(db));
    await migrate(db, migrations);
    // `later`: the server answers first and the planner's statistics follow (their ANALYZE takes
    // a third of a second of CPU); the last run's statistics, kept in the data folder, serve till then.
    if (opts.statistics !== 'later') await refreshStatistics(db);
    // pg-boss's schema and the queues: writes enqueue webhook deliveries in any role.
    await installJobs(db, app.jobs(db, config.clock));
    return {
      db,
      close: async () => {
        await db.close();
        unlock();
      },
    };
  } catch (e) {
    unlock();
    throw e;
  }
}

/**
 * The admin token: SVC_ADMIN_TOKEN, or on the embedded default one generated on first start and
 * kept in the data directory (mode 0600). `created` tells the caller to print it once.
 */
export function adminToken(config: Config): { token?: string; created: boolean; file?: string } {
  if (config.adminToken) return { token: config.adminToken, created: false };
  if (config.databaseUrl) return { created: false };
  const file = join(config.dataDir, 'admin-token');
  if (existsSync(file)) return { token: readFileSync(file, 'utf8').trim(), created: false, file };
  mkdirSync(config.dataDir, { recursive: true });
  const token = `svc_admin_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('hex')}`;
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return { token, created: true, file };
}
