import type { Ctx } from '../../core/sdk';
import { discover, DISCOVER_TOOLS, listTools, resolveCall, type ToolOptions } from '../../core/platform';
import { callTool, type ToolCaller, type ToolOutcome, type ToolTarget } from '../../core/platform';
import { waitForOutcome, type CustomTool } from '../../core/platform';
import type { ToolCall, ToolDef, ToolResult } from '../../core/sdk';

/** How an agent's chat runs the tool calls its model makes: through the one tool-call path, waiting out approvals. */

/** What a tool call came to: a tool_executions status, or still pending when the chat stopped waiting. */
export type ToolStatus = 'success' | 'error' | 'timeout' | 'rejected' | 'pending_approval';
type ToolError = { message: string; type?: string; code?: string; param?: string | null };
export type ToolResultEvent = {
  type: 'tool_result';
  tool: string;
  execution_id: string | null;
  status: ToolStatus;
  result?: unknown;
  error?: ToolError;
};

/**
 * The agent's tools, derived as MCP's grouped mode derives them (one tool per category with an
 * `action` argument, the custom tools it names, plus discover_tools for the schemas), limited to
 * what the caller's key may use.
 */
export function agentTools(ctx: Ctx, opts: ToolOptions, custom: CustomTool[]): ToolDef[] {
  return listTools(ctx.registry, ctx.principal, opts, custom).map((t) => ({
    name: t.name,
    description: t.description ?? t.name,
    parameters: t.inputSchema,
  }));
}

/** A tool call settled: what the model reads, and what the client is told (the tool_result event). */
interface Settled {
  forModel: ToolResult;
  event: ToolResultEvent;
}

const reply = (call: ToolCall, content: unknown, isError: boolean): ToolResult => ({
  id: call.id,
  name: call.name,
  content: JSON.stringify(withoutPixels(content)),
  isError,
});

/**
 * An image a tool answered (`image: {object: 'image', mime_type, data}`, a QR code) reaches the
 * client whole in the tool_result event; the model reads text, to which kilobytes of base64 say
 * nothing, so it is told what the image is and that the user has it.
 */
function withoutPixels(content: unknown): unknown {
  const image = (content as { image?: { object?: unknown; mime_type?: string; data?: unknown } } | null)?.image;
  if (!image || image.object !== 'image' || typeof image.data !== 'string') return content;
  return {
    ...(content as object),
    image: { object: 'image', mime_type: image.mime_type, note: 'Shown to the user in the tool result; not readable as text.' },
  };
}

/** A call that never became an execution (discover_tools, a tool the agent was not given). */
function untracked(call: ToolCall, out: { result: unknown } | { error: string }): Settled {
  const ok = 'result' in out;
  return {
    forModel: ok ? reply(call, out.result, false) : reply(call, { error: out.error }, true),
    event: {
      type: 'tool_result',
      tool: call.name,
      execution_id: null,
      ...(ok ? { status: 'success', result: out.result } : { status: 'error', error: { message: out.error } }),
    },
  };
}

/**
 * A tool call's outcome as the model sees it (the result, or an error it can act on) and as the
 * client sees it. `status` is the execution's when known (after an approval wait, read from its row).
 */
function settle(call: ToolCall, out: ToolOutcome | undefined, executionId: string, status?: ToolStatus): Settled {
  const event = (s: ToolStatus, rest: { result?: unknown; error?: ToolError }): ToolResultEvent => ({
    type: 'tool_result',
    tool: call.name,
    execution_id: executionId,
    status: s,
    ...rest,
  });
  if (!out || out.kind === 'pending') {
    const message = out ? 'Still waiting for approval.' : 'The call was abandoned before a decision.';
    return { forModel: reply(call, { error: message }, true), event: event('pending_approval', { error: { message } }) };
  }
  if (out.kind === 'result') return { forModel: reply(call, out.result, false), event: event(status ?? 'success', { result: out.result }) };
  const e = out.error;
  const error = { type: e.type, code: e.code, message: e.message, param: e.param };
  return { forModel: reply(call, { error }, true), event: event(status ?? (e.code === 'tool_timeout' ? 'timeout' : 'error'), { error }) };
}

export interface ToolRun {
  ctx: Ctx;
  opts: ToolOptions;
  custom: CustomTool[];
  caller: ToolCaller;
  /** Tells the client a call waits for approval, then keeps the stream alive until it is decided. */
  onHold: (tool: string, executionId: string, message: string) => void;
  keepAlive: () => void;
  keepAliveMs: number;
  pollMs?: number;
  signal: AbortSignal;
}

/**
 * Runs one tool call through the one tool-call path, as the agent (its approval overrides) with
 * the caller's key. A gated call holds the loop: the stream stays open with keep-alives until an
 * approver decides (from any process), then the outcome goes to the model.
 */
export async function runTool(r: ToolRun, call: ToolCall): Promise<Settled> {
  if (call.name === DISCOVER_TOOLS) {
    const found = discover(r.ctx.registry, r.ctx.principal, r.opts, call.input.tool_name as string | undefined, r.custom);
    return untracked(call, found ? { result: found } : { error: `Unknown tool '${call.input.tool_name}'.` });
  }
  // Only what the agent was given: its categories (grouped or flat names) and its custom tools.
  const builtin = resolveCall(r.ctx.registry, call.name, call.input);
  const custom = r.custom.find((t) => t.name === call.name);
  const target: ToolTarget | undefined =
    builtin && r.opts.toolsets!.includes(builtin.plugin.name)
      ? { kind: 'builtin', ...builtin, input: builtin.input as Record<string, unknown> }
      : custom && { kind: 'custom', tool: custom, input: call.input };
  if (!target) return untracked(call, { error: `Unknown tool '${call.name}'. Use one of the tools you were given.` });
  const out = await callTool(r.caller, target);
  if (out.kind !== 'pending') return settle(call, out, out.executionId);
  r.onHold(call.name, out.executionId, out.message);
  // Keep-alives pace real time (performance.now, monotonic), not the store's clock.
  let last = performance.now();
  const decided = await waitForOutcome(r.ctx.db, r.ctx.store.id, out.executionId, {
    signal: r.signal,
    pollMs: r.pollMs,
    tick: () => {
      if (performance.now() - last < r.keepAliveMs) return;
      last = performance.now();
      r.keepAlive();
    },
  });
  if (!decided) return settle(call, undefined, out.executionId);
  // Decided: approved and run (success, error, timeout) or rejected, as its row says.
  const [row] = await r.ctx.db.query('SELECT status FROM tool_executions WHERE store_id = $1 AND id = $2', [r.ctx.store.id, out.executionId]);
  return settle(call, decided, out.executionId, row?.status);
}
