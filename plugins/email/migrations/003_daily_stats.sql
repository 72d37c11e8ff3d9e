-- Stats without scanning events: the first event of each kind per message (a message opened ten
-- times counts once), and per store and UTC day how many messages had that first event (and were
-- sent). GET /email/stats sums at most a row per day and kind.
CREATE TABLE IF NOT EXISTS email_event_firsts (
  message_id uuid NOT NULL,
  event text NOT NULL,
  store_id uuid NOT NULL,
  PRIMARY KEY (message_id, event)
);
-- `shard`: each count is spread over 16 rows picked at random, so concurrent sends and opens of
-- one store do not queue on one row's lock until their transactions commit.
CREATE TABLE IF NOT EXISTS email_daily_stats (
  store_id uuid NOT NULL REFERENCES stores(id),
  day date NOT NULL,
  event text NOT NULL,
  shard smallint NOT NULL,
  messages integer NOT NULL,
  PRIMARY KEY (store_id, day, event, shard)
);
