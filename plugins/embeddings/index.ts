import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, providerSettings, Uuid } from '../../core/sdk';
import migration001 from './migrations/001_embeddings.sql' with { type: 'text' };
import migration002 from './migrations/002_index_runs.sql' with { type: 'text' };
import { getIndexJob, IndexJob, runIndexBatch, startIndex } from './catalog';
import { Embedding, EmbeddingCreate, SimilarList, SimilarQuery } from './schemas';
import { createEmbedding, querySimilar } from './store';

const EmbeddingsConfig = Type.Object({
  ...providerSettings,
  model: Type.String({
    env: 'SVC_EMBEDDINGS_MODEL',
    default: 'text-embedding-3-small',
    minLength: 1,
    description: 'The OpenAI-compatible embeddings model.',
  }),
});

/**
 * Text embeddings on the OpenAI-compatible provider (core/providers), kept per store and searched
 * by cosine similarity in SQL. Every provider call is metered and refused at the spend cap.
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
  tables: ['embeddings', 'embedding_index_runs'],
  migrations: [
    { id: 'embeddings/001_embeddings', sql: migration001 },
    { id: 'embeddings/002_index_runs', sql: migration002 },
  ],
  // index_catalog reads the catalog through products.list_products, as this plugin.
  calls: ['products'],
  // One job per 100 products of an index_catalog run (the kit's declared jobs will carry its progress).
  jobs: [
    {
      name: 'index_catalog',
      run: async (deps, batch) => {
        for (const payload of batch) await runIndexBatch(deps, payload as Parameters<typeof runIndexBatch>[1]);
      },
    },
  ],
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
        'Embed every live product (name, description, options) as ref product:<id>, as a job: answers at once; follow it with get_index_job. Products whose text did not change are not embedded again.',
      input: Input({}),
      output: IndexJob,
      rest: { method: 'POST', path: '/embeddings/index-catalog', status: 202 },
      handler: startIndex,
    }),
    get_index_job: action({
      kind: 'read',
      description: 'How far an index_catalog job is: status, progress {done, total}, and its result or error.',
      input: Input({ id: Uuid('The job id index_catalog answered.') }),
      output: IndexJob,
      rest: { method: 'GET', path: '/embeddings/index-catalog/:id' },
      handler: (ctx, input) => getIndexJob(ctx, input.id),
    }),
  },
});
