import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ElicitResultSchema,
  CreateMessageResultSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  ListPromptsRequestSchema,
  GetPromptRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
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
import { errorResult, textResult } from './results';
import { cancelTask, getTask, listTasks, startTask, taskResult } from './tasks';
import { readResource, resourceTemplates, subscribe, unsubscribe } from './resources';
import { getPrompt, listPrompts } from './prompts';
import {
  completePrompt,
  getPluginPrompt,
  pluginPrompts,
  pluginResourceFor,
  pluginResources,
  pluginTemplates,
  readPluginResource,
} from './plugin-content';
import { auditDeclined, elicitation, targetConfirmation } from './confirm';
import { waitForOutcome } from '../tools/approvals';
import { freshStoreToolConfig, storeToolConfig } from '../tools/store-config';
import pkg from '../../package.json';
import { readUiResource, uiResources, uiToolTarget, withUiTools } from './apps';
import { callerCtx, invoke } from '../plugins/invoke';
import { fail, toToolError } from '../errors';
import type { McpClient } from '../plugins/contract';

export const SERVER_INFO = { name: 'svc', version: pkg.version };
export const INSTRUCTIONS =
  'Commerce tools for one store. Each tool is a category with an "action" argument; call discover_tools with tool_name for the full input schema of its actions.';

/** What /agent/mcp offers every client (the local bridges advertise it too while the server is unreachable). */
export const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  logging: {},
  // Tasks (2025-11-25): any tools/call may run as one; a client that does not ask sees no change.
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  // Records by URI (svc://products/{id}, core/mcp/resources.ts) and three prompts (core/mcp/prompts.ts).
  resources: { subscribe: true },
  prompts: {},
  completions: {},
};

export { protocolError } from './results';
import { protocolError } from './results';

// One validator for every per-request server: building an Ajv instance per request is costly.
const validator = new AjvJsonSchemaValidator();
const LEVELS = LoggingLevelSchema.options;

export interface SessionHooks {
  /** A call's question to the client (elicitation, sampling) is about to go (true) or has settled (false). */
  awaiting?: (waiting: boolean) => void;
  /** The session's id: where a task's status notifications go. */
  sessionId?: string;
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
    capabilities: SERVER_CAPABILITIES,
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: validator,
  });
  // This per-request server never saw initialize: what the client declared then (kept in the
  // session) is what the SDK checks before sending notifications/elicitation/complete.
  if (opts.elicitation)
    Object.assign(server, {
      _clientCapabilities: { elicitation: { ...(opts.elicitation.form ? { form: {} } : {}), ...(opts.elicitation.url ? { url: {} } : {}) } },
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
  const callHandler = toolCallHandler(registry, caller, opts, logs);
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    request.params.task
      ? taskCall(registry, caller, opts, request.params, hooks?.sessionId)
      : callHandler(
          request.params,
          (n) => extra.sendNotification(n),
          async (req) => {
            hooks?.awaiting?.(true);
            try {
              // A cancelled call stops waiting for the client's answer (core/mcp/cancels.ts).
              return await extra.sendRequest(req as any, req.method === 'sampling/createMessage' ? CreateMessageResultSchema : ElicitResultSchema, {
                signal: extra.signal,
              });
            } finally {
              hooks?.awaiting?.(false);
            }
          },
          extra.signal,
        ),
  );
  server.setRequestHandler(GetTaskRequestSchema, (request) => getTask(caller, caller, request.params.taskId));
  server.setRequestHandler(GetTaskPayloadRequestSchema, (request, extra) => taskResult(caller, caller, request.params.taskId, extra.signal));
  server.setRequestHandler(ListTasksRequestSchema, (request) => listTasks(caller, caller, request.params?.cursor));
  server.setRequestHandler(CancelTaskRequestSchema, (request) => cancelTask(caller, caller, request.params.taskId));
  // Records are resource templates (svc://...); MCP Apps clients also list their ui:// views (core/mcp/apps.ts).
  // Plugins may serve resources and prompts of their own too (`mcpContent`, core/mcp/plugin-content.ts).
  const { principal } = caller;
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [...(opts.ui ? uiResources(registry) : []), ...pluginResources(registry, principal)],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [...resourceTemplates(registry, caller), ...pluginTemplates(registry, principal)],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    if (opts.ui && request.params.uri.startsWith('ui://')) {
      const found = readUiResource(registry, request.params.uri);
      if (!found) throw protocolError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`);
      return found;
    }
    const own = pluginResourceFor(registry, principal, request.params.uri);
    return own ? readPluginResource(own, request.params.uri) : readResource(caller, request.params.uri);
  });
  const sessionOnly = () => {
    if (!hooks?.sessionId) throw protocolError(ErrorCode.InvalidRequest, 'Subscriptions need an MCP session.');
    return hooks.sessionId;
  };
  server.setRequestHandler(SubscribeRequestSchema, (request) =>
    subscribe(caller.db, registry, caller.store.id, sessionOnly(), request.params.uri, !!pluginResourceFor(registry, principal, request.params.uri)),
  );
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => unsubscribe(caller.db, caller.store.id, sessionOnly(), request.params.uri));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [...listPrompts().prompts, ...pluginPrompts(registry, principal)] }));
  server.setRequestHandler(
    GetPromptRequestSchema,
    async (request) =>
      (await getPluginPrompt(registry, principal, request.params.name, request.params.arguments)) ??
      getPrompt(caller, opts.mode, request.params.name, request.params.arguments),
  );
  // Argument suggestions: a plugin prompt's own; svc's prompts and resource templates offer none.
  server.setRequestHandler(CompleteRequestSchema, async (request) => {
    const { ref, argument } = request.params;
    if (ref.type !== 'ref/prompt') return { completion: { values: [], total: 0, hasMore: false } };
    if (!listPrompts().prompts.some((p) => p.name === ref.name) && !pluginPrompts(registry, principal).some((p) => p.name === ref.name))
      throw protocolError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    return completePrompt(registry, principal, ref.name, argument.name, argument.value);
  });
  return server;
}

/** tools/call with params.task: the same checks as a plain call, answered with the task (core/mcp/tasks.ts). */
async function taskCall(
  registry: Registry,
  caller: Omit<ToolCaller, 'source'>,
  opts: ToolOptions,
  params: { name: string; arguments?: Record<string, unknown>; task?: { ttl?: number } },
  sessionId: string | undefined,
) {
  const { name, arguments: args = {} } = params;
  if (name === DISCOVER_TOOLS)
    throw protocolError(ErrorCode.MethodNotFound, `${DISCOVER_TOOLS} does not run as a task (its execution.taskSupport is "forbidden").`);
  const target = await resolveTarget(caller.db, registry, caller.store.id, name, args);
  const toolset = target?.kind === 'builtin' ? target.plugin.name : CUSTOM_TOOLSET;
  if (!target || (opts.toolsets && !opts.toolsets.includes(toolset))) throw protocolError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const names = target.kind === 'builtin' ? { tool: target.plugin.name, action: target.actionName ?? '' } : { tool: target.tool.name, action: 'run' };
  // A call the user must confirm is asked on its own stream, which a task does not have: never run unasked.
  const config = freshStoreToolConfig(caller.store.id) ?? (await storeToolConfig(caller.db, caller.store.id));
  const confirm = targetConfirmation(registry, config, target, { params });
  if (confirm)
    throw protocolError(
      ErrorCode.InvalidParams,
      `${confirm.tool}.${confirm.action} needs the user's confirmation (elicitation), which a task cannot ask for; call it without params.task.`,
    );
  return startTask({ ...caller, readOnly: opts.readOnly, source: 'mcp' }, target, names, { ttl: params.task?.ttl, sessionId });
}

const APPROVER_ROLES = ['owner', 'admin', 'approver'];
const mayApprove = (p: ToolCaller['principal']) => p.kind === 'user' && APPROVER_ROLES.includes(p.role);

/**
 * URL-mode elicitation for a held call whose caller may approve it (issue 51): the client opens
 * the console's approval page (elicitationId: the execution id); the call waits as an agent's
 * does, the decision being recorded as that user's approval, then notifications/elicitation/complete
 * and the call answers. A client that declines the page gets the held answer, as without it.
 */
async function approveByUrl(
  caller: Omit<ToolCaller, 'source'>,
  executionId: string,
  message: string,
  ask: Ask,
  signal: AbortSignal,
  notify: Notify | undefined,
) {
  const url = `${caller.origin ?? ''}/console#/approvals/${executionId}`;
  const answer = await ask({
    method: 'elicitation/create',
    params: { mode: 'url', elicitationId: executionId, url, message: `${message} Approve or reject it on the console's approval page.` },
  }).catch(() => undefined);
  if (answer?.action !== 'accept') return undefined;
  const outcome = await waitForOutcome(caller.db, caller.store.id, executionId, { signal });
  if (outcome)
    await (notify as unknown as (n: object) => Promise<void>)?.({
      method: 'notifications/elicitation/complete',
      params: { elicitationId: executionId },
    }).catch(() => {});
  return outcome?.kind === 'result' || outcome?.kind === 'error' ? outcome : undefined;
}

type Notify = (
  notification:
    | { method: 'notifications/message'; params: { level: LoggingLevel; logger: string; data: unknown } }
    | { method: 'notifications/progress'; params: { progressToken: string | number; progress: number; total?: number; message?: string } },
) => Promise<void>;
/** A request to the client (elicitation, sampling), answered on the call's SSE stream. */
type Ask = (request: { method: 'elicitation/create' | 'sampling/createMessage'; params: any }) => Promise<any>;

/**
 * ctx.mcp for an interactive action (core/plugins/contract.ts McpClient): log and progress as
 * notifications on the call's stream when the client asked for them, sampling and elicitation as
 * requests when it declared the capability.
 */
function mcpClientFor(
  opts: ToolOptions,
  tool: string,
  progressToken: string | number | undefined,
  logs: (level: LoggingLevel) => boolean,
  notify?: Notify,
  ask?: Ask,
): McpClient {
  const missing = (capability: string) =>
    fail(
      'client_capability_missing',
      `${tool} asks the client for ${capability === 'sampling' ? 'a model answer (sampling)' : 'input (elicitation, form mode)'}; this client did not declare the ${capability} capability at initialize.`,
    );
  return {
    log: async (level, data) => {
      if (notify && logs(level)) await notify({ method: 'notifications/message', params: { level, logger: tool, data } }).catch(() => {});
    },
    progress: async (progress, total, message) => {
      if (notify && progressToken !== undefined)
        await notify({ method: 'notifications/progress', params: { progressToken, progress, total, message } }).catch(() => {});
    },
    sample: async (params) => {
      if (!opts.sampling || !ask) throw missing('sampling');
      return ask({ method: 'sampling/createMessage', params });
    },
    elicit: async (params) => {
      if (!opts.elicitation?.form || !ask) throw missing('elicitation');
      return ask({ method: 'elicitation/create', params: { mode: 'form', ...params } });
    },
  };
}

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
  return async (
    params: { name: string; arguments?: Record<string, unknown>; _meta?: { progressToken?: string | number } },
    notify?: Notify,
    ask?: Ask,
    signal?: AbortSignal,
  ): Promise<CallToolResult> => {
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
    const config = freshStoreToolConfig(caller.store.id) ?? (await storeToolConfig(caller.db, caller.store.id));
    const confirm = targetConfirmation(registry, config, target, { params });
    if (confirm) {
      const what = `${confirm.tool}.${confirm.action}`;
      if (!opts.elicitation?.form || !ask)
        return errorResult({
          type: 'permission_error',
          code: 'confirmation_required',
          message: `${what} needs the user's confirmation, asked by elicitation (form mode); this client did not declare the elicitation capability, so the call was not run.`,
          param: null,
        });
      const answer = await ask(elicitation(confirm));
      if (answer.action !== 'accept' || answer.content?.confirm !== true) {
        const how = answer.action === 'accept' ? 'not confirmed' : answer.action === 'decline' ? 'declined' : 'cancelled';
        return errorResult(
          await auditDeclined(caller, confirm, how, `The user ${how === 'not confirmed' ? 'did not confirm' : how} ${what}; it was not run.`),
        );
      }
    }
    // An interactive action talks to the client mid-call (ctx.mcp); others never see it.
    const interactive = target.kind === 'builtin' && !!target.actionName && !!target.plugin.actions[target.actionName]?.interactive;
    const mcp = interactive ? mcpClientFor(opts, name, params._meta?.progressToken, logs, notify, ask) : undefined;
    const outcome = await callTool({ ...caller, readOnly: opts.readOnly, source: 'mcp', mcp }, target);
    if (outcome.kind === 'result') return textResult(outcome.result);
    // Gated (SPEC 3.1): not an error; the client holds the execution id and fetches the outcome
    // later (tool_executions get_execution) once an approver decided.
    if (outcome.kind === 'pending' && ask && signal && opts.elicitation?.url && mayApprove(caller.principal)) {
      const decided = await approveByUrl(caller, outcome.executionId, outcome.message, ask, signal, notify);
      if (decided?.kind === 'result') return textResult(decided.result);
      if (decided?.kind === 'error') return errorResult(decided.error);
    }
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
    return errorResult(e);
  };
}
