-- The audit records of successful built-in reads, written as pages (core/tools/audit-pages.ts):
-- one row holds every such record of a store from a few milliseconds, as one JSON array, where a
-- row per record cost the database 8-12 µs a record against 2-3.5 (measured), and the server kept
-- an object per record until its batch was written. Every other record (changes, failed calls,
-- custom tools, held calls) stays a row of tool_executions. The API reads both as one log.
CREATE TABLE IF NOT EXISTS tool_execution_pages (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL,
  -- The span of the records' created_at and of their ids (UUIDv7), so readers open only the pages
  -- that can hold what they look for.
  first_at timestamptz NOT NULL,
  last_at timestamptz NOT NULL,
  first_id uuid NOT NULL,
  last_id uuid NOT NULL,
  -- How many records, in all, per tool ({"products": 27}) and per agent id ("" for calls without
  -- an agent): a total filtered by tool or agent counts most pages without opening them, and the
  -- list opens only pages that hold a match.
  count integer NOT NULL,
  tools jsonb NOT NULL,
  agents jsonb NOT NULL,
  -- A JSON array of records: {id, tool, action, agent_id, agent_name, source, status,
  -- duration_ms, created_at, input, output}.
  body text NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_execution_pages_store_last ON tool_execution_pages (store_id, last_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS tool_execution_pages_store_first_id ON tool_execution_pages (store_id, first_id) INCLUDE (last_id);
-- lz4 where the server has it (Debian's PostgreSQL does): a page is several kB of similar JSON.
DO $$ BEGIN
  ALTER TABLE tool_execution_pages ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN OTHERS THEN NULL;
END $$;

-- One order for rows and page records: newest first, ties by id (UUIDv7, so in the order made).
CREATE INDEX IF NOT EXISTS tool_executions_store_created_id ON tool_executions (store_id, created_at DESC, id DESC);
DROP INDEX IF EXISTS tool_executions_store_created;

-- The whole log, one row per record, for operators' SQL and tests (the API reads it with pruning):
-- SELECT * FROM tool_execution_log() WHERE store_id = '...'. A function, not a view: a view would
-- pin the columns' types, and migrations must apply again on a database that has them.
CREATE OR REPLACE FUNCTION tool_execution_log() RETURNS TABLE (
  id uuid, store_id uuid, tool text, action text, custom_tool_id uuid, agent_id uuid, agent_name text, source text, status text,
  duration_ms integer, input jsonb, output text, approval jsonb, expires_at timestamptz, principal jsonb, created_at timestamptz,
  completed_at timestamptz
) LANGUAGE sql STABLE AS $$
  SELECT id, store_id, tool, action, custom_tool_id, agent_id, agent_name, source, status, duration_ms, input, output,
         approval, expires_at, principal, created_at, completed_at
    FROM tool_executions
  UNION ALL
  SELECT r.id, p.store_id, r.tool, r.action, NULL::uuid, r.agent_id, r.agent_name, r.source, r.status, r.duration_ms, r.input,
         coalesce(r.output_text, r.output::text), NULL::jsonb, NULL::timestamptz, NULL::jsonb, r.created_at, r.created_at
    FROM tool_execution_pages p
    CROSS JOIN LATERAL json_to_recordset(p.body::json) AS r(id uuid, tool text, action text, agent_id uuid, agent_name text,
      source text, status text, duration_ms integer, input jsonb, output json, output_text text, created_at timestamptz)
$$;
