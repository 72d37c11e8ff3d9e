/** The benchmark database: a throwaway database, migrated, with one store, one key and some products. */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../core/clock';
import { openDb } from '../core/db';
import { migrate } from '../core/db/migrate';
import { createKey, createStore } from '../core/keys';
import { createRegistry } from '../core/plugins/registry';
import { allMigrations } from '../core/migrations';
import { pluginList as plugins } from '../plugins';
import { createThrowawayDatabase } from '../test/kit/db';

export interface BenchDb {
  url: string;
  storeId: string;
  apiKey: string;
  /** File with one seeded product id per line, read by get-rotate.lua. */
  idsFile: string;
  productCount: number;
  drop: () => Promise<void>;
}

export async function createBenchDb(products: number): Promise<BenchDb> {
  const { url, drop } = await createThrowawayDatabase();
  try {
    const db = await openDb({ databaseUrl: url, poolSize: 2 });
    try {
      await migrate(db, allMigrations(plugins));
      // enterprise only for realism; the svc bench server overrides every plan's limits anyway.
      const store = await createStore(db, systemClock, { name: 'Bench store', plan: 'enterprise' });
      const key = await createKey(db, systemClock, { storeId: store.id, scopes: [...createRegistry(plugins).scopes], livemode: false });
      // One statement for all rows: seeding is setup, not something we measure.
      const rows = await db.query<{ id: string }>(
        `INSERT INTO products (id, store_id, name, sku, type, status, price_minor, currency, stock_quantity, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'Seed product ' || g, 'SEED-' || g, 'simple', 'active', 1999 + g, 'USD', g % 7, now(), now()
         FROM generate_series(1, $2::int) AS g RETURNING id`,
        [store.id, products],
      );
      await db.exec('ANALYZE');
      const idsFile = join(tmpdir(), `svc-bench-ids-${process.pid}.txt`);
      await Bun.write(idsFile, rows.map((r) => r.id).join('\n') + '\n');
      const dropAll = async () => {
        await rm(idsFile, { force: true });
        await drop();
      };
      return { url, storeId: store.id, apiKey: key.key!, idsFile, productCount: rows.length, drop: dropAll };
    } finally {
      await db.close();
    }
  } catch (e) {
    await drop();
    throw e;
  }
}
