-- Copies each store's settings time zone to stores.timezone (core/025), which updateSettings keeps in step.
UPDATE stores SET timezone = t.timezone FROM store_settings t WHERE t.store_id = stores.id AND stores.timezone IS DISTINCT FROM t.timezone;
