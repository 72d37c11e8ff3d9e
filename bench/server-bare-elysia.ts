/**
 * Baseline 2: a bare Elysia app running the statement svc's handler runs (the product SELECT, a
 * keyset page of products, the product INSERT), on the same driver (Bun.SQL) and pool size, with none of the conventions.
 * For a GET the database work is identical, so the gap is the conventions' cost (auth, scopes,
 * rate limit, versioning, validation...). A svc create does more: every write is a transaction,
 * and the stock ledger updates the product's stock total after the INSERT (plugins/inventory/stock.ts).
 */
import { Elysia } from 'elysia';
import { announce, requireEnv } from './child';

const sql = new Bun.SQL(requireEnv('BENCH_DB_URL'), { max: Number(requireEnv('BENCH_POOL')), idleTimeout: 30 });

// Same statements as plugins/products/store.ts (getProductRow, createProduct): a product is read
// from PRODUCTS, the row with its stock total from the inventory ledger's levels.
const PRODUCTS = `(SELECT *, (SELECT coalesce(sum(quantity), 0)::int FROM inventory_levels WHERE product_id = products.id) AS stock_quantity FROM products) products`;
const SELECT_ONE = `SELECT * FROM ${PRODUCTS} WHERE store_id = $1 AND id = $2 AND archived_at IS NULL`;
// The first page of core/plugins/pagination.ts's keyset query for an unfiltered product list.
const SELECT_PAGE = `SELECT * FROM ${PRODUCTS} WHERE store_id = $1 AND archived_at IS NULL ORDER BY seq DESC LIMIT $2`;
// The create the benchmark sends has no stock (bench/post-create.lua): no level to write.
const INSERT_ONE = `INSERT INTO products (id, store_id, name, description, sku, type, status, price_minor, compare_at_minor, currency, created_at, updated_at)
  VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $11, $11) RETURNING *, $10::int AS stock_quantity`;

const jsonHeaders = { 'Content-Type': 'application/json' };

/** The body fields svc's create accepts, mapped the same way plugins/products/store.ts does. */
const insertParams = (storeId: string, b: any) => [
  storeId,
  b.name,
  b.description ?? null,
  b.sku ?? null,
  b.type ?? 'simple',
  b.status ?? 'active',
  Math.round((b.pricing_data?.retail ?? 0) * 100),
  null,
  b.pricing_data?.currency ?? 'USD',
  b.stock_quantity ?? 0,
  new Date(),
];

const app = new Elysia()
  .get('/v1/stores/:storeId/products/:id', async ({ params }) => {
    const [row] = await sql.unsafe(SELECT_ONE, [params.storeId, params.id]);
    if (!row) return new Response('{"error":"not found"}', { status: 404, headers: jsonHeaders });
    return new Response(JSON.stringify(row), { headers: jsonHeaders });
  })
  .get('/v1/stores/:storeId/products', async ({ params, query }) => {
    const limit = Number(query.limit ?? 10);
    const rows = await sql.unsafe(SELECT_PAGE, [params.storeId, limit + 1]);
    const body = { object: 'list', data: rows.slice(0, limit), has_more: rows.length > limit };
    return new Response(JSON.stringify(body), { headers: jsonHeaders });
  })
  .post(
    '/v1/stores/:storeId/products',
    async ({ params, request }) => {
      const [row] = await sql.unsafe(INSERT_ONE, insertParams(params.storeId, JSON.parse(await request.text())));
      return new Response(JSON.stringify(row), { status: 201, headers: jsonHeaders });
    },
    { parse: 'none' },
  )
  // The same INSERT in its own transaction: svc runs every write in one, so this separates what
  // the extra BEGIN/COMMIT round trips (and a connection held across them) cost from the rest.
  .post(
    '/tx/v1/stores/:storeId/products',
    async ({ params, request }) => {
      const values = insertParams(params.storeId, JSON.parse(await request.text()));
      const [row] = await sql.begin((tx) => tx.unsafe(INSERT_ONE, values));
      return new Response(JSON.stringify(row), { status: 201, headers: jsonHeaders });
    },
    { parse: 'none' },
  )
  .listen({ hostname: '127.0.0.1', port: 0 });

announce(app.server!.port!);
