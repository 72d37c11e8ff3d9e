import type { Db } from '../../core/sdk';

/**
 * The pgvector path of query_similar. The `real[]` column stays the one copy of each vector (every
 * backend reads it); where the database has pgvector 0.8 or later, each dimension count gets a
 * partial HNSW index on the column cast to `vector(N)` (inner product: the vectors are unit
 * length, so it orders as cosine similarity). HNSW takes at most 2,000 dimensions; longer vectors
 * keep the exact search.
 */
export const HNSW_MAX_DIMS = 2000;

/** Per process: whether the database has a usable pgvector (asked once; an operator adding it later restarts svc). */
let usable: Promise<boolean> | undefined;
/** Dimension counts whose index this process made or found. */
const indexed = new Set<number>();

// Iterative index scans (hnsw.iterative_scan), which keep a filtered search (one store, one model) from
// coming back short, arrived in pgvector 0.8.0.
const recentEnough = (version: string) => {
  const [major, minor] = version.split('.').map(Number);
  return major > 0 || minor >= 8;
};

/** pgvector is there, visible on the search path, and recent enough. PGlite never has it here. */
export function pgvectorOn(db: Db): Promise<boolean> {
  if (db.kind !== 'postgres') return Promise.resolve(false);
  usable ??= db
    .query<{ version: string | null }>(
      `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector' AND to_regtype('vector') IS NOT NULL) AS version`,
    )
    .then(([r]) => Boolean(r?.version && recentEnough(r.version)))
    .catch((err) => {
      usable = undefined; // asked again next time: a failed look-up is not an answer
      throw err;
    });
  return usable;
}

const indexName = (dims: number) => `embeddings_hnsw_${dims}`;
/** The indexed expression; a query must write it the same way for the planner to use the index. */
export const asVector = (column: string, dims: number) => `(${column}::vector(${dims}))`;

/**
 * Makes the HNSW index for vectors of `dims` dimensions if it is missing, before the first one is
 * written: the partial index then starts empty, so building it costs nothing. An advisory lock
 * makes concurrent first writes wait for one another instead of racing on the name. Inside an
 * action it commits with the write (a rolled-back write leaves no index, and this process does
 * not try again until restarted; searches are then exact, as without pgvector).
 */
export async function ensureIndex(db: Db, dims: number): Promise<void> {
  if (dims > HNSW_MAX_DIMS || indexed.has(dims) || !(await pgvectorOn(db))) return;
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [indexName(dims)]);
    await tx.query(
      `CREATE INDEX IF NOT EXISTS ${indexName(dims)} ON embeddings USING hnsw (${asVector('vector', dims)} vector_ip_ops) WHERE dimensions = ${dims}`,
    );
  });
  indexed.add(dims);
}

/**
 * The store's `limit` nearest rows by the HNSW index, or undefined where there is none (then the
 * caller searches exactly). `strict_order` iterative scans keep going past rows of other stores
 * and models until `limit` rows match, in distance order; `ef_search` (SVC_EMBEDDINGS_EF_SEARCH,
 * at least `limit`) is how many candidates the walk keeps: higher finds more true neighbours, slower. The rows come with their exact similarity, as the exact search gives it.
 */
export async function nearestByIndex(
  db: Db,
  q: { storeId: string; model: string; vector: string; dims: number; limit: number; columns: string; efSearch: number },
): Promise<Record<string, any>[] | undefined> {
  if (q.dims > HNSW_MAX_DIMS || !(await pgvectorOn(db))) return undefined;
  return db.transaction(async (tx) => {
    await tx.query(`SELECT set_config('hnsw.iterative_scan', 'strict_order', true), set_config('hnsw.ef_search', $1, true)`, [
      String(Math.min(1000, Math.max(q.efSearch, q.limit))),
    ]);
    return tx.query(nearestSql(q.columns, q.dims), [q.storeId, q.model, q.vector, q.limit]);
  });
}

/** The index search ($1 store, $2 model, $3 the query as real[] text, $4 limit): the candidates by the index, then by exact similarity. */
export const nearestSql = (columns: string, dims: number) =>
  `SELECT ${columns}, content, (SELECT sum(a * b) FROM unnest(c.vector, $3::real[]) AS t(a, b)) AS similarity
     FROM (SELECT * FROM embeddings
            WHERE store_id = $1 AND model = $2 AND dimensions = ${dims}
            ORDER BY ${asVector('vector', dims)} <#> $3::real[]::vector(${dims}) LIMIT $4) c
    ORDER BY similarity DESC, id`;
