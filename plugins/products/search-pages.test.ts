/** Paging through a q search (search.ts): every match exactly once, in list order, both ways, across its walk window and index part. */
import { beforeAll, describe, expect, test } from 'bun:test';
import { setup, type Harness } from '../../test/kit/setup';
import { SEARCH_WINDOW } from './search';
import { refreshStatistics } from '../../core/db';

describe('paging a q search over more products than its walk window', () => {
  let h: Harness;
  const TOTAL = 2600; // the arithmetic above assumes a window of 1000
  expect(SEARCH_WINDOW).toBe(1000);
  beforeAll(async () => {
    h = await setup();
    // Oldest first (seq order): matches dense among the first 300 (a third of them), then every
    // 200th, so that with limit=8 the second page (after the match at 1400) walks 1399..400, ending
    // on a match, and takes the rest of its page from the index part, which must start right after
    // it. By name or by SKU, in any case. One statement: 2,600 products through the API would take minutes.
    await h.db.query(
      `INSERT INTO products (id, store_id, name, sku, type, status, price_minor, currency, created_at, updated_at)
       SELECT gen_random_uuid(), $1,
              CASE WHEN (g <= 300 AND g % 3 = 0 OR g > 300 AND g % 200 = 0) AND g % 2 = 0 THEN 'Big NeEdLe ' || g ELSE 'Item ' || g END,
              CASE WHEN (g <= 300 AND g % 3 = 0 OR g > 300 AND g % 200 = 0) AND g % 2 = 1 THEN 'SKU-NEEDLE-' || g ELSE 'SKU-' || g END,
              'simple', CASE WHEN g % 5 = 0 THEN 'draft' ELSE 'active' END, 100, 'USD', $3, $3
       FROM generate_series(1, $2::int) AS g`,
      [h.store.id, TOTAL, h.clock.now()],
    );
    // The newest: a match only by a variant's SKU, and a deleted match, which no page may show.
    const variable = await h.call('POST', '/products', {
      name: 'Tee',
      type: 'variable',
      options: [{ name: 'size', values: ['S'] }],
      variants: [{ options: { size: 'S' }, sku: 'TEE-NEEDLE-S' }],
    });
    expect(variable.status).toBe(201);
    const gone = await h.call('POST', '/products', { name: 'Gone needle' });
    expect((await h.call('DELETE', `/products/${gone.body.id}`)).status).toBe(200);
  }, 60_000);

  /** What the q filter means, written plainly (no window, no index tricks), newest first. */
  const expected = async (extra = '') =>
    (
      await h.db.query<{ id: string }>(
        `SELECT id FROM products p WHERE store_id = $1 AND archived_at IS NULL ${extra}
           AND (lower(name || ' ' || coalesce(sku, '')) LIKE '%needle%'
                OR EXISTS (SELECT 1 FROM product_variants v WHERE v.product_id = p.id AND v.archived_at IS NULL AND lower(v.sku) LIKE '%needle%'))
         ORDER BY seq DESC`,
        [h.store.id],
      )
    ).map((r) => r.id);

  async function pages(query: string, direction: 'starting_after' | 'ending_before', from?: string) {
    const seen: string[][] = [];
    let cursor = from;
    for (let i = 0; i < 500; i++) {
      const r = await h.call('GET', `/products?${query}${cursor ? `&${direction}=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      const ids = r.body.data.map((p: { id: string }) => p.id);
      seen.push(ids);
      if (!r.body.has_more) return seen;
      cursor = direction === 'starting_after' ? ids[ids.length - 1] : ids[0];
    }
    throw new Error('paging did not end');
  }

  test('forward with starting_after, then back with ending_before: each match once, newest first', async () => {
    const all = await expected();
    expect(all.length).toBe(1 + 12 + 100);
    const forward = await pages('q=needle&limit=8', 'starting_after');
    expect(forward.flat()).toEqual(all);
    expect(forward.slice(0, -1).every((p) => p.length === 8)).toBe(true);
    // From just past the oldest match back to the newest: the same ids, pages in reverse.
    const oldest = all[all.length - 1];
    const back = await pages('q=NEEDLE&limit=8', 'ending_before', oldest);
    expect(back.reverse().flat()).toEqual(all.slice(0, -1));
  });

  test('with other filters: the matches that also pass them, once each, in order', async () => {
    expect((await pages('q=needle&status=draft&limit=5', 'starting_after')).flat()).toEqual(await expected("AND status = 'draft'"));
    expect((await pages('q=needle&type=variable&limit=5', 'starting_after')).flat()).toEqual(await expected("AND type = 'variable'"));
  });

  test('refreshing statistics (at start-up and in maintenance) gives the embedded database the row counts its planner needs (PostgreSQL has autovacuum)', async () => {
    await refreshStatistics(h.db);
    const [{ reltuples }] = await h.db.query<{ reltuples: number }>("SELECT reltuples FROM pg_class WHERE relname = 'products'");
    if (h.db.kind === 'pglite') expect(Number(reltuples)).toBeGreaterThanOrEqual(TOTAL);
  });
});
