import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  McpError,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import type { PluginDef } from '../plugins/contract';
import { callTool, type ToolCaller } from '../tools/call';
import { DISCOVER_TOOLS, discover, listTools, resolveCall, type ToolOptions } from './tools';
import pkg from '../../package.json';

export const SERVER_INFO = { name: 'svc', version: pkg.version };
export const INSTRUCTIONS =
  'Commerce tools for one store. Each tool is a category with an "action" argument; call discover_tools with tool_name for the full input schema of its actions.';

// The text mirror is for clients that ignore structuredContent; compact, since it is sent twice.
const textResult = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value) }],
  ...(isError ? { isError: true } : { structuredContent: value as Record<string, unknown> }),
});

// One validator for every per-request server: building an Ajv instance per request is costly.
const validator = new AjvJsonSchemaValidator();
const LEVELS = LoggingLevelSchema.options;

export interface SessionHooks {
  /** The level set by logging/setLevel, kept in the session. */
  logLevel?: LoggingLevel;
  setLogLevel: (level: LoggingLevel) => Promise<void>;
}

/**
 * An MCP server (the SDK's low-level Server: it takes our TypeBox JSON Schemas as they are)
 * whose tools are derived from the plugin registry for one caller.
 */
export function buildMcpServer(plugins: PluginDef[], caller: ToolCaller, opts: ToolOptions, hooks?: SessionHooks): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, logging: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: validator,
  });
  // The level lives in the session, not in this per-request server.
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    await hooks?.setLogLevel(request.params.level);
    return {};
  });
  const logs = (level: LoggingLevel) => LEVELS.indexOf(level) >= LEVELS.indexOf(hooks?.logLevel ?? 'info');
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools(plugins, caller.principal, opts) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
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
    if (logs('warning'))
      await extra
        .sendNotification({
          method: 'notifications/message',
          params: { level: 'warning', logger: 'svc', data: { tool: name, code: e.code, message: e.message } },
        })
        .catch(() => {});
    return textResult({ error: { type: e.type, code: e.code, message: e.message, param: e.param } }, true);
  });
  return server;
}
