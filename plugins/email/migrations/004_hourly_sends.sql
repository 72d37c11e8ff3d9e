-- The hourly sending limit as a counter per store and UTC clock hour: one row to bump (and lock
-- briefly) per accepted message, instead of counting the store's messages of the last hour.
CREATE TABLE IF NOT EXISTS email_hourly_sends (
  store_id uuid NOT NULL REFERENCES stores(id),
  hour timestamptz NOT NULL,
  messages integer NOT NULL,
  PRIMARY KEY (store_id, hour)
);
-- What was accepted this hour before the counter existed still counts.
INSERT INTO email_hourly_sends (store_id, hour, messages)
SELECT store_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', count(*)
FROM email_messages WHERE created_at > now() - interval '1 hour'
GROUP BY 1, 2
ON CONFLICT DO NOTHING;
