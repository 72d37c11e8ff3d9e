import { existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Db } from './types';
import { pgliteExtensions } from './pglite-extensions';
import { untarGz } from './untar';
// Embedded into the compiled binary as files: the binary has no node_modules at run time.
import wasmPath from '../../node_modules/@electric-sql/pglite/dist/pglite.wasm' with { type: 'file' };
import initdbPath from '../../node_modules/@electric-sql/pglite/dist/initdb.wasm' with { type: 'file' };
import dataPath from '../../node_modules/@electric-sql/pglite/dist/pglite.data' with { type: 'file' };
import { tracing } from '../plugins/telemetry';

/**
 * Settings for a database that lives inside the one svc process (docs/footprint.md has the
 * measurements). PostgreSQL's defaults assume a server of its own: 128 MB of shared buffers,
 * which PGlite allocates and touches inside its WebAssembly heap at start whether or not the data
 * ever fills them. An embedded store is small and the operating system caches its files anyway,
 * so 16 MB of buffers; the per-operation caps are lowered to match, so one big sort or index build
 * cannot grow the heap (a WebAssembly heap never shrinks) far past what the server needs idle.
 * The initial heap stays PGlite's own 128 MB: pglite.wasm declares that as its minimum.
 */
export const PGLITE_SETTINGS: Record<string, string> = {
  shared_buffers: '16MB',
  wal_buffers: '512kB',
  temp_buffers: '2MB',
  work_mem: '4MB',
  maintenance_work_mem: '16MB',
};

let modules: Promise<{ pgliteWasmModule: WebAssembly.Module; fsBundle: Blob }> | undefined;
let initdb: Promise<WebAssembly.Module> | undefined;

/** initdb's module is compiled only for a database made from nothing (no archive, no data folder). */
function loadAssets() {
  modules ??= (async () => ({
    pgliteWasmModule: await WebAssembly.compile(await Bun.file(wasmPath).arrayBuffer()),
    fsBundle: Bun.file(dataPath),
  }))();
  return modules;
}
const loadInitdb = () =>
  (initdb ??= Bun.file(initdbPath)
    .arrayBuffer()
    .then((b) => WebAssembly.compile(b)));

export interface PgliteOptions {
  /**
   * An archive of a data directory to start a new one from (core/db/seed.ts), asked for only when
   * dataDir (on disk) holds no database yet. Without one, initdb makes the database.
   */
  seed?: () => Blob | undefined;
}

/**
 * A new data folder from the archive, unpacked by svc rather than by PGlite's `loadDataDir`, which
 * holds the whole inflated archive twice over at its peak (docs/footprint.md). It is unpacked
 * beside the folder and renamed into place once whole, so a start that dies half-way leaves only
 * `<dataDir>.unpacking`, which the next start removes before unpacking again. A release before this
 * one unpacked into the folder itself and left a file of that name as its marker: then the folder
 * is the half-written one, removed too. Returns whether dataDir now holds a database.
 */
async function unpackSeed(dataDir: string, seed: PgliteOptions['seed']): Promise<boolean> {
  const aside = `${dataDir}.unpacking`;
  if (existsSync(aside)) {
    if (!statSync(aside).isDirectory()) rmSync(dataDir, { recursive: true, force: true });
    rmSync(aside, { recursive: true, force: true });
  }
  if (existsSync(join(dataDir, 'PG_VERSION'))) return true;
  const archive = seed?.();
  if (!archive) return false;
  await untarGz(archive, aside);
  // An empty folder (made by hand, or by a mount) is replaced; anything else in it is an error to see.
  if (existsSync(dataDir) && readdirSync(dataDir).length === 0) rmdirSync(dataDir);
  renameSync(aside, dataDir);
  return true;
}

/**
 * Embedded PostgreSQL (PGlite). One connection: PGlite serializes queries and transactions
 * itself, so a transaction holds the only connection until it ends.
 * dataDir undefined means an in-memory database (tests).
 */
export async function pgliteDb(dataDir?: string, opts: PgliteOptions = {}): Promise<Db> {
  if (dataDir) mkdirSync(dirname(dataDir), { recursive: true });
  const made = dataDir ? await unpackSeed(dataDir, opts.seed) : false;
  const pg = await PGlite.create({
    dataDir,
    ...(await loadAssets()),
    ...(made ? {} : { initdbWasmModule: await loadInitdb() }),
    startParams: [...PGlite.defaultStartParams, ...Object.entries(PGLITE_SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
    extensions: await pgliteExtensions(),
  });
  const wrap = (conn: any, inTx: boolean): Db => ({
    kind: 'pglite',
    native: { pglite: pg },
    async query(text, params = []) {
      // A span per query of traced work when a tracer is installed (core/plugins/telemetry.ts).
      const tracer = tracing.tracer;
      const parent = tracer?.queryStart();
      if (!parent) return (await conn.query(text, params)).rows;
      const t0 = performance.now();
      let rows: any[];
      try {
        rows = (await conn.query(text, params)).rows;
      } catch (e) {
        tracer!.queryEnd(parent, text, t0, e ?? 'failed');
        throw e;
      }
      tracer!.queryEnd(parent, text, t0);
      return rows;
    },
    async transaction(fn) {
      if (inTx) return fn(this);
      return pg.transaction((tx) => fn(wrap(tx, true)));
    },
    async exec(text) {
      await conn.exec(text);
    },
    async close() {
      if (!inTx) await pg.close();
    },
    async listen(channel, onPayload) {
      const stop = await pg.listen(channel, onPayload);
      return async () => stop();
    },
  });
  return wrap(pg, false);
}
