-- MCP tasks (2025-11-25, issue 51): a tools/call made as a task. The task IS the tool execution
-- (`id` is the execution's id), so this row keeps only what the execution does not: whose task it
-- is (the credential that created it, in its store), the MCP session to notify, the lifetime the
-- client asked for, and, for a call that ran in the background or started a job, its outcome.
-- A held call's state is read from tool_executions; a job's from jobs.
CREATE TABLE IF NOT EXISTS mcp_tasks (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  -- credentialId(): an API key's id, or the user's id.
  owner text NOT NULL,
  session_id text,
  tool text NOT NULL,
  action text NOT NULL,
  -- run: ran (or runs) in the background; held: waits for an approver (tool_executions); job: follows jobs.
  kind text NOT NULL CHECK (kind IN ('run', 'held', 'job')),
  job_id uuid,
  status text NOT NULL CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
  status_message text,
  -- The CallToolResult tasks/result answers, once the task is terminal.
  result jsonb,
  ttl_ms bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS mcp_tasks_owner ON mcp_tasks (store_id, owner, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS mcp_tasks_job ON mcp_tasks (job_id) WHERE job_id IS NOT NULL;

-- Every change that moves a task is announced on commit, to whichever process holds the session's
-- stream (core/mcp/tasks.ts): the task row itself, its held execution, its job.
CREATE OR REPLACE FUNCTION svc_notify_mcp_task() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'mcp_tasks' THEN
    PERFORM pg_notify('svc_mcp_task_changed', json_build_object('store_id', NEW.store_id, 'id', NEW.id)::text);
  ELSIF TG_TABLE_NAME = 'jobs' THEN
    PERFORM pg_notify('svc_mcp_task_changed', json_build_object('store_id', t.store_id, 'id', t.id)::text)
      FROM mcp_tasks t WHERE t.job_id = NEW.id;
  ELSE
    PERFORM pg_notify('svc_mcp_task_changed', json_build_object('store_id', t.store_id, 'id', t.id)::text)
      FROM mcp_tasks t WHERE t.id = NEW.id;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS mcp_tasks_changed ON mcp_tasks;
CREATE TRIGGER mcp_tasks_changed AFTER INSERT OR UPDATE OF status, status_message ON mcp_tasks
  FOR EACH ROW EXECUTE FUNCTION svc_notify_mcp_task();
-- Held calls only: ungated audit rows are written finished and never updated (the hot path is untouched).
DROP TRIGGER IF EXISTS tool_executions_task ON tool_executions;
CREATE TRIGGER tool_executions_task AFTER UPDATE OF status ON tool_executions
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION svc_notify_mcp_task();
DROP TRIGGER IF EXISTS jobs_task ON jobs;
CREATE TRIGGER jobs_task AFTER UPDATE OF status ON jobs
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION svc_notify_mcp_task();

-- MCP resource subscriptions (core/mcp/resources.ts): which session hears which record's changes.
-- The record's event types are kept for the store meanwhile (event_subscriptions, plugin 'mcp').
CREATE TABLE IF NOT EXISTS mcp_resource_subscriptions (
  session_id text NOT NULL REFERENCES mcp_sessions(id) ON DELETE CASCADE,
  store_id uuid NOT NULL REFERENCES stores(id),
  uri text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (session_id, uri)
);
CREATE INDEX IF NOT EXISTS mcp_resource_subscriptions_uri ON mcp_resource_subscriptions (store_id, uri);

-- An event of a type an MCP session subscribed to in this store names its record on commit.
CREATE OR REPLACE FUNCTION svc_notify_mcp_resource() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'events' THEN
    IF EXISTS (SELECT 1 FROM event_subscriptions WHERE store_id = NEW.store_id AND plugin = 'mcp' AND type = NEW.type) THEN
      PERFORM pg_notify('svc_mcp_resource_changed',
        json_build_object('store_id', NEW.store_id, 'type', NEW.type, 'id', (NEW.body::jsonb)->'data'->>'id')::text);
    END IF;
  ELSIF EXISTS (SELECT 1 FROM mcp_resource_subscriptions WHERE store_id = NEW.store_id AND uri = 'svc://tool-executions/' || NEW.id) THEN
    -- A held call's every move (tool executions have no event for most of them).
    PERFORM pg_notify('svc_mcp_resource_changed', json_build_object('store_id', NEW.store_id, 'type', 'tool_execution.changed', 'id', NEW.id)::text);
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS events_mcp_resource ON events;
CREATE TRIGGER events_mcp_resource AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION svc_notify_mcp_resource();
DROP TRIGGER IF EXISTS tool_executions_mcp_resource ON tool_executions;
CREATE TRIGGER tool_executions_mcp_resource AFTER UPDATE OF status ON tool_executions
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION svc_notify_mcp_resource();

-- The store-wide tool-config (GET/PATCH STORE/tool-config): tool_overrides in an agent's shape,
-- plus requires_confirmation, which asks the human behind an MCP call (elicitation).
CREATE TABLE IF NOT EXISTS store_tool_config (
  store_id uuid PRIMARY KEY REFERENCES stores(id),
  tool_overrides jsonb NOT NULL DEFAULT '{}'::jsonb,
  updated_at timestamptz NOT NULL
);
