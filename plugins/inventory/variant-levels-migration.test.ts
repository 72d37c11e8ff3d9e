/**
 * inventory/003_variant_levels re-keys stock levels by variant (the product's own id for products
 * without variants). A database with stock from before must upgrade keeping every level, and the
 * ledger must then work on those rows as before.
 */
import { expect, test } from 'bun:test';
import { manualClock } from '../../core/clock';
import { migrate } from '../../core/db/migrate';
import { createStore } from '../../core/keys';
import { allMigrations } from '../../core/migrations';
import { allPlugins as plugins } from '../../test/kit/setup';
import { inScratchSchema } from '../../test/kit/db';
import { setTotal, take } from './public';
import { totalOf } from './totals';

test('levels written before variants keep their quantities, get variant_id = product_id, and the ledger works on them', async () => {
  await inScratchSchema(async (db) => {
    const all = allMigrations(plugins);
    // The database as it was before variants: every migration but the ones that brought them.
    const variants = ['inventory/003_variant_levels', 'products/003_variants_metadata_search', 'products/004_sku_space', 'orders/004_line_variant'];
    // (and the later ones that moved the totals into inventory, plugins/inventory/totals-migration.test.ts)
    // (and later ones that name the variants table: products/008 gives variants a weight)
    const later = [
      ...variants,
      'inventory/004_totals_and_retired',
      'products/005_search_pending_list',
      'products/006_stock_in_inventory',
      'products/008_weight',
    ];
    await migrate(
      db,
      all.filter((m) => !later.includes(m.id)),
    );
    const clock = manualClock('2026-04-01T00:00:00Z');
    const store = await createStore(db, clock, { name: 'Old store', plan: 'pro' });
    const [home] = await db.query(
      `INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'Default', true, $2, $2) RETURNING id`,
      [store.id, clock.now()],
    );
    const [p] = await db.query(
      `INSERT INTO products (id, store_id, name, sku, type, status, price_minor, currency, stock_quantity, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'Old', 'OLD-1', 'simple', 'active', 100, 'USD', 7, $2, $2) RETURNING id`,
      [store.id, clock.now()],
    );
    await db.query('INSERT INTO inventory_levels (store_id, product_id, location_id, quantity, updated_at) VALUES ($1, $2, $3, 7, $4)', [
      store.id,
      p.id,
      home.id,
      clock.now(),
    ]);

    expect(await migrate(db, all)).toEqual(all.filter((m) => later.includes(m.id)).map((m) => m.id));
    expect(await db.query('SELECT product_id, variant_id, quantity FROM inventory_levels')).toEqual([
      { product_id: p.id, variant_id: p.id, quantity: 7 },
    ]);
    expect(await take(db, store.id, p.id, 3, clock.now(), 'quantity')).toEqual([{ location_id: home.id, quantity: 3 }]);
    await setTotal(db, store.id, p.id, 10, clock.now());
    expect(await totalOf(db, p.id)).toBe(10);
    expect((await db.query('SELECT count(*)::int AS n FROM inventory_levels')).map((r) => r.n)).toEqual([1]);
    // The old SKU claims its place in the shared space (products/004).
    expect(await db.query('SELECT sku, owner_id FROM product_skus')).toEqual([{ sku: 'OLD-1', owner_id: p.id }]);
  });
}, 60_000);
