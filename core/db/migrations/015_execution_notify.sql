-- Tool executions an approver must hear about, announced on commit (NOTIFY is transactional) to
-- every process listening (core/tools/execution-stream.ts): a call held for approval, and every
-- later change of a gated call (decided, escalated, run). The audit log's ungated rows (written
-- finished, never updated) announce nothing: they are the hot path.
CREATE OR REPLACE FUNCTION svc_notify_execution() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_tool_execution_changed', json_build_object('store_id', NEW.store_id, 'id', NEW.id, 'status', NEW.status)::text);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS tool_executions_held ON tool_executions;
CREATE TRIGGER tool_executions_held AFTER INSERT ON tool_executions
  FOR EACH ROW WHEN (NEW.status = 'pending_approval') EXECUTE FUNCTION svc_notify_execution();
DROP TRIGGER IF EXISTS tool_executions_changed ON tool_executions;
CREATE TRIGGER tool_executions_changed AFTER UPDATE OF status, expires_at ON tool_executions
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.expires_at IS DISTINCT FROM NEW.expires_at)
  EXECUTE FUNCTION svc_notify_execution();
