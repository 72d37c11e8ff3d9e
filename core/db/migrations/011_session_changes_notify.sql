-- An MCP session's options changed (logging/setLevel through any process): processes that keep
-- the session in memory (core/mcp/sessions.ts) hear it and read the row again.
CREATE OR REPLACE FUNCTION svc_notify_session_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_mcp_session_changed', NEW.id::text);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS mcp_sessions_changed ON mcp_sessions;
CREATE TRIGGER mcp_sessions_changed AFTER UPDATE OF options ON mcp_sessions FOR EACH ROW EXECUTE FUNCTION svc_notify_session_changed();
