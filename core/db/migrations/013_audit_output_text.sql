-- A tool call's output is kept as the JSON text the call answered, not parsed into jsonb: every
-- call writes one, and the parse was about a third of what a record cost the database (measured:
-- 8-12 µs of its CPU for a product). Nothing queries inside an output; readers parse it
-- (core/tools/executions.ts). A one-time rewrite of the table on upgrade.
ALTER TABLE tool_executions ALTER COLUMN output TYPE text USING output::text;
