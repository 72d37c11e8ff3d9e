/** The benchmark database: a throwaway database, migrated, with one store, one key and some products. */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../core/clock';
import { openDb } from '../core/db';
import { migrate } from '../core/db/migrate';
import { installJobs } from '../core/jobs/run';
import { allJobs } from '../workers';
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
      // pg-boss's schema and queues, as `svc serve` installs them: writes enqueue their events' deliveries.
      await installJobs(db, allJobs(db, systemClock, createRegistry(plugins)));
      // enterprise only for realism; the svc bench server overrides every plan's limits anyway.
      const store = await createStore(db, systemClock, { name: 'Bench store', plan: 'enterprise' });
      const key = await createKey(db, systemClock, { storeId: store.id, scopes: [...createRegistry(plugins).scopes], livemode: false });
      // One statement for all rows: seeding is setup, not something we measure.
      const rows = await db.query<{ id: string }>(
        `INSERT INTO products (id, store_id, name, sku, type, status, price_minor, currency, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'Seed product ' || g, 'SEED-' || g, 'simple', 'active', 1999 + g, 'USD', now(), now()
         FROM generate_series(1, $2::int) AS g RETURNING id`,
        [store.id, products],
      );
      // Their stock, as the inventory ledger keeps it: a level at the default location for most
      // (a product read adds its levels up), none for every 7th.
      await db.query(
        `WITH home AS (
           INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'Default', true, now(), now()) RETURNING id
         )
         INSERT INTO inventory_levels (store_id, product_id, location_id, quantity, updated_at)
         SELECT $1, id, (SELECT id FROM home), 1 + n % 6, now() FROM unnest($2::uuid[]) WITH ORDINALITY AS t(id, n) WHERE n % 7 <> 0`,
        [store.id, rows.map((r) => r.id)],
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

/** A word every 50th search-store product's name has: `q` with it matches 2% of them. */
export const SEARCH_WORD = 'lamp';
const WORDS = [SEARCH_WORD, ...Array.from({ length: 49 }, (_, i) => `word${i}`)];

/**
 * A second store for the list-filter figures: `products` products (100,000 by default) named
 * `<word> item <n>`, one word of 50 each, so `q=lamp` matches 2% of them, read through the
 * trigram index; the unfiltered list of the same store is its baseline.
 */
export async function seedSearchStore(url: string, products: number): Promise<{ storeId: string; apiKey: string }> {
  const db = await openDb({ databaseUrl: url, poolSize: 2 });
  try {
    const store = await createStore(db, systemClock, { name: 'Bench search store', plan: 'enterprise' });
    const key = await createKey(db, systemClock, { storeId: store.id, scopes: [...createRegistry(plugins).scopes], livemode: false });
    await db.query(
      `INSERT INTO products (id, store_id, name, sku, type, status, price_minor, currency, created_at, updated_at)
       SELECT gen_random_uuid(), $1, ($3::text[])[1 + g % 50] || ' item ' || g, 'SRCH-' || g, 'simple', 'active', 1999, 'USD', now(), now()
       FROM generate_series(1, $2::int) AS g`,
      [store.id, products, WORDS],
    );
    // VACUUM too: 100,000 fresh rows otherwise start autovacuum (and its trigram index's pending
    // list) in the middle of the first measurements, whose database CPU it then inflates.
    await db.exec('VACUUM ANALYZE');
    return { storeId: store.id, apiKey: key.key! };
  } finally {
    await db.close();
  }
}
