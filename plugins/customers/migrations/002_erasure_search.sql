-- Erasure (delete_customer): the row stays so orders keep pointing at it, with every personal
-- field scrubbed and erased_at set; erased rows are gone from every lookup. The email goes too,
-- so it may be NULL now (the unique index ignores NULLs: the address is free for a new customer).
ALTER TABLE customers ADD COLUMN IF NOT EXISTS erased_at timestamptz;
ALTER TABLE customers ALTER COLUMN email DROP NOT NULL;

-- metadata[key]=value filters are jsonb containment (@>), which this index serves.
CREATE INDEX IF NOT EXISTS customers_metadata ON customers USING gin (metadata jsonb_path_ops);

-- created[gte]/[lte] filters within a store.
CREATE INDEX IF NOT EXISTS customers_store_created ON customers (store_id, created_at);

-- The q filter is a case-insensitive substring match on the name and email (store.ts SEARCH_TEXT,
-- the same expression). A trigram GIN index serves it for 3 or more characters; pg_trgm ships
-- with PostgreSQL (contrib, a trusted extension since 13) and svc loads it into the embedded
-- database. Where it cannot be installed the filter still works, scanning the store's customers.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): customer search by q runs without its index', SQLERRM;
END $$;
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    CREATE INDEX IF NOT EXISTS customers_search ON customers USING gin (
      (lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, ''))) gin_trgm_ops
    );
  END IF;
EXCEPTION WHEN undefined_object THEN
  -- pg_trgm installed in a schema outside the search path: its operator class is not visible.
  RAISE NOTICE 'gin_trgm_ops is not visible (%): customer search by q runs without its index', SQLERRM;
END $$;
