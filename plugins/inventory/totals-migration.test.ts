/**
 * inventory/004_totals_and_retired and products/006_stock_in_inventory move stock totals out of
 * products' tables: a total is the sum of the ledger's levels, read by products through
 * inventory's public.ts. A database from before must upgrade losing no unit: levels stay as they
 * were, units a column counted beyond its levels go to the default location, and deleted
 * products' stock is recorded as retired.
 */
import { expect, test } from 'bun:test';
import { manualClock } from '../../core/clock';
import { migrate } from '../../core/db/migrate';
import { createStore } from '../../core/keys';
import { allMigrations } from '../../core/migrations';
import { inScratchSchema } from '../../test/kit/db';
import { allPlugins as plugins } from '../../test/kit/setup';
import { PRODUCTS } from '../products/store';
import { VARIANTS } from '../products/variants';
import { liveUnitsAt } from './location-stock';

test('an old database upgrades: totals come from the levels, no unit is lost, deleted products are retired', async () => {
  await inScratchSchema(async (db) => {
    const all = allMigrations(plugins);
    const moved = ['inventory/004_totals_and_retired', 'products/006_stock_in_inventory'];
    await migrate(
      db,
      all.filter((m) => !moved.includes(m.id)),
    );
    const clock = manualClock('2026-04-01T00:00:00Z');
    const now = clock.now();
    const store = await createStore(db, clock, { name: 'Old store', plan: 'pro' });
    const [home] = await db.query(
      `INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'Default', true, $2, $2) RETURNING id`,
      [store.id, now],
    );
    const [outlet] = await db.query(
      `INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at) VALUES (gen_random_uuid(), $1, 'Outlet', false, $2, $2) RETURNING id`,
      [store.id, now],
    );
    const product = async (name: string, type: string, stock: number, archived = false) =>
      (
        await db.query(
          `INSERT INTO products (id, store_id, name, type, status, price_minor, currency, stock_quantity, archived_at, created_at, updated_at)
           VALUES (gen_random_uuid(), $1, $2, $3, 'active', 100, 'USD', $4, $5, $6, $6) RETURNING id`,
          [store.id, name, type, stock, archived ? now : null, now],
        )
      )[0].id as string;
    const level = (productId: string, variantId: string, locationId: string, quantity: number) =>
      db.query('INSERT INTO inventory_levels (store_id, product_id, variant_id, location_id, quantity, updated_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        store.id,
        productId,
        variantId,
        locationId,
        quantity,
        now,
      ]);
    // As the ledger kept them: 4 at home and 3 at the outlet, the column their sum.
    const kept = await product('Kept', 'simple', 7);
    await level(kept, kept, home.id, 4);
    await level(kept, kept, outlet.id, 3);
    // Counted only in the column (written before the ledger, or by hand): 5 units, no level.
    const columnOnly = await product('Column only', 'simple', 5);
    // A variable product: one variant with a level, one counted only in its column.
    const tee = await product('Tee', 'variable', 6);
    const variant = async (sku: string, stock: number) =>
      (
        await db.query(
          `INSERT INTO product_variants (id, store_id, product_id, sku, options, price_minor, status, stock_quantity, created_at, updated_at)
           VALUES (gen_random_uuid(), $1, $2, $3, $4::jsonb, 100, 'active', $5, $6, $6) RETURNING id`,
          [store.id, tee, sku, JSON.stringify({ size: sku }), stock, now],
        )
      )[0].id as string;
    const small = await variant('S', 2);
    const large = await variant('L', 4);
    await level(tee, small, home.id, 2);
    // A deleted product whose units sit at the outlet.
    const gone = await product('Gone', 'simple', 2, true);
    await level(gone, gone, outlet.id, 2);

    expect(await migrate(db, all)).toEqual(moved);

    const columns = await db.query(
      `SELECT table_name FROM information_schema.columns WHERE column_name = 'stock_quantity' AND table_schema = current_schema()`,
    );
    expect(columns).toEqual([]);
    const stock = async (id: string) => (await db.query(`SELECT stock_quantity FROM ${PRODUCTS} WHERE id = $1`, [id]))[0].stock_quantity;
    expect([await stock(kept), await stock(columnOnly), await stock(tee), await stock(gone)]).toEqual([7, 5, 6, 2]);
    const variants = await db.query(`SELECT id, stock_quantity FROM ${VARIANTS} WHERE product_id = $1 ORDER BY sku`, [tee]);
    expect(variants).toEqual([
      { id: large, stock_quantity: 4 },
      { id: small, stock_quantity: 2 },
    ]);
    // The units that were only counted went to the default location.
    const atHome = await db.query('SELECT variant_id, quantity FROM inventory_levels WHERE location_id = $1', [home.id]);
    expect(Object.fromEntries(atHome.map((l) => [l.variant_id, l.quantity]))).toEqual({ [small]: 2, [kept]: 4, [large]: 4, [columnOnly]: 5 });
    // The deleted product's stock is retired: the outlet holds only the live product's 3 units.
    expect(await db.query('SELECT product_id FROM inventory_retired')).toEqual([{ product_id: gone }]);
    expect(await liveUnitsAt(db, store.id, outlet.id)).toEqual({ units: 3, products: 1 });
  });
}, 60_000);
