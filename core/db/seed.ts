import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checksumOf, migrate, type Migration } from './migrate';
import type { Db } from './types';
import pglitePkg from '../../node_modules/@electric-sql/pglite/package.json';
import bossPkg from '../../node_modules/pg-boss/package.json';

/**
 * A new embedded database starts from an archive of a data directory in which initdb, every
 * migration and pg-boss's schema already ran (docs/footprint.md): unpacking it takes a fraction of
 * a second where initdb and the migrations take seconds and most of a gigabyte.
 *
 * An archive fits only the exact code it was made from, so its name carries a fingerprint of what
 * went into it; a start that finds none with the right name runs initdb and the migrations as
 * before. The compiled binary embeds the one made by `npm run build`; from source, `npm start` and
 * `npm test` make it beforehand (scripts/pglite-seed.ts) in node_modules/.cache/svc. A data folder
 * made from an archive is an ordinary one: later migrations apply on top, checked by checksum.
 */

/** Bumped when what an archive holds changes in a way the migrations do not show. */
const SEED_FORMAT = 1;
export const SEED_PREFIX = 'pglite-seed-';

/** Where source runs keep their archives (absent inside the compiled binary, which embeds its own). */
export const SEED_CACHE = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/svc');

export function seedFingerprint(migrations: readonly Migration[]): string {
  const h = new Bun.CryptoHasher('sha256');
  h.update(`${SEED_FORMAT}\0${pglitePkg.version}\0${bossPkg.version}\0`);
  for (const m of migrations) h.update(`${m.id}\0${checksumOf(m.sql)}\0`);
  return h.digest('hex').slice(0, 16);
}

export const seedFileName = (fingerprint: string) => `${SEED_PREFIX}${fingerprint}.tar.gz`;

/**
 * The archive for these migrations: embedded in the binary (bun renames an embedded file
 * `<name>.tar-<hash>.gz`, so it is found by its prefix), or in the source checkout's cache.
 */
export function findSeed(migrations: readonly Migration[]): Blob | undefined {
  const name = `${SEED_PREFIX}${seedFingerprint(migrations)}.tar`;
  const embedded = (Bun.embeddedFiles as (Blob & { name?: string })[]).find((f) => f.name?.startsWith(name));
  if (embedded) return embedded;
  const cached = join(SEED_CACHE, seedFileName(seedFingerprint(migrations)));
  return existsSync(cached) ? Bun.file(cached) : undefined;
}

/** Writes an archive into the cache (aside, then renamed: a concurrent reader never sees half), dropping older ones. */
export function writeSeed(migrations: readonly Migration[], bytes: Uint8Array, dir = SEED_CACHE): string {
  mkdirSync(dir, { recursive: true });
  const name = seedFileName(seedFingerprint(migrations));
  const file = join(dir, name);
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, bytes);
  renameSync(aside, file);
  for (const other of readdirSync(dir))
    if (other.startsWith(SEED_PREFIX) && other !== name && !other.endsWith('.tmp')) rmSync(join(dir, other), { force: true });
  return file;
}

/**
 * Makes an archive: a database made from nothing in memory, these migrations, then `more` (pg-boss's
 * schema and queues), checkpointed so that unpacking it replays no write-ahead log.
 */
export async function buildSeed(
  migrations: readonly Migration[],
  more: (db: Db) => Promise<void> = async () => {},
): Promise<Uint8Array<ArrayBuffer>> {
  const { pgliteDb } = await import('./pglite');
  const db = await pgliteDb();
  try {
    await migrate(db, [...migrations]);
    await more(db);
    await db.exec('CHECKPOINT');
    const pg = (db.native as { pglite: { dumpDataDir(c: 'gzip'): Promise<Blob> } }).pglite;
    return new Uint8Array(await (await pg.dumpDataDir('gzip')).arrayBuffer());
  } finally {
    await db.close();
  }
}
