-- issue 51: a custom tool may ask the human behind an MCP call to confirm it (elicitation) before
-- it runs, beside requires_approval (an approver's decision). The table is the core's (005_tools).
ALTER TABLE custom_tools ADD COLUMN IF NOT EXISTS requires_confirmation boolean NOT NULL DEFAULT false;
