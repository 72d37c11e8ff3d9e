-- Changes other server processes must hear about, announced by the database itself on commit
-- (NOTIFY is transactional): whoever writes the row, svc or an operator by hand, every process
-- listening (core/mcp/tool-watch.ts) learns of it at once. Replaces a 2 s polling watch.

-- A store's tool list changed: its own tools, or a public one ('*': any store may have enabled it).
CREATE OR REPLACE FUNCTION svc_notify_tools() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
  IF r.visibility = 'public' OR (TG_OP = 'UPDATE' AND OLD.visibility = 'public') THEN
    PERFORM pg_notify('svc_tools_changed', '*');
  ELSE
    PERFORM pg_notify('svc_tools_changed', r.store_id::text);
  END IF;
  RETURN NULL;
END $$;

-- A store enabled or disabled another store's public tool: only its own list changed.
CREATE OR REPLACE FUNCTION svc_notify_enablements() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('svc_tools_changed', OLD.store_id::text);
  ELSE
    PERFORM pg_notify('svc_tools_changed', NEW.store_id::text);
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS custom_tools_changed ON custom_tools;
CREATE TRIGGER custom_tools_changed AFTER INSERT OR DELETE OR UPDATE OF name, description, category, input_schema, kind, visibility
  ON custom_tools FOR EACH ROW EXECUTE FUNCTION svc_notify_tools();
DROP TRIGGER IF EXISTS custom_tool_enablements_changed ON custom_tool_enablements;
CREATE TRIGGER custom_tool_enablements_changed AFTER INSERT OR DELETE
  ON custom_tool_enablements FOR EACH ROW EXECUTE FUNCTION svc_notify_enablements();

-- An MCP session ended (DELETE on any process): its GET stream, wherever it is open, ends too.
CREATE OR REPLACE FUNCTION svc_notify_session_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_mcp_session_ended', OLD.id::text);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS mcp_sessions_ended ON mcp_sessions;
CREATE TRIGGER mcp_sessions_ended AFTER DELETE ON mcp_sessions FOR EACH ROW EXECUTE FUNCTION svc_notify_session_ended();
