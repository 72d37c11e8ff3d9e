-- MCP Streamable HTTP sessions live here, not in one process's memory, so a session works
-- whichever API process a request lands on.
CREATE TABLE IF NOT EXISTS mcp_sessions (
  id text PRIMARY KEY,
  api_key_id uuid NOT NULL,
  store_id uuid NOT NULL,
  protocol_version text NOT NULL,
  options jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_sessions_last_used ON mcp_sessions (last_used_at);
