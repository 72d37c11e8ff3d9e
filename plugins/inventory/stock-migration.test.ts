/**
 * The stock tables moved from core (migration `core/002_stock`) to this plugin (`inventory/000_stock`).
 * A database migrated before the move must upgrade cleanly and keep its stock; a fresh one must
 * create the tables before anything that references them.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { manualClock } from '../../core/clock';
import { migrate, type Migration } from '../../core/db/migrate';
import { createStore } from '../../core/keys';
import { allMigrations } from '../../core/migrations';
import { definePlugin } from '../../core/plugins/contract';
import { allPlugins as plugins } from '../../test/kit/setup';
import { sharedDb, inScratchSchema } from '../../test/kit/db';
import stockSql from './migrations/000_stock.sql' with { type: 'text' };
import { defaultLocation } from '../locations/public';

/** The list the code before the move applied: core's stock migration second, plugins in registry order. */
function migrationsBeforeTheMove(): Migration[] {
  const [core001, ...otherCore] = allMigrations([]);
  // locations/001 came later still (the locations table's move to its plugin): not there either.
  const later = ['inventory/000_stock', 'locations/001_locations'];
  const pluginMigrations = plugins.flatMap((p) => p.migrations ?? []).filter((m) => !later.includes(m.id));
  return [core001, { id: 'core/002_stock', sql: stockSql }, ...otherCore, ...pluginMigrations];
}

describe('the stock tables belong to inventory', () => {
  beforeAll(() => sharedDb());

  test('a database migrated before the move upgrades: only locations/001_locations and inventory/000_stock run, and the stock is kept', async () => {
    await inScratchSchema(async (db) => {
      await migrate(db, migrationsBeforeTheMove());
      const clock = manualClock('2026-04-01T00:00:00Z');
      const store = await createStore(db, clock, { name: 'Old store', plan: 'pro' });
      const [home] = await db.query(
        `INSERT INTO locations (id, store_id, name, is_default, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'Default', true, $2, $2) RETURNING id`,
        [store.id, clock.now()],
      );
      const productId = crypto.randomUUID();
      await db.query('INSERT INTO inventory_levels (store_id, product_id, location_id, quantity, updated_at) VALUES ($1, $2, $3, 7, $4)', [
        store.id,
        productId,
        home.id,
        clock.now(),
      ]);

      expect(await migrate(db, allMigrations(plugins))).toEqual(['locations/001_locations', 'inventory/000_stock']);
      expect(await migrate(db, allMigrations(plugins))).toEqual([]);
      const levels = await db.query('SELECT location_id, quantity FROM inventory_levels WHERE store_id = $1', [store.id]);
      expect(levels).toEqual([{ location_id: home.id, quantity: 7 }]);
      // The ledger finds the store's default rather than making a second one (the unique index survived).
      expect(await db.transaction((tx) => defaultLocation(tx, store.id, clock.now()))).toBe(home.id);
      const ids = (await db.query<{ id: string }>('SELECT id FROM svc_migrations')).map((r) => r.id);
      expect(ids).toEqual(expect.arrayContaining(['core/002_stock', 'inventory/000_stock']));
    });
  });

  test('on a fresh database the stock tables come before every migration of a plugin that requires inventory', () => {
    const ids = allMigrations(plugins).map((m) => m.id);
    expect(ids).not.toContain('core/002_stock');
    const stock = ids.indexOf('inventory/000_stock');
    expect(stock).toBeGreaterThan(-1);
    for (const p of plugins.filter((p) => p.requires?.includes('inventory')))
      for (const m of p.migrations ?? []) expect({ id: m.id, after: ids.indexOf(m.id) > stock }).toEqual({ id: m.id, after: true });
    expect(ids.indexOf('inventory/001_inventory')).toBeGreaterThan(stock);
    // The locations table is made by its own plugin's migration, which inventory's follow (it requires locations).
    expect(ids.indexOf('locations/001_locations')).toBeGreaterThan(-1);
    expect(ids.indexOf('locations/001_locations')).toBeLessThan(stock);
  });

  test('a plugin requiring one that is not registered, or a cycle, fails naming them', () => {
    const p = (name: string, requires: string[]) =>
      definePlugin({ name, category: 'platform', scopes: { read: [], write: [] }, actions: {}, requires, migrations: [] });
    expect(() => allMigrations([p('coupons', ['loyalty'])])).toThrow("coupons requires 'loyalty', which is not registered");
    expect(() => allMigrations([p('a', ['b']), p('b', ['a'])])).toThrow('plugins require each other: a -> b -> a');
  });
});
