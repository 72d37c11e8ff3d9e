import { errorFields, errors } from '../../core/sdk';
import type { Static } from '@sinclair/typebox';
import type { Ctx } from '../../core/sdk';
import { recordEvents } from '../../core/sdk';
import { CUSTOM_TOOLSET, discover, DISCOVER_TOOLS, listTools, resolveCall, type ToolOptions } from '../../core/sdk';
import { callTool, type ToolCaller, type ToolOutcome, type ToolTarget } from '../../core/sdk';
import { publicToolsNamed, usableCustomTools, type CustomTool } from '../../core/sdk';
import { waitForOutcome } from '../../core/sdk';
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

/** An error as one log line: its message with line breaks folded. */
const oneLine = (err: unknown) => String((err as Error)?.message ?? err).replace(/\s*\n\s*/g, ' ');

/** How the stream stays open while a gated call waits: an SSE comment this often (proxies drop idle streams). */
export const KEEP_ALIVE_MS = 15_000;

/** The last event but `end` of a chat cut short by the server shutting down. */
export const SHUTDOWN_MESSAGE =
  'The server is shutting down, so this reply stopped here. Send your next message in the same conversation (conversation_id) once it is back.';

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
function agentTools(ctx: Ctx, opts: ToolOptions, custom: CustomTool[]): ToolDef[] {
  return listTools(ctx.registry, ctx.principal, opts, custom).map((t) => ({
    name: t.name,
    description: t.description ?? t.name,
    parameters: t.inputSchema,
  }));
}

const reply = (call: ToolCall, content: unknown, isError: boolean): ToolResult => ({
  id: call.id,
  name: call.name,
  content: JSON.stringify(content),
  isError,
});

/** A tool call's outcome as the model sees it: the result, or an error it can act on. */
function toolResult(call: ToolCall, out: ToolOutcome | undefined): ToolResult {
  if (!out) return reply(call, { error: 'The call was abandoned before a decision.' }, true);
  if (out.kind === 'result') return reply(call, out.result, false);
  if (out.kind === 'pending') return reply(call, { error: 'Still waiting for approval.' }, true);
  const e = out.error;
  return reply(call, { error: { type: e.type, code: e.code, message: e.message, param: e.param } }, true);
}

interface ToolRun {
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
    const found = discover(r.ctx.registry, r.ctx.principal, r.opts, call.input.tool_name as string | undefined, r.custom);
    return found ? reply(call, found, false) : reply(call, { error: `Unknown tool '${call.input.tool_name}'.` }, true);
  }
  // Only what the agent was given: its categories (grouped or flat names) and its custom tools.
  const builtin = resolveCall(r.ctx.registry, call.name, call.input);
  const custom = r.custom.find((t) => t.name === call.name);
  const target: ToolTarget | undefined =
    builtin && r.opts.toolsets!.includes(builtin.plugin.name)
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

  const opts: ToolOptions = { mode: 'grouped', toolsets: agent.tools, readOnly: false };
  // The custom tools the agent names (or all the store offers, given the custom_tools category),
  // and the published tools it names: naming one enables it for this agent, though the store did not.
  const usable = await usableCustomTools(ctx.db, ctx.store.id);
  const named = usable.filter((t) => agent.tools.includes(t.name) || agent.tools.includes(CUSTOM_TOOLSET));
  const others = agent.tools.filter((n: string) => !usable.some((t) => t.name === n) && !ctx.registry.byName.has(n));
  const custom = [...named, ...(await publicToolsNamed(ctx.db, others))];
  const tools = agent.tools.length ? agentTools(ctx, opts, custom) : [];
  // `left`: the client went away (nobody to write to). `stop`: anything that ends the loop early,
  // the client leaving or the server shutting down (then the client hears why, and `end`).
  const left = new AbortController();
  const stop = ctx.shutdown ? AbortSignal.any([left.signal, ctx.shutdown]) : left.signal;
  const encoder = new TextEncoder();
  const caller: ToolCaller = {
    db: ctx.db,
    clock: ctx.clock,
    registry: ctx.registry,
    log: ctx.log,
    principal: ctx.principal,
    store: ctx.store,
    source: 'agent',
    agent: { id: agent.id, name: agent.name, toolOverrides: agent.tool_config?.tool_overrides ?? {} },
  };

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (e: Sse) => {
        if (!left.signal.aborted) controller.enqueue(encoder.encode(`data: ${JSON.stringify(e)}\n\n`));
      };
      const run: ToolRun = {
        ctx,
        opts,
        custom,
        caller,
        signal: stop,
        keepAliveMs: deps.keepAliveMs ?? KEEP_ALIVE_MS,
        pollMs: deps.approvalPollMs,
        onHold: (tool, executionId, message) => send({ type: 'approval_required', tool, execution_id: executionId, message }),
        // An SSE comment: clients ignore it, proxies see traffic.
        keepAlive: () => {
          if (!left.signal.aborted) controller.enqueue(encoder.encode(': keep-alive\n\n'));
        },
      };
      /** Runs the model/tool steps; 'stopped' when the client left or the server is shutting down. */
      const loop = async (): Promise<'done' | 'stopped'> => {
        for (let step = 0; step < MAX_STEPS; step++) {
          if (stop.aborted) return 'stopped';
          let text = '';
          const calls: ToolCall[] = [];
          try {
            for await (const ev of provider.stream({ model, system: agent.system_prompt, messages: history, tools, signal: stop })) {
              if (ev.type === 'text') {
                text += ev.text;
                send({ type: 'text', text: ev.text });
              } else calls.push(ev.call);
            }
          } catch (err) {
            if (stop.aborted) {
              // We cut the provider off ourselves. At shutdown the client saw this much: keep it.
              if (text && !left.signal.aborted) await persist(ctx, agent.id, cid, { role: 'assistant', text, toolCalls: [] });
              return 'stopped';
            }
            // One line for the operator's log: an outside failure, not a bug, so no stack or source frame.
            ctx.log.error('provider failed', { agent_id: agent.id, error: oneLine(err) });
            if (text) await persist(ctx, agent.id, cid, { role: 'assistant', text, toolCalls: [] });
            send({ type: 'error', message: `The model provider failed: ${(err as Error).message}` });
            return 'done';
          }
          const reply: ChatMessage = { role: 'assistant', text, toolCalls: calls };
          await persist(ctx, agent.id, cid, reply);
          history.push(reply);
          if (!calls.length) return 'done';
          if (stop.aborted) return 'stopped';
          const results: ToolResult[] = [];
          for (const call of calls) {
            send({ type: 'tool_use', tool: call.name, input: call.input });
            results.push(await runTool(run, call));
          }
          const turn: ChatMessage = { role: 'tool', results };
          await persist(ctx, agent.id, cid, turn);
          history.push(turn);
          if (stop.aborted) return 'stopped';
        }
        send({ type: 'error', message: `Stopped after ${MAX_STEPS} model steps without a final answer.` });
        return 'done';
      };
      loop()
        .then((how) => {
          if (how === 'stopped' && ctx.shutdown?.aborted) send({ type: 'error', message: SHUTDOWN_MESSAGE });
        })
        .catch((err) => {
          ctx.log.error('chat failed', { agent_id: agent.id, ...errorFields(err) });
          send({ type: 'error', message: ctx.shutdown?.aborted ? SHUTDOWN_MESSAGE : 'An unexpected error occurred.' });
        })
        .finally(() => {
          send({ type: 'end' });
          if (!left.signal.aborted) controller.close();
        });
    },
    // The client disconnected: stop generating (aborts the provider request; no further steps).
    cancel() {
      left.abort();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Conversation-Id': cid },
  });
}
