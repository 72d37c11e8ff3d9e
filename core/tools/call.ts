import type { Db } from '../db/types';
import type { Clock } from '../clock';
import { errors, fail, toSvcError } from '../errors';
import type { Registry } from '../plugins/registry';
import { createLogger, errorFields, type Logger } from '../log';

const defaultLog = createLogger();
import { isTool, type ActionDef, type CallerCtx, type McpClient, type PluginDef, type Principal, type Store } from '../plugins/contract';
import { callerCtx, checkScope, hasScope, invoke } from '../plugins/invoke';
import { toolAnswer } from './raw-answers';
import { CUSTOM_TOOL_SCOPES, resolveCall } from './catalog';
import { CUSTOM_ACTION, checkPlan, findCustomTool, runCustomTool, validateCustomInput } from './custom';
import { gateFor } from './gate';
import { freshStoreToolConfig, storeToolConfig } from './store-config';
import type { RunResult, ToolCaller, ToolOutcome, ToolTarget } from './types';
import { auditRowOf, holdForApproval, insertExecution } from './executions';
import { insertAudit } from './audit-batch';
import { MAX_JSON_DEPTH, tooDeepError, tooDeepInValue } from '../json-depth';
import { tracing, type TracedOutcome } from '../plugins/telemetry';

/**
 * Resolves a tool name to a built-in action (grouped `products` + action, or flat
 * `products_get_product`) or to a custom tool the store may use; undefined for no such tool.
 */
export async function resolveTarget(
  db: Db,
  registry: Registry,
  storeId: string,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolTarget | undefined> {
  const builtin = resolveCall(registry, name, args);
  if (builtin) return { kind: 'builtin', plugin: builtin.plugin, actionName: builtin.actionName, input: builtin.input as Record<string, unknown> };
  const tool = await findCustomTool(db, storeId, name);
  return tool ? { kind: 'custom', tool, input: args } : undefined;
}

const toolName = (t: ToolTarget) => (t.kind === 'builtin' ? t.plugin.name : t.tool.name);
const actionOf = (t: ToolTarget) => (t.kind === 'builtin' ? (t.actionName ?? '') : CUSTOM_ACTION);

/** The built-in action a target names, or a 400 listing the valid ones. Streaming and humanOnly actions are not tools. */
function builtinAction(plugin: PluginDef, actionName: string | undefined): ActionDef {
  const found = actionName ? plugin.actions[actionName] : undefined;
  const tool = (a: ActionDef | undefined) => a && isTool(plugin, a);
  if (!tool(found))
    throw errors.validation(
      `Unknown action '${actionName ?? ''}' for tool ${plugin.name}. Valid actions: ${Object.keys(plugin.actions)
        .filter((a) => tool(plugin.actions[a]))
        .join(', ')}.`,
      'action',
    );
  return found!;
}

/** A read-only MCP connection asked for a call that changes data or acts outside svc. */
const readOnlyRefusal = (what: string, why: string) =>
  fail('insufficient_scope', `This connection is read-only; ${what} ${why}. Connect without readonly to call it.`);

/** The checks before any gate: the action exists, the key may call it, the input is valid, the plan allows it. */
export function authorize(caller: Pick<ToolCaller, 'principal' | 'store' | 'readOnly' | 'registry'>, target: ToolTarget) {
  if (target.kind === 'custom') {
    if (caller.readOnly) throw readOnlyRefusal(target.tool.name, 'acts outside svc');
    if (!hasScope(caller.principal.scopes, CUSTOM_TOOL_SCOPES)) throw errors.scope(CUSTOM_TOOL_SCOPES);
    checkPlan(target.tool, caller.store);
    validateCustomInput(target.tool, target.input);
    return;
  }
  const action = builtinAction(target.plugin, target.actionName);
  if (caller.readOnly && action.kind !== 'read') throw readOnlyRefusal(`${target.plugin.name}.${target.actionName}`, 'changes data');
  // invoke's own rule, asked before the gate: a call the key may not make is never held for approval.
  checkScope(target.plugin, action, caller);
}

/** Runs an authorized target: a built-in through invoke (its own scope and input checks again), a custom tool in its runner. */
export async function runTarget(
  deps: { db: Db; clock: Clock; registry: Registry; log?: Logger; principal: Principal; store: Store; origin?: string; mcp?: McpClient },
  target: ToolTarget,
  withChange?: CallerCtx['withChange'],
): Promise<RunResult> {
  try {
    if (target.kind === 'custom') {
      const out = await runCustomTool(target.tool, target.input, deps.store.id);
      if (out.status === 'success') return out;
      const code = out.status === 'timeout' ? 'tool_timeout' : 'tool_error';
      return { status: out.status, error: fail(code, `${target.tool.name}: ${out.message}`) };
    }
    const action = builtinAction(target.plugin, target.actionName);
    const result = await invoke(
      target.plugin,
      action,
      callerCtx(deps, deps.principal, deps.store, { withChange, origin: deps.origin, mcp: action.interactive ? deps.mcp : undefined }),
      target.input,
    );
    if (action.rest?.response !== 'raw') return { status: 'success', result };
    // A raw answer (a Response) becomes what a tool can carry: image content or a signed link.
    const answer = await toolAnswer(`${target.plugin.name}.${target.actionName}`, action, target.input, result as Response, deps);
    return { status: 'success', result: answer };
  } catch (err) {
    const e = toSvcError(err);
    if (e !== err) (deps.log ?? defaultLog).error('tool call failed', { tool: toolName(target), action: actionOf(target), ...errorFields(err) });
    return { status: 'error', error: e };
  }
}

/**
 * The one path for every tool call by an agent or an MCP client, built-in or custom:
 * scope (and input) check, approval gate, run, audit record (SPEC 2.6, duration end to end).
 * Errors come back as values so every transport can show them to the model as a tool error.
 */
export function callTool(
  caller: ToolCaller,
  target: ToolTarget,
  // onRun: the call passed its checks and its gate and starts running now (an MCP task answers at this point).
  opts: CallOptions = {},
): Promise<ToolOutcome> {
  // A span per tool call when a tracer is installed (core/plugins/telemetry.ts); the call's own errors are values, read by toolSpanOutcome.
  const tracer = tracing.tracer;
  if (!tracer) return runToolCall(caller, target, opts);
  const route = target.kind === 'builtin' ? `${target.plugin.name}.${target.actionName ?? ''}` : target.tool.name;
  return tracer.span('tool_call', route, { route, store_id: caller.store.id }, () => runToolCall(caller, target, opts), toolSpanOutcome);
}

/**
 * How a tool call ended, for its span: an error answer failed it; it is an error (query_errors)
 * when the server or the tool failed (a 5xx, a custom tool's own failure), not when the caller
 * asked wrongly (a 4xx: a metric).
 */
const toolSpanOutcome = (o: ToolOutcome): TracedOutcome =>
  o.kind === 'error'
    ? {
        failed: true,
        error: o.error.status >= 500 || o.error.code === 'tool_error' || o.error.code === 'tool_timeout',
        code: o.error.code,
        message: o.error.message,
      }
    : {};

type CallOptions = { executionId?: string; onRun?: () => void };

async function runToolCall(caller: ToolCaller, target: ToolTarget, opts: CallOptions): Promise<ToolOutcome> {
  const started = performance.now();
  const tool = toolName(target);
  const action = actionOf(target);
  // Arguments from a model or an MCP client are checked for depth before anything walks them; the
  // audit record then keeps the other arguments and a note in place of the deep one.
  const deep = tooDeepInValue(target.input, MAX_JSON_DEPTH + 1);
  const recorded = deep
    ? { ...target, input: { ...target.input, [deep[0]]: `[not recorded: nested more than ${MAX_JSON_DEPTH} levels deep]` } }
    : target;
  const record = { tool, action, target: recorded as ToolTarget, caller };
  // Time-ordered (UUIDv7): records go to the end of the primary-key index, not to random pages.
  // A caller that runs a call again after a crash (a workflow step) names it: the record of a
  // committed change, or of a held call, then exists under that id and tells it the call was made.
  const executionId = opts.executionId ?? Bun.randomUUIDv7();
  let run: RunResult;
  try {
    if (deep) throw tooDeepError(deep, 'tool input');
    authorize(caller, target);
    const custom = target.kind === 'custom' ? target.tool : undefined;
    // An agent's own override wins for its tool; else the store's (STORE/tool-config) gates every caller.
    const override =
      caller.agent?.toolOverrides[tool] ??
      (freshStoreToolConfig(caller.store.id) ?? (await storeToolConfig(caller.db, caller.store.id))).overrides[tool];
    // Only an override or a custom tool can gate a call: the common call skips the await.
    const gate = override || custom ? await gateFor(tool, action, target.input, override, custom) : null;
    if (gate) {
      const heldId = await holdForApproval(record, gate, opts.executionId);
      return { kind: 'pending', executionId: heldId, message: gate.message };
    }
    opts.onRun?.();
    const change = target.kind === 'builtin' && builtinAction(target.plugin, target.actionName).kind !== 'read';
    if (change) {
      // A built-in change: its record is written in the change's transaction, so a committed
      // change always has its record, and the call pays no extra round trip for it.
      let written = false;
      run = await runTarget(caller, target, async (tx, result) => {
        await insertAudit(tx, auditRowOf(record, executionId, { status: 'success', result }, Math.round(performance.now() - started)));
        written = true;
      });
      if (written) return outcome(run, executionId);
    } else run = await runTarget(caller, target);
  } catch (err) {
    run = { status: 'error', error: toSvcError(err) };
  }
  // A read changed nothing, so its record leaves the critical path: the answer goes out while
  // its store's page of read records (core/tools/audit-pages.ts) is written a moment later (a
  // crash in that moment loses the record of a read, never of a change). Custom tools act outside svc, and failed calls matter to
  // auditors: those records are durable before the answer.
  const isRead = target.kind === 'builtin' && run.status === 'success';
  await insertExecution(record, run, Math.round(performance.now() - started), { id: executionId, wait: !isRead });
  return outcome(run, executionId);
}

const outcome = (run: RunResult, executionId: string): ToolOutcome =>
  run.status === 'success' ? { kind: 'result', result: run.result, executionId } : { kind: 'error', error: run.error, executionId };
