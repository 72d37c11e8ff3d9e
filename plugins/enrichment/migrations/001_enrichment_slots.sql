-- The per-store limit on concurrent enrichments (SVC_ENRICHMENT_CONCURRENCY): one row per slot a
-- bulk_enrich worker holds, leased until held_until so a crashed worker's slot frees itself.
CREATE TABLE IF NOT EXISTS enrichment_slots (
  store_id uuid NOT NULL REFERENCES stores(id),
  slot integer NOT NULL,
  holder uuid NOT NULL,
  held_until timestamptz NOT NULL,
  PRIMARY KEY (store_id, slot)
);
