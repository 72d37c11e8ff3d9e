/**
 * The locations table moved from inventory (made by inventory/000_stock, changed by
 * inventory/002_location_delete) to this plugin (locations/001_locations). A data folder from
 * before the move upgrades applying only 001, which changes nothing there: its locations, their
 * deleted ones and the rules the indexes keep (one default per store, names unique among the live).
 */
import { expect, test } from 'bun:test';
import { manualClock } from '../../core/clock';
import type { Db } from '../../core/db';
import { migrate } from '../../core/db/migrate';
import { isUniqueViolation } from '../../core/db/pg-errors';
import { createStore } from '../../core/keys';
import { allMigrations } from '../../core/migrations';
import { inScratchSchema } from '../../test/kit/db';
import { allPlugins as plugins } from '../../test/kit/setup';
import { defaultLocation, locationsIn } from './public';

/** Whether a statement fails with a unique violation (in a savepoint, so the transaction goes on). */
async function violatesUnique(db: Db, sql: string, params: unknown[]) {
  await db.exec('SAVEPOINT probe');
  try {
    await db.query(sql, params);
    return false;
  } catch (e) {
    return isUniqueViolation(e);
  } finally {
    await db.exec('ROLLBACK TO SAVEPOINT probe');
  }
}

test('a data folder from before locations owned its table upgrades: only locations/001 runs, and every location and rule is kept', async () => {
  await inScratchSchema(async (db) => {
    const all = allMigrations(plugins);
    await migrate(
      db,
      all.filter((m) => m.id !== 'locations/001_locations'),
    );
    const clock = manualClock('2026-05-01T00:00:00Z');
    const now = clock.now();
    const store = await createStore(db, clock, { name: 'Old store', plan: 'pro' });
    const insert = `INSERT INTO locations (id, store_id, name, is_default, active, deleted_at, created_at, updated_at)
                    VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $6) RETURNING id`;
    const [home] = await db.query(insert, [store.id, 'Default', true, true, null, now]);
    const [harbour] = await db.query(insert, [store.id, 'Harbour', false, true, null, now]);
    const [gone] = await db.query(insert, [store.id, 'Pier', false, false, now, now]);
    await db.query('INSERT INTO inventory_levels (store_id, product_id, location_id, quantity, updated_at) VALUES ($1, $2, $3, 4, $4)', [
      store.id,
      crypto.randomUUID(),
      harbour.id,
      now,
    ]);

    expect(await migrate(db, all)).toEqual(['locations/001_locations']);
    expect(await migrate(db, all)).toEqual([]);

    const rows = await db.query('SELECT id, name, deleted_at IS NOT NULL AS deleted FROM locations WHERE store_id = $1 ORDER BY seq', [store.id]);
    expect(rows).toEqual([
      { id: home.id, name: 'Default', deleted: false },
      { id: harbour.id, name: 'Harbour', deleted: false },
      { id: gone.id, name: 'Pier', deleted: true },
    ]);
    expect(await locationsIn(db, store.id, [home.id, harbour.id, gone.id])).toEqual(new Set([home.id, harbour.id]));
    expect(await defaultLocation(db, store.id, now)).toBe(home.id);
    // The indexes are still the ones inventory/002 left: a second default or a live 'harbour' is refused,
    // a deleted location's name is free again.
    expect(await violatesUnique(db, insert, [store.id, 'Second', true, true, null, now])).toBe(true);
    expect(await violatesUnique(db, insert, [store.id, 'harbour', false, true, null, now])).toBe(true);
    expect(await violatesUnique(db, insert, [store.id, 'pier', false, true, null, now])).toBe(false);
    expect(await db.query('SELECT quantity FROM inventory_levels WHERE location_id = $1', [harbour.id])).toEqual([{ quantity: 4 }]);
  });
}, 60_000);

test('on a fresh database the table is made by locations/001, before the stock tables that reference it', () => {
  const ids = allMigrations(plugins).map((m) => m.id);
  expect(ids.indexOf('locations/001_locations')).toBeGreaterThan(-1);
  expect(ids.indexOf('locations/001_locations')).toBeLessThan(ids.indexOf('inventory/000_stock'));
});
