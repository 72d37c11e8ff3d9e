-- Text embeddings of a store. Vectors are stored unit length, so cosine similarity is their dot
-- product; `real[]` with exact search in SQL works on every PostgreSQL and on PGlite.
CREATE TABLE IF NOT EXISTS embeddings (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  ref text,
  metadata jsonb NOT NULL DEFAULT '{}',
  content text NOT NULL,
  content_hash text NOT NULL,
  model text NOT NULL,
  dimensions integer NOT NULL,
  vector real[] NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
-- One embedding per ref: writing a ref again replaces it (and re-embeds only when its text changed).
CREATE UNIQUE INDEX IF NOT EXISTS embeddings_store_ref ON embeddings (store_id, ref) WHERE ref IS NOT NULL;
CREATE INDEX IF NOT EXISTS embeddings_store_model ON embeddings (store_id, model, dimensions);
