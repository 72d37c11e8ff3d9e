-- The webchat channel (issue 27): a storefront visitor's conversation belongs to that visitor (the
-- widget's random id), so another visitor cannot continue or read it; messages per visitor per
-- minute are counted in the database, so every server process shares one limit.
ALTER TABLE agent_conversations ADD COLUMN IF NOT EXISTS visitor_id text;
CREATE TABLE IF NOT EXISTS webchat_rate (
  store_id uuid NOT NULL REFERENCES stores(id),
  visitor text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (store_id, visitor, window_start)
);
