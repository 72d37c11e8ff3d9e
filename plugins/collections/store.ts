import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';
import type { Db } from '../../core/sdk';
import { errors } from '../../core/sdk';
import { listPage, rowOr404, setClause, stamps, unique, type Row } from '../../core/sdk';
import { productsIn } from '../products/public';
import { HANDLE_MAX, type AddProducts, type Collection, type CollectionCreate, type CollectionQuery, type CollectionUpdate } from './schemas';

function toCollection(r: Row, productIds: string[]): Static<typeof Collection> {
  return {
    object: 'collection',
    id: r.id,
    title: r.title,
    handle: r.handle,
    description: r.description,
    product_count: productIds.length,
    product_ids: productIds,
    ...stamps(r),
  };
}

/**
 * The live products of each collection, in the order they were added. Archived (deleted) products
 * stay in collection_products but are hidden here, as they are from every other lookup.
 */
async function membersOf(db: Db, storeId: string, collectionIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(collectionIds.map((id) => [id, []]));
  if (!collectionIds.length) return out;
  const rows = await db.query(
    `SELECT collection_id, product_id FROM collection_products
     WHERE store_id = $1 AND collection_id = ANY($2::uuid[]) ORDER BY collection_id, position`,
    [storeId, collectionIds],
  );
  // Which are live is the products plugin's to say (its public.ts), not a join on its table.
  const live = await productsIn(
    db,
    storeId,
    rows.map((r) => r.product_id),
  );
  for (const r of rows) if (live.has(r.product_id)) out.get(r.collection_id)?.push(r.product_id);
  return out;
}

export async function withMembers(db: Db, storeId: string, rows: Row[]) {
  const members = await membersOf(
    db,
    storeId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toCollection(r, members.get(r.id) ?? []));
}

/**
 * "Été 2026 — Sale!" -> "ete-2026-sale": accents folded, anything else between words becomes one
 * hyphen. A title with no ASCII letter or digit (e.g. all CJK) yields '' and the caller falls back.
 */
export function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, HANDLE_MAX)
    .replace(/-+$/, '');
}

/** The unique (store_id, handle) constraint's violation as 409 duplicate_handle naming handle. */
const duplicateHandle = (handle: string, derived: boolean) => ({
  collections_store_id_handle_key: () =>
    errors.conflict(
      `A collection with handle '${handle}' already exists in this store${derived ? ' (derived from the title; pass a distinct handle)' : ''}.`,
      'duplicate_handle',
      'handle',
    ),
});

export async function createCollection(ctx: Ctx, input: Static<typeof CollectionCreate>) {
  if (!input.title.trim()) throw errors.validation('Invalid title: it must not be blank.', 'title');
  const id = crypto.randomUUID();
  const handle = input.handle ?? (slugify(input.title) || `collection-${id.slice(0, 8)}`);
  const now = ctx.clock.now();
  // Also for a handle derived from the title: silently suffixing (-2) would hide an accidental duplicate.
  const [row] = await unique(
    ctx.db.query(
      `INSERT INTO collections (id, store_id, title, handle, description, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING *`,
      [id, ctx.store.id, input.title, handle, input.description ?? null, now],
    ),
    duplicateHandle(handle, !input.handle),
  );
  return toCollection(row, []);
}

export const collectionRow = (ctx: Ctx, id: string, lock?: 'FOR UPDATE') =>
  rowOr404(ctx.db, { table: 'collections', storeId: ctx.store.id, id, noun: 'collection', lock });

export const getCollection = async (ctx: Ctx, id: string) => (await withMembers(ctx.db, ctx.store.id, [await collectionRow(ctx, id)]))[0];

/** Fields left out keep their value; null clears the description. A new title keeps the handle (links stay valid). */
export async function updateCollection(ctx: Ctx, input: Static<typeof CollectionUpdate>) {
  if (input.title !== undefined && !input.title.trim()) throw errors.validation('Invalid title: it must not be blank.', 'title');
  const cur = await collectionRow(ctx, input.id, 'FOR UPDATE');
  const set = setClause({ title: input.title, handle: input.handle, description: input.description, updated_at: ctx.clock.now() }, { after: 2 });
  const [row] = await unique(
    ctx.db.query(`UPDATE collections SET ${set.sql} WHERE store_id = $1 AND id = $2 RETURNING *`, [ctx.store.id, cur.id, ...set.params]),
    duplicateHandle(input.handle ?? cur.handle, false),
  );
  return (await withMembers(ctx.db, ctx.store.id, [row]))[0];
}

/**
 * Deletes the collection and its memberships; the products themselves are untouched. The row lock
 * comes first, so an add_products running meanwhile either finishes before (its rows go too) or
 * finds the collection gone (404): no membership outlives its collection.
 */
export async function deleteCollection(ctx: Ctx, id: string) {
  const cur = await collectionRow(ctx, id, 'FOR UPDATE');
  await ctx.db.query('DELETE FROM collection_products WHERE store_id = $1 AND collection_id = $2', [ctx.store.id, cur.id]);
  await ctx.db.query('DELETE FROM collections WHERE store_id = $1 AND id = $2', [ctx.store.id, cur.id]);
  return { object: 'collection' as const, id: cur.id as string, deleted: true as const };
}

export const listCollections = (ctx: Ctx, input: Static<typeof CollectionQuery>) =>
  listPage(ctx, { table: 'collections', path: '/collections', input, filters: { 'handle = $': input.handle } }, (rows) =>
    withMembers(ctx.db, ctx.store.id, rows),
  );

/**
 * All or nothing: every id must be a live product of this store, or the call is a 404 naming the
 * first bad one (`product_ids.N`) and adds nothing. Ids already in the collection are skipped.
 */
export async function addProducts(ctx: Ctx, input: Static<typeof AddProducts>) {
  // The row lock serializes concurrent adds to one collection; ctx.db is the action's transaction.
  const collection = await collectionRow(ctx, input.id, 'FOR UPDATE');

  const wanted = [...new Set(input.product_ids.map((p) => p.toLowerCase()))];
  const found = await productsIn(ctx.db, ctx.store.id, wanted);
  const missing = input.product_ids.findIndex((p) => !found.has(p.toLowerCase()));
  if (missing >= 0) throw errors.notFound(`product: '${input.product_ids[missing]}'`, `product_ids.${missing}`);

  const now = ctx.clock.now();
  // ORDER BY the request position, so `position` (a sequence) records the order they were given in.
  const added = await ctx.db.query(
    `INSERT INTO collection_products (collection_id, product_id, store_id, added_at)
     SELECT $1, t.product_id, $2, $4 FROM unnest($3::uuid[]) WITH ORDINALITY AS t(product_id, n) ORDER BY t.n
     ON CONFLICT (collection_id, product_id) DO NOTHING RETURNING product_id`,
    [collection.id, ctx.store.id, wanted, now],
  );
  let row = collection;
  if (added.length)
    [row] = await ctx.db.query('UPDATE collections SET updated_at = $3 WHERE store_id = $1 AND id = $2 RETURNING *', [
      ctx.store.id,
      collection.id,
      now,
    ]);
  return (await withMembers(ctx.db, ctx.store.id, [row]))[0];
}
