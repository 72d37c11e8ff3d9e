import { errors } from '../../core/errors';
import type { Static } from '@sinclair/typebox';
import type { Ctx, PluginDef } from '../../core/plugins/contract';
import { recordEvents } from '../../core/events/outbox';
import { CUSTOM_TOOLSET, discover, DISCOVER_TOOLS, listTools, resolveCall, type ToolOptions } from '../../core/mcp/tools';
import { callTool, type ToolCaller, type ToolOutcome, type ToolTarget } from '../../core/tools/call';
import { publicToolsNamed, usableCustomTools, type CustomTool } from '../../core/tools/custom';
import { waitForOutcome } from '../../core/tools/approvals';
import { providerFor } from './providers';
import type { ChatMessage, ToolCall, ToolDef, ToolResult } from './providers/types';
import type { ChatInput } from './schemas';
import { agentRow, conversationRow, messagesOf, toMessage, type AgentDeps } from './store';

/** Model calls per chat message: enough for look-up, act, answer; bounds cost when a model loops. */
export const MAX_STEPS = 8;

type Sse =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; tool: string; input: object }
  | { type: 'approval_required'; tool: string; execution_id: string; message: string }
  | { type: 'error'; message: string }
  | { type: 'end' };

/** How the stream stays open while a gated call waits: an SSE comment this often (proxies drop idle streams). */
export const KEEP_ALIVE_MS = 15_000;

/** Writes one turn and its agent.message event in a short transaction of its own. */
async function persist(ctx: Ctx, agentId: string, conversationId: string, message: ChatMessage) {
  await ctx.db.transaction(async (tx) => {
    const id = crypto.randomUUID();
    const at = ctx.clock.now();
    await tx.query(
      `INSERT INTO agent_messages (id, store_id, conversation_id, role, content, created_at) VALUES ($1, $2, $3, $4, $5::text::jsonb, $6)`,
      [id, ctx.store.id, conversationId, message.role, JSON.stringify(message), at],
    );
    await tx.query('UPDATE agent_conversations SET updated_at = $3 WHERE store_id = $1 AND id = $2', [ctx.store.id, conversationId, at]);
    const data = { ...toMessage({ id, message, created_at: at.toISOString() }), agent_id: agentId, conversation_id: conversationId };
    await recordEvents(tx, ctx.store.id, [{ type: 'agent.message', data, at }]);
  });
}

/**
 * The agent's tools, derived as MCP's grouped mode derives them (one tool per category with an
 * `action` argument, the custom tools it names, plus discover_tools for the schemas), limited to
 * what the caller's key may use.
 */
function agentTools(plugins: PluginDef[], ctx: Ctx, opts: ToolOptions, custom: CustomTool[]): ToolDef[] {
  return listTools(plugins, ctx.principal, opts, custom).map((t) => ({ name: t.name, description: t.description ?? t.name, parameters: t.inputSchema }));
}

const reply = (call: ToolCall, content: unknown, isError: boolean): ToolResult => ({ id: call.id, name: call.name, content: JSON.stringify(content), isError });

/** A tool call's outcome as the model sees it: the result, or an error it can act on. */
function toolResult(call: ToolCall, out: ToolOutcome | undefined): ToolResult {
  if (!out) return reply(call, { error: 'The call was abandoned before a decision.' }, true);
  if (out.kind === 'result') return reply(call, out.result, false);
  if (out.kind === 'pending') return reply(call, { error: 'Still waiting for approval.' }, true);
  const e = out.error;
  return reply(call, { error: { type: e.type, code: e.code, message: e.message, param: e.param } }, true);
}

interface ToolRun {
  plugins: PluginDef[];
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
async function runTool(r: ToolRun, call: ToolCall): Promise<ToolResult> {
  if (call.name === DISCOVER_TOOLS) {
    const found = discover(r.plugins, r.ctx.principal, r.opts, call.input.tool_name as string | undefined, r.custom);
    return found ? reply(call, found, false) : reply(call, { error: `Unknown tool '${call.input.tool_name}'.` }, true);
  }
  // Only what the agent was given: its categories (grouped or flat names) and its custom tools.
  const allowed = r.plugins.filter((p) => r.opts.toolsets!.includes(p.name));
  const builtin = resolveCall(allowed, call.name, call.input);
  const custom = r.custom.find((t) => t.name === call.name);
  const target: ToolTarget | undefined = builtin
    ? { kind: 'builtin', ...builtin, input: builtin.input as Record<string, unknown> }
    : custom && { kind: 'custom', tool: custom, input: call.input };
  if (!target) return reply(call, { error: `Unknown tool '${call.name}'. Use one of the tools you were given.` }, true);
  const out = await callTool(r.caller, target);
  if (out.kind !== 'pending') return toolResult(call, out);
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
  return toolResult(call, decided);
}

/**
 * POST /agents/:id/chat: checks agent, provider and conversation (JSON errors), stores the user
 * message, then answers with the SSE stream of SPEC 4.2 while the loop runs: the model streams
 * text and tool calls, tools run, their results go back, until the model answers or MAX_STEPS.
 */
export async function chat(deps: AgentDeps, ctx: Ctx, input: Static<typeof ChatInput>): Promise<Response> {
  const agent = await agentRow(ctx, input.id);
  // This endpoint is the `api` channel (an API key calling); `webchat` is the storefront widget's.
  if (!agent.channels.includes('api'))
    throw errors.conflict(`Agent '${agent.id}' is not enabled on the api channel; add 'api' to its channels.`, 'conflict_error', 'channels');
  const { provider, model } = providerFor(agent.model, deps.env);
  let conversationId = input.conversation_id;
  if (conversationId) await conversationRow(ctx, agent.id, conversationId);
  else {
    conversationId = crypto.randomUUID();
    const now = ctx.clock.now();
    await ctx.db.query('INSERT INTO agent_conversations (id, store_id, agent_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)', [
      conversationId,
      ctx.store.id,
      agent.id,
      now,
    ]);
  }
  const cid = conversationId;
  const history = (await messagesOf(ctx, cid)).map((m) => m.message);
  const user: ChatMessage = { role: 'user', text: input.message };
  await persist(ctx, agent.id, cid, user);
  history.push(user);

  const plugins = deps.plugins();
  const opts: ToolOptions = { mode: 'grouped', toolsets: agent.tools, readOnly: false };
  // The custom tools the agent names (or all the store offers, given the custom_tools category),
  // and the published tools it names: naming one enables it for this agent, though the store did not.
  const usable = await usableCustomTools(ctx.db, ctx.store.id);
  const named = usable.filter((t) => agent.tools.includes(t.name) || agent.tools.includes(CUSTOM_TOOLSET));
  const others = agent.tools.filter((n: string) => !usable.some((t) => t.name === n) && !plugins.some((p) => p.name === n));
  const custom = [...named, ...(await publicToolsNamed(ctx.db, others))];
  const tools = agent.tools.length ? agentTools(plugins, ctx, opts, custom) : [];
  const abort = new AbortController();
  const encoder = new TextEncoder();
  const caller: ToolCaller = {
    db: ctx.db,
    clock: ctx.clock,
    principal: ctx.principal,
    store: ctx.store,
    source: 'agent',
    agent: { id: agent.id, name: agent.name, toolOverrides: agent.tool_config?.tool_overrides ?? {} },
  };

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (e: Sse) => {
        if (!abort.signal.aborted) controller.enqueue(encoder.encode(`data: ${JSON.stringify(e)}\n\n`));
      };
      const run: ToolRun = {
        plugins,
        ctx,
        opts,
        custom,
        caller,
        signal: abort.signal,
        keepAliveMs: deps.keepAliveMs ?? KEEP_ALIVE_MS,
        pollMs: deps.approvalPollMs,
        onHold: (tool, executionId, message) => send({ type: 'approval_required', tool, execution_id: executionId, message }),
        // An SSE comment: clients ignore it, proxies see traffic.
        keepAlive: () => {
          if (!abort.signal.aborted) controller.enqueue(encoder.encode(': keep-alive\n\n'));
        },
      };
      const loop = async () => {
        for (let step = 0; step < MAX_STEPS; step++) {
          let text = '';
          const calls: ToolCall[] = [];
          try {
            for await (const ev of provider.stream({ model, system: agent.system_prompt, messages: history, tools, signal: abort.signal })) {
              if (ev.type === 'text') {
                text += ev.text;
                send({ type: 'text', text: ev.text });
              } else calls.push(ev.call);
            }
          } catch (err) {
            if (abort.signal.aborted) return; // the client left: nobody to tell
            console.error(`[${ctx.requestId}] agent ${agent.id}: provider failed:`, err);
            if (text) await persist(ctx, agent.id, cid, { role: 'assistant', text, toolCalls: [] });
            send({ type: 'error', message: `The model provider failed: ${(err as Error).message}` });
            return;
          }
          const reply: ChatMessage = { role: 'assistant', text, toolCalls: calls };
          await persist(ctx, agent.id, cid, reply);
          history.push(reply);
          if (!calls.length || abort.signal.aborted) return;
          const results: ToolResult[] = [];
          for (const call of calls) {
            send({ type: 'tool_use', tool: call.name, input: call.input });
            results.push(await runTool(run, call));
          }
          const turn: ChatMessage = { role: 'tool', results };
          await persist(ctx, agent.id, cid, turn);
          history.push(turn);
          if (abort.signal.aborted) return;
        }
        send({ type: 'error', message: `Stopped after ${MAX_STEPS} model steps without a final answer.` });
      };
      loop()
        .catch((err) => {
          console.error(`[${ctx.requestId}] agent ${agent.id}: chat failed:`, err);
          send({ type: 'error', message: 'An unexpected error occurred.' });
        })
        .finally(() => {
          send({ type: 'end' });
          if (!abort.signal.aborted) controller.close();
        });
    },
    // The client disconnected: stop generating (aborts the provider request; no further steps).
    cancel() {
      abort.abort();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Conversation-Id': cid },
  });
}
