-- pgvector, where this PostgreSQL has it and svc may create it (a superuser, or an operator who ran
-- CREATE EXTENSION vector beforehand): query_similar then walks an HNSW index per dimension count,
-- made on the first write of that count (vector-index.ts). Anywhere else (PGlite, a server without
-- the extension, a role that may not create it) this does nothing and the exact search over
-- real[] stays: same answers, a linear scan of the store's embeddings.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS vector;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pgvector is not available (%): embeddings use exact search over real[]', SQLERRM;
END $$;
