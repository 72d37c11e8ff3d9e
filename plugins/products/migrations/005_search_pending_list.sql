-- Issue 21: the q search (search.ts, which now holds SEARCH_TEXT) reads the trigram indexes of
-- migration 003 for terms that are rare near the page. A GIN index by default queues new entries
-- in a pending list that every search scans in full until VACUUM merges it; the embedded database
-- has no autovacuum, so there the list grows to gin_pending_list_limit (4 MB) and each rare-term
-- search paid for it (the index scan took 1-8 ms at 100,000 products, 0.04 ms merged). Entries
-- now go straight into the index (a little more work per product write), and the list so far is
-- merged once. Absent indexes (no pg_trgm) are skipped; running this again changes nothing.
DO $$
DECLARE
  idx text;
BEGIN
  FOREACH idx IN ARRAY ARRAY['products_search', 'product_variants_search'] LOOP
    IF to_regclass(idx) IS NOT NULL THEN
      EXECUTE format('ALTER INDEX %I SET (fastupdate = off)', idx);
      PERFORM gin_clean_pending_list(to_regclass(idx));
    END IF;
  END LOOP;
END $$;
