-- The store's IANA time zone, kept beside the store by the store plugin's settings (issue 47):
-- provider usage counts each call on the day of the store's own calendar, and the core reads it
-- here without reaching into a plugin's table. The store plugin's migration copies existing settings.
ALTER TABLE stores ADD COLUMN IF NOT EXISTS timezone text NOT NULL DEFAULT 'UTC';
