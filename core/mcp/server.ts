import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  LoggingLevelSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import type { Registry } from '../plugins/registry';
import { callTool, resolveTarget } from '../tools/call';
import type { ToolCaller } from '../tools/types';
import { usableCustomTools } from '../tools/custom';
import { CUSTOM_TOOLSET, DISCOVER_TOOLS, discover, listTools, type ToolOptions } from '../tools/catalog';
import { jsonText } from '../json-text';
import pkg from '../../package.json';
import { readUiResource, uiResources, uiToolTarget, withUiTools } from './apps';
import { callerCtx, invoke } from '../plugins/invoke';
import { toToolError } from '../errors';

export const SERVER_INFO = { name: 'svc', version: pkg.version };
export const INSTRUCTIONS =
  'Commerce tools for one store. Each tool is a category with an "action" argument; call discover_tools with tool_name for the full input schema of its actions.';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A tool's answer as an MCP result. structuredContent must be a JSON object, but a custom tool may
 * return any JSON value (42, "text", [..], null, true): those are wrapped as {"result": <value>}.
 * The text mirror, for clients that ignore structuredContent, is the same JSON; compact, since it
 * is sent twice.
 */
const textResult = (value: unknown, isError = false): CallToolResult => {
  if (isError) return { content: [{ type: 'text', text: JSON.stringify(value) }], isError: true };
  const structured = isRecord(value) ? value : { result: value ?? null };
  const image = imageOf(structured);
  if (image) {
    // An image an action returns (`image: {object: 'image', mime_type, data}`, e.g. a QR code) goes
    // to the client once, as MCP image content a model can see, not as base64 inside the JSON.
    const { image: _, ...rest } = structured;
    return {
      content: [
        { type: 'text', text: jsonText(rest) },
        { type: 'image', data: image.data, mimeType: image.mime_type },
      ],
      structuredContent: rest,
    };
  }
  return { content: [{ type: 'text', text: jsonText(structured) }], structuredContent: structured };
};

const imageOf = (v: Record<string, unknown>) => {
  const i = v.image as Record<string, unknown> | undefined;
  return isRecord(i) && i.object === 'image' && typeof i.data === 'string' && typeof i.mime_type === 'string'
    ? (i as { data: string; mime_type: string })
    : undefined;
};

/**
 * A JSON-RPC error the SDK sends as it is. Not McpError: its message already reads "MCP error
 * -32602: ...", which the SDK would send, and the client's McpError would prefix once more.
 */
export const protocolError = (code: number, message: string, data?: unknown) => Object.assign(new Error(message), { code, data });

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
export function buildMcpServer(registry: Registry, caller: Omit<ToolCaller, 'source'>, opts: ToolOptions, hooks?: SessionHooks): Server {
  const server = new Server(SERVER_INFO, {
    // Resources only for MCP Apps clients (core/mcp/apps.ts): their views.
    capabilities: { tools: { listChanged: true }, logging: {}, ...(opts.ui ? { resources: {} } : {}) },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: validator,
  });
  // The level lives in the session, not in this per-request server.
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    await hooks?.setLogLevel(request.params.level);
    return {};
  });
  const logs = (level: LoggingLevel) => LEVELS.indexOf(level) >= LEVELS.indexOf(hooks?.logLevel ?? 'info');
  const custom = () => usableCustomTools(caller.db, caller.store.id);
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = listTools(registry, caller.principal, opts, await custom());
    return { tools: opts.ui ? withUiTools(registry, tools, opts.mode, opts.toolsets) : tools };
  });
  if (opts.ui) {
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: uiResources(registry) }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const found = readUiResource(registry, request.params.uri);
      if (!found) throw protocolError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
      return found;
    });
  }
  const callHandler = toolCallHandler(registry, caller, opts, logs);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callHandler(request.params, (n) => extra.sendNotification(n)));
  return server;
}

type Notify = (notification: { method: 'notifications/message'; params: { level: LoggingLevel; logger: string; data: unknown } }) => Promise<void>;

/**
 * tools/call for one caller: what the SDK server runs, and what the JSON fast path of
 * core/mcp/http.ts runs without building a server. `logs` says whether a level is wanted
 * (warnings about failed calls go out as log messages, when there is a stream to carry them).
 */
export function toolCallHandler(
  registry: Registry,
  caller: Omit<ToolCaller, 'source'>,
  opts: ToolOptions,
  logs: (level: LoggingLevel) => boolean = () => false,
) {
  return async (params: { name: string; arguments?: Record<string, unknown> }, notify?: Notify): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = params;
    if (name === DISCOVER_TOOLS) {
      const toolName = typeof args.tool_name === 'string' ? args.tool_name : undefined;
      const found = discover(registry, caller.principal, opts, toolName, await usableCustomTools(caller.db, caller.store.id));
      if (!found) return textResult({ error: `No tool named '${toolName}' is available to this connection.` }, true);
      return textResult(found);
    }
    if (opts.ui) {
      // An app-only tool (core/mcp/apps.ts): one plugin action, run through invoke with the caller's scopes.
      const app = uiToolTarget(registry, name, args, opts.mode);
      if (app && !app.actionName)
        return textResult({ error: { type: 'invalid_request_error', code: 'validation_failed', message: app.error, param: 'action' } }, true);
      if (app?.action) {
        try {
          return textResult(
            await invoke(app.plugin, app.action, callerCtx(caller, caller.principal, caller.store, { origin: caller.origin }), app.input),
          );
        } catch (err) {
          const e = toToolError(err);
          return textResult({ error: { type: e.type, code: e.code, message: e.message, param: e.param } }, true);
        }
      }
    }
    const target = await resolveTarget(caller.db, registry, caller.store.id, name, args);
    const toolset = target?.kind === 'builtin' ? target.plugin.name : CUSTOM_TOOLSET;
    if (!target || (opts.toolsets && !opts.toolsets.includes(toolset))) throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const outcome = await callTool({ ...caller, readOnly: opts.readOnly, source: 'mcp' }, target);
    if (outcome.kind === 'result') return textResult(outcome.result);
    // Gated (SPEC 3.1): not an error; the client holds the execution id and fetches the outcome
    // later (tool_executions get_execution) once an approver decided.
    if (outcome.kind === 'pending')
      return textResult({
        status: 'pending_approval',
        execution_id: outcome.executionId,
        message: `${outcome.message} The call is waiting for a human decision; fetch its outcome with tool_executions get_execution (id ${outcome.executionId}).`,
      });
    const e = outcome.error;
    if (notify && logs('warning'))
      await notify({
        method: 'notifications/message',
        params: { level: 'warning', logger: 'svc', data: { tool: name, code: e.code, message: e.message } },
      }).catch(() => {});
    return textResult({ error: { type: e.type, code: e.code, message: e.message, param: e.param } }, true);
  };
}
