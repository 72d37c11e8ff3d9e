import { Type } from '@sinclair/typebox';
import { action, definePlugin, embeddingsProvider, Input, job, JobStarted, providerSettings, type ProviderConfig, onFirstCall } from '../../core/sdk';
import migration001 from './migrations/001_embeddings.sql' with { type: 'text' };
import migration002 from './migrations/002_pgvector.sql' with { type: 'text' };
import { Embedding, EmbeddingCreate, SimilarList, SimilarQuery } from './schemas';

// Handlers: evaluated at their first call, not at start (plugins/README.md).
const { indexCatalog } = onFirstCall(() => import('./catalog'));
const { createEmbedding, querySimilar } = onFirstCall(() => import('./store'));

const EmbeddingsConfig = Type.Object({
  ...providerSettings,
  model: Type.String({
    env: 'SVC_EMBEDDINGS_MODEL',
    default: 'text-embedding-3-small',
    minLength: 1,
    description: 'The OpenAI-compatible embeddings model.',
  }),
  pgvector: Type.Boolean({
    default: true,
    description: 'query_similar walks the HNSW index where the database has pgvector (0.8+); false: always the exact search.',
  }),
  ef_search: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 200,
    description:
      "pgvector's hnsw.ef_search for query_similar (at least its limit): candidates kept while walking the index; higher finds more true neighbours, slower.",
  }),
});

/**
 * Text embeddings on the OpenAI-compatible provider (core/providers), kept per store and searched
 * by cosine similarity: through pgvector's HNSW index where PostgreSQL has it, else exactly in SQL. Every provider call is metered and refused at the spend cap.
 */
export default definePlugin({
  name: 'embeddings',
  category: 'intelligence',
  catalog: true,
  description: 'Vector embeddings of texts, and the nearest ones to a query (semantic search).',
  resource: 'embedding',
  // SPEC 5.4: platform.
  scopes: { read: ['platform'], write: ['platform'] },
  config: EmbeddingsConfig,
  tables: ['embeddings'],
  migrations: [
    { id: 'embeddings/001_embeddings', sql: migration001 },
    { id: 'embeddings/002_pgvector', sql: migration002 },
  ],
  // index_catalog reads the catalog through products.list_products, as this plugin.
  calls: ['products'],
  jobs: {
    index_catalog: job({
      description: 'Embeds the live catalog, re-embedding only products whose text changed.',
      input: Type.Object({}),
      // A provider refusing (a 4xx) will refuse again: few attempts.
      retries: 2,
      handler: (ctx) => indexCatalog(ctx),
    }),
  },
  actions: {
    create_embedding: action({
      kind: 'write',
      description: 'Embed a text and keep it for query_similar; give a ref (product:<id>) to replace that ref’s embedding later.',
      input: EmbeddingCreate,
      output: Embedding,
      rest: { method: 'POST', path: '/embeddings', status: 201 },
      example: { text: 'A linen apron with two pockets.', metadata: { kind: 'product' } },
      handler: createEmbedding,
    }),
    query_similar: action({
      kind: 'read',
      description: 'The kept texts nearest a query by meaning (cosine similarity), nearest first.',
      input: SimilarQuery,
      output: SimilarList,
      rest: { method: 'GET', path: '/embeddings/similar' },
      example: { query: 'apron', limit: 3 },
      handler: querySimilar,
    }),
    index_catalog: action({
      kind: 'write',
      description:
        'Embed every live product (name, description, options) as ref product:<id>, as a job: answers the job at once (get_job follows its progress). Products whose text did not change are not embedded again.',
      input: Input({}),
      output: JobStarted,
      startsJob: true,
      rest: { method: 'POST', path: '/embeddings/index-catalog', status: 202 },
      handler: (ctx) => {
        embeddingsProvider(ctx.config as ProviderConfig); // unset: 400 now, before a job is queued
        return ctx.startJob('index_catalog', {});
      },
    }),
  },
});
