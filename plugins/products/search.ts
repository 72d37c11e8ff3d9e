import { errors, type Ctx, type PageInput, type Row } from '../../core/sdk';
import { productStockSql } from '../inventory/public';

/** The text q searches: the expression of the trigram index products_search (migration 003), exactly. */
export const SEARCH_TEXT = "lower(name || ' ' || coalesce(sku, ''))";

/**
 * How many of the store's products (next in list order) a q page first looks through before it
 * turns to the trigram index. A term in at least ~1% of them fills a page from this walk, which
 * stops as soon as it has; a rarer one costs this walk plus its few index matches, sorted.
 */
export const SEARCH_WINDOW = 1000;

/**
 * A page of the product list with a q search (issue 21), in the list's own order (seq, newest
 * first) and with its cursors, as listPage would give it, but never sorting every match.
 *
 * One statement, two parts joined by UNION ALL under the page's LIMIT, which runs the second part
 * only when the first has not filled the page:
 *
 * 1. `recent`: the next SEARCH_WINDOW products in list order (products_store_seq), filtered as
 *    they come: a common term (the bench's `lamp`, 2%) fills the page after ~500 rows.
 * 2. `older`: the matches beyond that window, from the trigram indexes (products_search, and
 *    product_variants_search through the id array), sorted: reached only by a term that is rare
 *    near the cursor, so it has few matches to sort.
 *
 * The shape does not depend on the planner's guess of how common the term is, which it cannot
 * make for a prepared statement's generic plan (Bun.SQL prepares; PostgreSQL switches to a generic
 * plan after five runs) and makes badly without statistics: the window's LIMIT and the OFFSET 0
 * fence fix the access paths of each part.
 *
 * `where` and `filters` are listPage's (conditions on the product row, `$` for a filter's value).
 */
export async function searchPage<T>(
  ctx: Pick<Ctx, 'db' | 'store' | 'storePath'>,
  q: { path: string; input: PageInput; where: string[]; filters: Record<string, unknown>; pattern: string },
  toData: (rows: Row[]) => T[] | Promise<T[]>,
) {
  const { input } = q;
  if (input.starting_after && input.ending_before) throw errors.validation('Pass only one of starting_after and ending_before.', 'ending_before');
  const params: unknown[] = [ctx.store.id];
  const arg = (value: unknown) => `$${params.push(value)}`;
  const conditions = [...q.where];
  for (const [condition, value] of Object.entries(q.filters)) {
    if (value === undefined) continue;
    const n = arg(value);
    conditions.push(condition.replace(/\$(?!\d)/g, () => n));
  }
  const pattern = arg(q.pattern);
  const variantIds = `SELECT product_id FROM product_variants WHERE store_id = $1 AND archived_at IS NULL AND lower(coalesce(sku, '')) LIKE ${pattern}`;
  // Row by row, the variant ids are one hashed set; as an index condition, an array (BitmapOr with products_search).
  const matchesRow = `(${SEARCH_TEXT} LIKE ${pattern} OR id IN (${variantIds}))`;
  const matchesIndexed = `(${SEARCH_TEXT} LIKE ${pattern} OR id = ANY (ARRAY(${variantIds})))`;

  const backwards = Boolean(input.ending_before);
  const cursorId = input.starting_after ?? input.ending_before;
  const [dir, past] = backwards ? ['ASC', '>'] : ['DESC', '<'];
  let after = '';
  if (cursorId) {
    const found = await ctx.db.query<{ seq: string }>('SELECT seq FROM products WHERE store_id = $1 AND id = $2', [ctx.store.id, cursorId]);
    if (!found.length) throw errors.badRequest('invalid_cursor', `No such object: ${cursorId}.`, backwards ? 'ending_before' : 'starting_after');
    after = ` AND seq ${past} ${arg(found[0].seq)}`;
  }
  const limit = input.limit ?? 10;
  const take = arg(limit + 1);
  const filter = conditions.length ? conditions.join(' AND ') : 'true';

  // Each found row gets its stock total (the inventory ledger's, ../inventory/public.ts), as PRODUCTS gives it.
  const rows = await ctx.db.query<Row>(
    `SELECT found.*, ${productStockSql('found.id')} AS stock_quantity FROM (
       (SELECT * FROM (SELECT * FROM products WHERE store_id = $1${after} ORDER BY seq ${dir} LIMIT ${SEARCH_WINDOW}) recent
         WHERE ${filter} AND ${matchesRow}
         ORDER BY seq ${dir} LIMIT ${take})
       UNION ALL
       (SELECT older.* FROM
         (SELECT seq AS edge FROM products WHERE store_id = $1${after} ORDER BY seq ${dir} OFFSET ${SEARCH_WINDOW - 1} LIMIT 1) window_end
         CROSS JOIN LATERAL (
           SELECT * FROM (SELECT * FROM products WHERE store_id = $1 AND ${matchesIndexed} OFFSET 0) matched
           WHERE seq ${past} window_end.edge AND ${filter}
           ORDER BY seq ${dir} LIMIT ${take}) older)
     ) found LIMIT ${take}`,
    params,
  );
  // UNION ALL runs its parts in order, so this is already sorted; sorting here keeps that a fact of this code, not of the plan.
  const sign = backwards ? 1 : -1;
  rows.sort((a, b) => (BigInt(a.seq) < BigInt(b.seq) ? -sign : BigInt(a.seq) > BigInt(b.seq) ? sign : 0));
  const has_more = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  if (backwards) pageRows.reverse();
  return { object: 'list' as const, data: await toData(pageRows), has_more, url: `${ctx.storePath}${q.path}` };
}
