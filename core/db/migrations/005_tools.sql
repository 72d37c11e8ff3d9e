-- Custom tools (SPEC 2.5) and the tool execution audit log with its approval state (SPEC 2.6, 3.1).
-- Core owns them: core/tools runs every tool call by agents and MCP clients through one path that
-- reads custom_tools and writes tool_executions.

CREATE TABLE IF NOT EXISTS custom_tools (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  name text NOT NULL,
  -- The form it was registered in ('store' = STORE/tools, 'gateway' = /custom-tools); both forms
  -- read and change every tool, this only picks the default view.
  shape text NOT NULL CHECK (shape IN ('store', 'gateway')),
  description text NOT NULL,
  category text,
  input_schema jsonb NOT NULL,
  kind text NOT NULL CHECK (kind IN ('http', 'javascript')),
  -- http: url, method, headers, timeout_ms; javascript: code. Secret references, never values.
  config jsonb NOT NULL,
  visibility text NOT NULL CHECK (visibility IN ('private', 'public')),
  requires_plan text NOT NULL DEFAULT 'free',
  requires_approval boolean NOT NULL DEFAULT false,
  approval_timeout_minutes integer NOT NULL DEFAULT 30,
  timeout_action text NOT NULL DEFAULT 'reject',
  escalation_group text,
  -- AES-256-GCM sealed JSON object of name -> value (core/secrets.ts); the names alone are shown.
  secrets text,
  secret_names jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS custom_tools_store_name ON custom_tools (store_id, name);
CREATE INDEX IF NOT EXISTS custom_tools_store_seq ON custom_tools (store_id, seq);
CREATE INDEX IF NOT EXISTS custom_tools_public ON custom_tools (name) WHERE visibility = 'public';

CREATE TABLE IF NOT EXISTS tool_executions (
  id uuid PRIMARY KEY,
  store_id uuid NOT NULL REFERENCES stores(id),
  seq bigserial NOT NULL,
  tool text NOT NULL,
  action text NOT NULL,
  -- The custom tool run, if it was one (it may later be deleted: the record stays).
  custom_tool_id uuid,
  agent_id uuid,
  agent_name text,
  -- 'agent' or 'mcp': who called.
  source text NOT NULL,
  status text NOT NULL,
  duration_ms integer,
  input jsonb NOT NULL,
  output jsonb,
  -- Approval state of a gated call: the settings it was gated with, the decision and who made it.
  approval jsonb,
  expires_at timestamptz,
  -- A held call's key id and scopes, so an approved call runs with exactly the rights it was asked
  -- with (null once a call ran without waiting).
  principal jsonb,
  created_at timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX IF NOT EXISTS tool_executions_store_created ON tool_executions (store_id, created_at DESC, seq DESC);
CREATE INDEX IF NOT EXISTS tool_executions_pending ON tool_executions (store_id, status) WHERE status IN ('pending_approval', 'approved');
