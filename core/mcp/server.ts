import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PluginDef } from '../plugins/contract';
import { callTool, type ToolCaller } from '../tools/call';
import { DISCOVER_TOOLS, discover, listTools, resolveCall, type ToolOptions } from './tools';
import pkg from '../../package.json';

export const SERVER_INFO = { name: 'svc', version: pkg.version };
export const INSTRUCTIONS =
  'Commerce tools for one store. Each tool is a category with an "action" argument; call discover_tools with tool_name for the full input schema of its actions.';

const textResult = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : { structuredContent: value as Record<string, unknown> }),
});

/**
 * An MCP server (the SDK's low-level Server: it takes our TypeBox JSON Schemas as they are)
 * whose tools are derived from the plugin registry for one caller.
 */
export function buildMcpServer(plugins: PluginDef[], caller: ToolCaller, opts: ToolOptions): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(plugins, caller.principal, opts) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    if (name === DISCOVER_TOOLS) {
      const toolName = typeof args.tool_name === 'string' ? args.tool_name : undefined;
      const found = discover(plugins, caller.principal, opts, toolName);
      if (!found) return textResult({ error: `No tool named '${toolName}' is available to this connection.` }, true);
      return textResult(found);
    }
    const target = resolveCall(plugins, name, args);
    if (!target || (opts.toolsets && !opts.toolsets.includes(target.plugin.name)))
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const outcome = await callTool({ ...caller, readOnly: opts.readOnly }, target.plugin, target.actionName, target.input);
    if (outcome.ok) return textResult(outcome.result);
    const e = outcome.error;
    return textResult({ error: { type: e.type, code: e.code, message: e.message, param: e.param } }, true);
  });
  return server;
}
