import type { Static } from '@sinclair/typebox';
import { embeddingsProvider, iso, jsonParam, metered, type Ctx, type Db, type ProviderConfig, type Row } from '../../core/sdk';
import type { EmbeddingCreate, SimilarQuery } from './schemas';
import { ensureIndex, nearestByIndex } from './vector-index';

/** Unit length, so the cosine similarity of two stored vectors is their dot product. */
export function normalize(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((n, x) => n + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}

export const hashOf = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex');

export const toEmbedding = (r: Row) => ({
  object: 'embedding' as const,
  id: r.id as string,
  ref: (r.ref ?? null) as string | null,
  metadata: (r.metadata ?? {}) as Record<string, string>,
  model: r.model as string,
  dimensions: Number(r.dimensions),
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

const COLUMNS = 'id, ref, metadata, model, dimensions, created_at, updated_at';

/** The embeddings model's vectors for `texts`, metered for the store (refused at its spend cap). */
export async function embed(ctx: Ctx, texts: string[]): Promise<number[][]> {
  const provider = embeddingsProvider(ctx.config as ProviderConfig);
  const model = ctx.config.model as string;
  const meter = { db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: ctx.config.provider_prices };
  return metered(meter, provider.name, model, async () => {
    const r = await provider.embed(model, texts, ctx.shutdown);
    return { value: r.vectors.map(normalize), usage: r.usage };
  });
}

/**
 * Embeds a text and keeps it. With a `ref` already kept, the row is replaced, and the provider is
 * asked only when the text (by its hash) or the model changed.
 */
export async function createEmbedding(ctx: Ctx, input: Static<typeof EmbeddingCreate>) {
  const hash = hashOf(input.text);
  const model = ctx.config.model as string;
  const now = ctx.clock.now();
  if (input.ref) {
    const [same] = await ctx.db.query(`SELECT ${COLUMNS}, content_hash FROM embeddings WHERE store_id = $1 AND ref = $2`, [ctx.store.id, input.ref]);
    if (same && same.content_hash === hash && same.model === model) {
      const [row] = await ctx.db.query(
        `UPDATE embeddings SET metadata = $3::text::jsonb, updated_at = $4 WHERE store_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [ctx.store.id, same.id, jsonParam(input.metadata ?? {}), now],
      );
      return toEmbedding(row);
    }
  }
  const [vector] = await embed(ctx, [input.text]);
  return toEmbedding(await upsertEmbedding(ctx.db, now, ctx.store.id, model, input, vector));
}

/** Writes one embedding, replacing the one of its ref if any. */
export async function upsertEmbedding(
  db: Db,
  now: Date,
  storeId: string,
  model: string,
  input: { ref?: string; text: string; metadata?: Record<string, string> },
  vector: number[],
): Promise<Row> {
  await ensureIndex(db, vector.length);
  const [row] = await db.query(
    `INSERT INTO embeddings (id, store_id, ref, metadata, content, content_hash, model, dimensions, vector, created_at, updated_at)
     VALUES ($1, $2, $3, $4::text::jsonb, $5, $6, $7, $8, $9::real[], $10, $10)
     ON CONFLICT (store_id, ref) WHERE ref IS NOT NULL DO UPDATE SET metadata = EXCLUDED.metadata, content = EXCLUDED.content,
       content_hash = EXCLUDED.content_hash, model = EXCLUDED.model, dimensions = EXCLUDED.dimensions, vector = EXCLUDED.vector,
       updated_at = EXCLUDED.updated_at
     RETURNING ${COLUMNS}`,
    [
      crypto.randomUUID(),
      storeId,
      input.ref ?? null,
      jsonParam(input.metadata ?? {}),
      input.text,
      hashOf(input.text),
      model,
      vector.length,
      vectorParam(vector),
      now,
    ],
  );
  return row;
}

/** A vector as PostgreSQL array text: both drivers take it for a `real[]` parameter. */
const vectorParam = (v: number[]) => `{${v.join(',')}}`;

/**
 * The store's embeddings nearest the query's, by cosine similarity, nearest first, over the
 * embeddings of the configured model. With pgvector (vector-index.ts) an HNSW index finds them;
 * otherwise, or when the index found fewer than asked (a store with fewer embeddings than
 * `limit`), the search is exact, in SQL (the dot product of unit vectors). Either way each row's
 * similarity is computed exactly from the stored `real[]`, and ties are ordered by id.
 */
export async function querySimilar(ctx: Ctx, input: Static<typeof SimilarQuery>) {
  const [vector] = await embed(ctx, [input.query]);
  const limit = input.limit ?? 10;
  const q = {
    storeId: ctx.store.id,
    model: ctx.config.model as string,
    vector: vectorParam(vector),
    dims: vector.length,
    limit,
    columns: COLUMNS,
    efSearch: ctx.config.ef_search as number,
  };
  let rows = ctx.config.pgvector === false ? undefined : await nearestByIndex(ctx.db, q);
  if (!rows || rows.length < limit)
    rows = await ctx.db.query(
      `SELECT ${COLUMNS}, content,
              (SELECT sum(a * b) FROM unnest(e.vector, $3::real[]) AS t(a, b)) AS similarity
         FROM embeddings e
        WHERE store_id = $1 AND model = $2 AND dimensions = $4
        ORDER BY similarity DESC, id LIMIT $5`,
      [q.storeId, q.model, q.vector, q.dims, limit],
    );
  return {
    object: 'list' as const,
    model: q.model,
    data: rows.map((r) => ({ ...toEmbedding(r), text: r.content as string, similarity: Math.round(Number(r.similarity) * 1e6) / 1e6 })),
  };
}
