import { Type } from '@sinclair/typebox';
import { action, definePlugin, providerSettings } from '../../core/sdk';
import migration001 from './migrations/001_embeddings.sql' with { type: 'text' };
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
  tables: ['embeddings'],
  migrations: [{ id: 'embeddings/001_embeddings', sql: migration001 }],
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
  },
});
