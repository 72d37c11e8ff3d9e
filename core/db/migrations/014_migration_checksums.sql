-- The SHA-256 of each applied migration's SQL, so a migration edited after it ran is caught at
-- start instead of silently skipped. Rows applied before this column existed are filled by the
-- migrator on its next start (it has every migration's text at hand).
ALTER TABLE svc_migrations ADD COLUMN IF NOT EXISTS checksum text;
