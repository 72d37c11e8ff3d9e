import { closeSync, existsSync, openSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Extension } from '@electric-sql/pglite';
// Embedded into the compiled binary as a file, like the database's own assets (pglite.ts).
import trgmBundle from '../../node_modules/@electric-sql/pglite/dist/pg_trgm.tar.gz' with { type: 'file' };

/**
 * PostgreSQL contrib extensions loaded into the embedded database, so features that use them
 * behave as on a PostgreSQL server: pg_trgm makes the `q` (substring) filters of lists
 * index-backed. A migration still installs it with CREATE EXTENSION, inside a DO block that
 * carries on without it (servers without contrib, roles without the right): those filters then
 * scan the store's rows, correct but slower.
 */
export async function pgliteExtensions(): Promise<Record<string, Extension>> {
  const bundle = await openablePath(trgmBundle, 'pg_trgm.tar.gz');
  if (!bundle) return {};
  return { pg_trgm: { name: 'pg_trgm', setup: async () => ({ bundlePath: pathToFileURL(bundle) }) } };
}

/**
 * PGlite reads a bundle with fs streams, which cannot open a file embedded in the compiled binary
 * (`/$bunfs/...`, readable only whole). Such a file is copied once to the temp directory, named by
 * its content, written aside and renamed so concurrent starts never see half a file. undefined
 * when that is impossible (read-only temp directory): the extension is then left out.
 */
async function openablePath(path: string, name: string): Promise<string | undefined> {
  try {
    closeSync(openSync(path, 'r'));
    return path;
  } catch {
    try {
      const bytes = new Uint8Array(await Bun.file(path).arrayBuffer());
      const copy = join(tmpdir(), `svc-${Bun.hash(bytes).toString(16)}-${name}`);
      if (!existsSync(copy) || statSync(copy).size !== bytes.length) {
        const aside = `${copy}.${process.pid}.tmp`;
        writeFileSync(aside, bytes);
        renameSync(aside, copy);
      }
      return copy;
    } catch {
      return undefined;
    }
  }
}
