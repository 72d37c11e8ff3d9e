import type { Db } from './types';
import { postgresDb } from './postgres';
import { pgliteDb } from './pglite';

export type { Db } from './types';

/** DATABASE_URL selects a real PostgreSQL server; otherwise the embedded database in dataDir. */
export async function openDb(opts: { databaseUrl?: string; dataDir?: string; poolSize?: number }): Promise<Db> {
  if (opts.databaseUrl) return postgresDb(opts.databaseUrl, opts.poolSize);
  return pgliteDb(opts.dataDir);
}
