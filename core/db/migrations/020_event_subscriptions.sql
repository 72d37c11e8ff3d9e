-- Event types a plugin hears in one store only, decided at run time (a workflow's event trigger):
-- such events are stored for that store and handed to the plugin's `on['*']` reaction, as a
-- declared `on` would be for every store. The plugin replaces its own set (setEventSubscriptions).
CREATE TABLE IF NOT EXISTS event_subscriptions (
  store_id uuid NOT NULL REFERENCES stores(id),
  plugin text NOT NULL,
  type text NOT NULL,
  PRIMARY KEY (store_id, type, plugin)
);

-- What caused an event, when a plugin said so (withEventCause): a workflow run's chain depth, so a
-- run its own events start can be stopped past the limit. Never part of the delivered body.
ALTER TABLE events ADD COLUMN IF NOT EXISTS cause jsonb;
