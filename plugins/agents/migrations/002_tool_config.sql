-- Per-agent approval overrides (SPEC 4.5 tool_overrides), keyed by tool name.
ALTER TABLE agents ADD COLUMN IF NOT EXISTS tool_config jsonb NOT NULL DEFAULT '{}';
