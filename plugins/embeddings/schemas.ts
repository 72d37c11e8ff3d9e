import { Type } from '@sinclair/typebox';
import { Input, Metadata, Timestamp, Uuid } from '../../core/sdk';

export const EmbeddingCreate = Input({
  text: Type.String({ minLength: 1, maxLength: 32_000, description: 'The text to embed.' }),
  ref: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Your id for what the text describes (product:<id>); writing a ref again replaces its embedding, re-embedding only changed text.',
    }),
  ),
  metadata: Type.Optional(Metadata()),
});

export const SimilarQuery = Input({
  query: Type.String({ minLength: 1, maxLength: 4000, description: 'The text to find neighbours of.' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
});

const fields = {
  id: Uuid(),
  ref: Type.Union([Type.String(), Type.Null()]),
  metadata: Type.Record(Type.String(), Type.String()),
  model: Type.String({ description: 'The embeddings model (SVC_EMBEDDINGS_MODEL).' }),
  dimensions: Type.Integer({ minimum: 1 }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
};

export const Embedding = Type.Object({ object: Type.Literal('embedding'), ...fields });

export const SimilarList = Type.Object({
  object: Type.Literal('list'),
  model: Type.String(),
  data: Type.Array(
    Type.Object({
      object: Type.Literal('embedding'),
      ...fields,
      text: Type.String(),
      similarity: Type.Number({ minimum: -1, maximum: 1, description: 'Cosine similarity to the query: 1 is the same direction.' }),
    }),
    { description: 'Nearest first.' },
  ),
});
