import type { Db } from '../../core/sdk';

/**
 * Rebuilds the indexes of the embeddings table (local_agent's `reindex_embeddings` task): after
 * many refs written again, or a change of model, their pages are mostly dead entries. On
 * PostgreSQL it runs CONCURRENTLY (writes go on meanwhile); the embedded database has one
 * connection, so a plain REINDEX holds nothing else up.
 */
export async function reindexEmbeddings(db: Db): Promise<{ table: string; indexes: number }> {
  await db.exec(db.kind === 'postgres' ? 'REINDEX TABLE CONCURRENTLY embeddings' : 'REINDEX TABLE embeddings');
  const [r] = await db.query<{ n: string }>(`SELECT count(*) AS n FROM pg_indexes WHERE tablename = 'embeddings'`);
  return { table: 'embeddings', indexes: Number(r.n) };
}
