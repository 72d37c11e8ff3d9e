-- Public custom tools (issue 20 §2): publishing a tool to every store is an operator act (the admin
-- API), and a store's agents and MCP clients are offered another store's public tool only once the
-- store enables it (a row here) or an agent names it in its `tools`.
CREATE TABLE IF NOT EXISTS custom_tool_enablements (
  store_id uuid NOT NULL REFERENCES stores(id),
  tool_id uuid NOT NULL REFERENCES custom_tools(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (store_id, tool_id)
);
CREATE INDEX IF NOT EXISTS custom_tool_enablements_tool ON custom_tool_enablements (tool_id);

-- Tools made public by their own store before that became the operator's decision go back to
-- private: the operator publishes the ones that should be public (POST /v1/admin/tools/{id}/publish).
UPDATE custom_tools SET visibility = 'private' WHERE visibility = 'public';
