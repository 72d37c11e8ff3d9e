import type { Db } from './types';
import { postgresDb } from './postgres';
import type { PgliteOptions } from './pglite';

export type { Db } from './types';

/** DATABASE_URL selects a real PostgreSQL server; otherwise the embedded database in dataDir. */
export async function openDb(opts: { databaseUrl?: string; dataDir?: string; poolSize?: number } & PgliteOptions): Promise<Db> {
  if (opts.databaseUrl) return postgresDb(opts.databaseUrl, opts.poolSize);
  // Loaded only for the embedded database: a server on PostgreSQL never loads PGlite (docs/footprint.md).
  const { pgliteDb } = await import('./pglite');
  return pgliteDb(opts.dataDir, { seed: opts.seed });
}

/**
 * The embedded database has no autovacuum, so without this its planner never learns how many rows
 * a table holds (and, for one, sorts a whole store for a product q page: plugins/products/search.ts).
 * Run at start-up and by the maintenance job; PostgreSQL's autovacuum keeps these itself.
 */
export async function refreshStatistics(db: Db) {
  if (db.kind === 'pglite') await db.exec('ANALYZE');
}
