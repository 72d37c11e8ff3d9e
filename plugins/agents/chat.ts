import { checkSpendCap, chatModel, errorFields, errors, fail, recordUsage as recordProviderUsage, SvcError } from '../../core/sdk';
import type { Static } from '@sinclair/typebox';
import type { Ctx, Row } from '../../core/sdk';
import { emitEvents } from '../../core/sdk';
import { CUSTOM_TOOLSET, publicToolsNamed, usableCustomTools, type ToolCaller, type ToolOptions } from '../../core/platform';
import type { ChatMessage, Meter, ToolCall, ToolResult, Usage } from '../../core/sdk';
import { agentTools, runTool, type ToolResultEvent, type ToolRun } from './chat-tools';
import type { ChatInput, ChatReply } from './schemas';
import { agentRow, conversationRow, messagesOf, toMessage, type AgentDeps } from './store';

/** Model calls per chat message: enough for look-up, act, answer; bounds cost when a model loops. */
export const MAX_STEPS = 8;

type Sse =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; tool: string; input: object }
  | { type: 'approval_required'; tool: string; execution_id: string; message: string }
  | ToolResultEvent
  | { type: 'error'; message: string; code?: string }
  | { type: 'end'; usage: Usage; truncated?: true };

/** An error as one log line: its message with line breaks folded. */
const oneLine = (err: unknown) => String((err as Error)?.message ?? err).replace(/\s*\n\s*/g, ' ');

/** How the stream stays open while a gated call waits: an SSE comment this often (proxies drop idle streams). */
export const KEEP_ALIVE_MS = 15_000;

/** The last event but `end` of a chat cut short by the server shutting down. */
export const SHUTDOWN_MESSAGE =
  'The server is shutting down, so this reply stopped here. Send your next message in the same conversation (conversation_id) once it is back.';

/** Tells the client why a reply ended early when the model's tool call was cut off by the token limit. */
export const TRUNCATED_TOOL_CALL_MESSAGE =
  'The model reached its output token limit in the middle of a tool call, so the call was not run. Ask again, or for less at once.';

/** Keeps one model call's token usage: per agent (GET /model-usage) and in the store's provider usage and cost (GET /usage). */
async function recordUsage(ctx: Ctx, meter: Meter, agentId: string, conversationId: string, provider: string, model: string, usage: Usage) {
  await recordProviderUsage(meter, provider, model, usage);
  await ctx.db.query(
    `INSERT INTO agent_model_calls (id, store_id, agent_id, conversation_id, provider, model, input_tokens, output_tokens, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [crypto.randomUUID(), ctx.store.id, agentId, conversationId, provider, model, usage.input_tokens, usage.output_tokens, ctx.clock.now()],
  );
}

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
    await emitEvents(tx, ctx.registry, ctx.store.id, [{ type: 'agent.message', data, at }]);
  });
}

/**
 * Whether the client asked for one JSON object rather than the event stream: `stream` in the body
 * decides when given; else an Accept naming application/json but not text/event-stream.
 */
function wantsJson(ctx: Ctx, input: Static<typeof ChatInput>): boolean {
  if (input.stream !== undefined) return !input.stream;
  const accept = ctx.http?.request.headers.get('accept') ?? '';
  const types = accept
    .toLowerCase()
    .split(',')
    .map((t) => t.split(';')[0].trim());
  return types.includes('application/json') && !types.includes('text/event-stream');
}

/** How the reply reaches the client: SSE events as they happen, or one JSON object at the end. */
interface Sink {
  send(e: Sse): void;
  keepAlive(): void;
}

const sseSink = (write: (text: string) => void): Sink => ({
  send: (e) => write(`data: ${JSON.stringify(e)}\n\n`),
  // An SSE comment: clients ignore it, proxies see traffic.
  keepAlive: () => write(': keep-alive\n\n'),
});

/** Gathers the events into a ChatReply, written whole at `end`; the same loop feeds both sinks. */
function jsonSink(write: (text: string) => void, agentId: string, conversationId: string): Sink {
  const out: Static<typeof ChatReply> = {
    object: 'agent_reply',
    agent_id: agentId,
    conversation_id: conversationId,
    text: '',
    tool_calls: [],
    error: null,
    error_code: null,
    truncated: false,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
  return {
    send(e) {
      const last = out.tool_calls.at(-1);
      if (e.type === 'text') out.text += e.text;
      else if (e.type === 'tool_use')
        out.tool_calls.push({ tool: e.tool, input: e.input as Record<string, unknown>, execution_id: null, status: 'pending_approval' });
      else if (e.type === 'approval_required' && last) last.execution_id = e.execution_id;
      else if (e.type === 'tool_result' && last) Object.assign(last, { execution_id: e.execution_id, status: e.status });
      else if (e.type === 'error') Object.assign(out, { error: e.message, error_code: e.code ?? null });
      else if (e.type === 'end') write(JSON.stringify({ ...out, usage: e.usage, truncated: e.truncated ?? false }));
    },
    // Whitespace before a JSON value is valid JSON: traffic for proxies while a call waits for approval.
    keepAlive: () => write('\n'),
  };
}

/**
 * POST /agents/:id/chat: checks agent (not paused), channel, provider and conversation (JSON
 * errors), stores the user message, then answers with the SSE stream of SPEC 4.2 while the loop
 * runs: the model streams text and tool calls, tools run, their results go back, until the model
 * answers or MAX_STEPS. Asked for JSON, the same loop answers one ChatReply when it ends.
 */
export async function chat(
  deps: AgentDeps,
  ctx: Ctx,
  input: Static<typeof ChatInput>,
  channel: { name: 'api' } | { name: 'webchat' | 'sms'; visitor: string; agent: Row } = { name: 'api' },
): Promise<Response> {
  const agent = channel.name === 'api' ? await agentRow(ctx, input.id) : channel.agent;
  if (agent.status === 'paused') throw fail('agent_paused', `Agent '${agent.id}' is paused; set its status to active to chat with it.`, 'status');
  // This endpoint is the `api` channel (an API key calling); `webchat` is the storefront widget's (webchat.ts).
  if (channel.name === 'api' && !agent.channels.includes('api'))
    throw errors.conflict(`Agent '${agent.id}' is not enabled on the api channel; add 'api' to its channels.`, 'conflict_error', 'channels');
  // A webchat visitor's or a texter's (sms: `sms:<number>`) conversation is theirs alone.
  const visitor = channel.name === 'api' ? null : channel.visitor;
  const { provider, model } = chatModel(agent.model, deps.providers);
  const meter: Meter = { db: ctx.db, clock: ctx.clock, storeId: ctx.store.id, prices: deps.providers.provider_prices };
  // At the cap the chat is refused before anything is written (403 spend_cap_reached); later steps check again.
  await checkSpendCap(meter);
  let conversationId = input.conversation_id;
  if (conversationId) {
    const row = await conversationRow(ctx, agent.id, conversationId);
    // A visitor continues only their own conversation; the API channel never a visitor's and vice versa.
    if ((row.visitor_id ?? null) !== visitor) throw errors.notFound(`conversation: '${conversationId}'`, 'conversation_id');
  } else {
    conversationId = crypto.randomUUID();
    const now = ctx.clock.now();
    await ctx.db.query(
      'INSERT INTO agent_conversations (id, store_id, agent_id, visitor_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)',
      [conversationId, ctx.store.id, agent.id, visitor, now],
    );
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
  const json = wantsJson(ctx, input);
  const caller: ToolCaller = {
    db: ctx.db,
    clock: ctx.clock,
    registry: ctx.registry,
    log: ctx.log,
    principal: ctx.principal,
    store: ctx.store,
    source: 'agent',
    origin: ctx.http?.origin,
    agent: { id: agent.id, name: agent.name, toolOverrides: agent.tool_config?.tool_overrides ?? {} },
  };

  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const write = (text: string) => {
        if (!left.signal.aborted) controller.enqueue(encoder.encode(text));
      };
      const sink = json ? jsonSink(write, agent.id, cid) : sseSink(write);
      const send = sink.send;
      const run: ToolRun = {
        ctx,
        opts,
        custom,
        caller,
        signal: stop,
        keepAliveMs: deps.keepAliveMs ?? KEEP_ALIVE_MS,
        pollMs: deps.approvalPollMs,
        onHold: (tool, executionId, message) => send({ type: 'approval_required', tool, execution_id: executionId, message }),
        keepAlive: sink.keepAlive,
      };
      // Summed over the turn's model calls, for the `end` event; `truncated` when the last text was cut off.
      const usage: Usage = { input_tokens: 0, output_tokens: 0 };
      let truncated = false;
      /** Runs the model/tool steps; 'stopped' when the client left or the server is shutting down. */
      const loop = async (): Promise<'done' | 'stopped'> => {
        for (let step = 0; step < MAX_STEPS; step++) {
          if (stop.aborted) return 'stopped';
          let text = '';
          const calls: ToolCall[] = [];
          let cut = false;
          let used: Usage | undefined;
          try {
            if (step > 0) await checkSpendCap(meter);
            for await (const ev of provider.stream({ model, system: agent.system_prompt, messages: history, tools, signal: stop })) {
              if (ev.type === 'text') {
                text += ev.text;
                send({ type: 'text', text: ev.text });
              } else if (ev.type === 'tool_call') calls.push(ev.call);
              else {
                cut = ev.stop === 'max_tokens';
                used = ev.usage;
              }
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
            const code = err instanceof SvcError ? err.code : undefined;
            send({ type: 'error', message: `The model provider failed: ${(err as Error).message}`, ...(code ? { code } : {}) });
            return 'done';
          }
          if (used) {
            usage.input_tokens += used.input_tokens;
            usage.output_tokens += used.output_tokens;
            await recordUsage(ctx, meter, agent.id, cid, provider.name, model, used);
          }
          // A tool call cut off by the token limit has half its input: never run it.
          if (cut && calls.length) {
            if (text) await persist(ctx, agent.id, cid, { role: 'assistant', text, toolCalls: [] });
            send({ type: 'error', code: 'output_truncated', message: TRUNCATED_TOOL_CALL_MESSAGE });
            return 'done';
          }
          const reply: ChatMessage = { role: 'assistant', text, toolCalls: calls };
          await persist(ctx, agent.id, cid, reply);
          history.push(reply);
          if (!calls.length) {
            truncated = cut;
            return 'done';
          }
          if (stop.aborted) return 'stopped';
          const results: ToolResult[] = [];
          for (const call of calls) {
            send({ type: 'tool_use', tool: call.name, input: call.input });
            const settled = await runTool(run, call);
            send(settled.event);
            results.push(settled.forModel);
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
          send({ type: 'end', usage, ...(truncated ? { truncated: true as const } : {}) });
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
    headers: {
      'Content-Type': json ? 'application/json; charset=utf-8' : 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Conversation-Id': cid,
    },
  });
}
