import { PGlite } from '@electric-sql/pglite';
import type { Db } from './types';
import { pgliteExtensions } from './pglite-extensions';
// Embedded into the compiled binary as files: the binary has no node_modules at run time.
import wasmPath from '../../node_modules/@electric-sql/pglite/dist/pglite.wasm' with { type: 'file' };
import initdbPath from '../../node_modules/@electric-sql/pglite/dist/initdb.wasm' with { type: 'file' };
import dataPath from '../../node_modules/@electric-sql/pglite/dist/pglite.data' with { type: 'file' };

let assets: Promise<{ pgliteWasmModule: WebAssembly.Module; initdbWasmModule: WebAssembly.Module; fsBundle: Blob }> | undefined;

function loadAssets() {
  assets ??= (async () => ({
    pgliteWasmModule: await WebAssembly.compile(await Bun.file(wasmPath).arrayBuffer()),
    initdbWasmModule: await WebAssembly.compile(await Bun.file(initdbPath).arrayBuffer()),
    fsBundle: new Blob([await Bun.file(dataPath).arrayBuffer()]),
  }))();
  return assets;
}

/**
 * Embedded PostgreSQL (PGlite). One connection: PGlite serializes queries and transactions
 * itself, so a transaction holds the only connection until it ends.
 * dataDir undefined means an in-memory database (tests).
 */
export async function pgliteDb(dataDir?: string): Promise<Db> {
  const pg = await PGlite.create({ dataDir, ...(await loadAssets()), extensions: await pgliteExtensions() });
  const wrap = (conn: any, inTx: boolean): Db => ({
    kind: 'pglite',
    native: { pglite: pg },
    async query(text, params = []) {
      return (await conn.query(text, params)).rows;
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
