import type { Db } from '../db/types';
import type { Clock } from '../clock';
import { errors, SvcError, toSvcError } from '../errors';
import { acceptedScopes, type ActionDef, type PluginDef, type Principal, type Store } from '../plugins/contract';
import { hasScope, invoke } from '../plugins/invoke';
import { newRequestId } from '../http/respond';
import { CUSTOM_TOOL_SCOPES, resolveCall } from '../mcp/tools';
import { CUSTOM_ACTION, checkPlan, findCustomTool, runCustomTool, validateCustomInput, type CustomTool } from './custom';
import { gateFor, type ToolOverrides } from './gate';
import { holdForApproval, insertExecution } from './executions';


export interface ToolCaller {
  db: Db;
  clock: Clock;
  principal: Principal;
  store: Store;
  /** Restricts calls to read actions (MCP read-only connections). */
  readOnly?: boolean;
  /** Who is calling, for the audit record. */
  source: 'agent' | 'mcp';
  /** The agent making the call, with its approval overrides (SPEC 4.5); none for MCP clients. */
  agent?: { id: string; name: string; toolOverrides: ToolOverrides };
}

/** What a call resolves to: one built-in action or one custom tool, with its input. */
export type ToolTarget =
  | { kind: 'builtin'; plugin: PluginDef; actionName: string | undefined; input: Record<string, unknown> }
  | { kind: 'custom'; tool: CustomTool; input: Record<string, unknown> };

export type ToolOutcome =
  | { kind: 'result'; result: unknown; executionId: string }
  | { kind: 'error'; error: SvcError; executionId: string }
  /** Gated: the execution waits for a decision (SPEC 3.1). */
  | { kind: 'pending'; executionId: string; message: string };

/**
 * Resolves a tool name to a built-in action (grouped `products` + action, or flat
 * `products_get_product`) or to a custom tool the store may use; undefined for no such tool.
 */
export async function resolveTarget(
  db: Db,
  plugins: PluginDef[],
  storeId: string,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolTarget | undefined> {
  const builtin = resolveCall(plugins, name, args);
  if (builtin) return { kind: 'builtin', ...builtin, input: builtin.input as Record<string, unknown> };
  const tool = await findCustomTool(db, storeId, name);
  return tool ? { kind: 'custom', tool, input: args } : undefined;
}

const toolName = (t: ToolTarget) => (t.kind === 'builtin' ? t.plugin.name : t.tool.name);
const actionOf = (t: ToolTarget) => (t.kind === 'builtin' ? (t.actionName ?? '') : CUSTOM_ACTION);

/** The built-in action a target names, or a 400 listing the valid ones. Streaming and humanOnly actions are not tools. */
function builtinAction(plugin: PluginDef, actionName: string | undefined): ActionDef {
  const found = actionName ? plugin.actions[actionName] : undefined;
  const isTool = (a: ActionDef | undefined) => a && !a.stream && !a.humanOnly;
  if (!isTool(found))
    throw errors.validation(
      `Unknown action '${actionName ?? ''}' for tool ${plugin.name}. Valid actions: ${Object.keys(plugin.actions).filter((a) => isTool(plugin.actions[a])).join(', ')}.`,
      'action',
    );
  return found!;
}

/** A read-only MCP connection asked for a call that changes data or acts outside svc. */
const readOnlyRefusal = (what: string, why: string) =>
  new SvcError(403, 'permission_error', 'insufficient_scope', `This connection is read-only; ${what} ${why}. Connect without readonly to call it.`);

/** The checks before any gate: the action exists, the key may call it, the input is valid, the plan allows it. */
export function authorize(caller: Pick<ToolCaller, 'principal' | 'store' | 'readOnly'>, target: ToolTarget) {
  if (target.kind === 'custom') {
    if (caller.readOnly) throw readOnlyRefusal(target.tool.name, 'acts outside svc');
    if (!hasScope(caller.principal.scopes, CUSTOM_TOOL_SCOPES)) throw errors.scope(CUSTOM_TOOL_SCOPES);
    checkPlan(target.tool, caller.store);
    validateCustomInput(target.tool, target.input);
    return;
  }
  const action = builtinAction(target.plugin, target.actionName);
  if (caller.readOnly && action.kind !== 'read')
    throw readOnlyRefusal(`${target.plugin.name}.${target.actionName}`, 'changes data');
  const accepted = acceptedScopes(target.plugin, action.kind);
  if (!hasScope(caller.principal.scopes, accepted)) throw errors.scope(accepted);
}

export type RunResult = { status: 'success'; result: unknown } | { status: 'error' | 'timeout'; error: SvcError };

/** Runs an authorized target: a built-in through invoke (its own scope and input checks again), a custom tool in its runner. */
export async function runTarget(deps: { db: Db; clock: Clock; principal: Principal; store: Store }, target: ToolTarget): Promise<RunResult> {
  try {
    if (target.kind === 'custom') {
      const out = await runCustomTool(target.tool, target.input, deps.store.id);
      if (out.status === 'success') return out;
      const code = out.status === 'timeout' ? 'tool_timeout' : 'tool_error';
      return { status: out.status, error: new SvcError(out.status === 'timeout' ? 504 : 502, 'api_error', code, `${target.tool.name}: ${out.message}`) };
    }
    const action = builtinAction(target.plugin, target.actionName);
    const result = await invoke(
      target.plugin,
      action,
      { ...deps, requestId: newRequestId(), storePath: `/v1/stores/${deps.store.id}` },
      target.input,
    );
    return { status: 'success', result };
  } catch (err) {
    const e = toSvcError(err);
    if (e !== err) console.error(`tool ${toolName(target)}.${actionOf(target)} failed:`, err);
    return { status: 'error', error: e };
  }
}

/**
 * The one path for every tool call by an agent or an MCP client, built-in or custom:
 * scope (and input) check, approval gate, run, audit record (SPEC 2.6, duration end to end).
 * Errors come back as values so every transport can show them to the model as a tool error.
 */
export async function callTool(caller: ToolCaller, target: ToolTarget): Promise<ToolOutcome> {
  const started = performance.now();
  const tool = toolName(target);
  const action = actionOf(target);
  const record = { tool, action, target, caller };
  let run: RunResult;
  try {
    authorize(caller, target);
    const custom = target.kind === 'custom' ? target.tool : undefined;
    const gate = await gateFor(tool, action, target.input, caller.agent?.toolOverrides[tool], custom);
    if (gate) {
      const executionId = await holdForApproval(record, gate);
      return { kind: 'pending', executionId, message: gate.message };
    }
    run = await runTarget(caller, target);
  } catch (err) {
    run = { status: 'error', error: toSvcError(err) };
  }
  const durationMs = Math.round(performance.now() - started);
  const executionId = await insertExecution(record, run, durationMs);
  return run.status === 'success' ? { kind: 'result', result: run.result, executionId } : { kind: 'error', error: run.error, executionId };
}
