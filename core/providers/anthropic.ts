import type Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { parseArgs } from './args';
import { malformed, providerFetch, sdkFailure, type WireState } from './wire';
import type { ChatMessage, ChatProvider, Completion, CompleteRequest, ModelEvent, ModelRequest, StopReason, Usage } from './types';

const VENDOR = 'anthropic';
// The Messages API requires max_tokens; a generous reply budget for a shop assistant.
const MAX_TOKENS = 4096;

/** Messages API turns from the neutral conversation: tool results travel in a user turn. */
function wireMessages(messages: ChatMessage[]): MessageParam[] {
  return messages.map((m): MessageParam => {
    if (m.role === 'user') return { role: 'user', content: m.text };
    if (m.role === 'assistant') {
      const content: ContentBlockParam[] = [
        ...(m.text ? [{ type: 'text' as const, text: m.text }] : []),
        ...m.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.input })),
      ];
      return { role: 'assistant', content };
    }
    return {
      role: 'user',
      content: m.results.map((r) => ({ type: 'tool_result' as const, tool_use_id: r.id, content: r.content, is_error: r.isError })),
    };
  });
}

/** stop_reason to ours: the token limit or a full context window cuts the reply off. */
const STOPS: Record<string, StopReason> = {
  end_turn: 'end',
  stop_sequence: 'end',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  model_context_window_exceeded: 'max_tokens',
};

/**
 * The settings' base URL names the API version (`https://api.anthropic.com/v1`, as documented);
 * the SDK adds `/v1` itself, so it is given the URL without it (either form works).
 */
const sdkBase = (baseUrl: string) => baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');

export interface AnthropicSettings {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** A client of the official SDK whose fetch carries our retry and timeout policy (wire.ts), its own retries off. */
async function clientFor(s: AnthropicSettings, state: WireState, stream: boolean) {
  // Loaded at the first call, not when svc starts: a large module most commands never use.
  const { default: AnthropicSdk } = await import('@anthropic-ai/sdk');
  // authToken null: the SDK would otherwise add ANTHROPIC_AUTH_TOKEN from this process's environment.
  const client = new AnthropicSdk({
    baseURL: sdkBase(s.baseUrl),
    apiKey: s.apiKey,
    authToken: null,
    maxRetries: 0,
    timeout: 24 * 3600_000,
    logLevel: 'off',
    fetch: providerFetch({ provider: VENDOR, timeoutMs: s.timeoutMs, stream }, state),
  });
  return { AnthropicSdk, client };
}

/** The forced tool a structured answer is asked through: the model must call it, its input is the object. */
const ANSWER_TOOL = 'answer';

async function complete(s: AnthropicSettings, req: CompleteRequest): Promise<Completion> {
  const state: WireState = { timedOut: false };
  const { AnthropicSdk, client } = await clientFor(s, state, false);
  let res: any;
  try {
    res = await client.messages.create(
      {
        model: req.model,
        max_tokens: req.maxTokens ?? MAX_TOKENS,
        ...(req.system ? { system: req.system } : {}),
        messages: [{ role: 'user', content: req.prompt }],
        ...(req.schema
          ? {
              tools: [{ name: ANSWER_TOOL, description: 'Give the answer as this object.', input_schema: req.schema as Anthropic.Tool.InputSchema }],
              tool_choice: { type: 'tool' as const, name: ANSWER_TOOL },
            }
          : {}),
      },
      { signal: req.signal },
    );
  } catch (err) {
    throw sdkFailure(VENDOR, AnthropicSdk, err, state, s.timeoutMs);
  }
  if (!Array.isArray(res?.content)) throw malformed(VENDOR, 'no content blocks in the answer');
  const usage = { input_tokens: res.usage?.input_tokens ?? 0, output_tokens: res.usage?.output_tokens ?? 0 };
  const text = res.content
    .filter((b: any) => b?.type === 'text' && typeof b.text === 'string')
    .map((b: any) => b.text)
    .join('');
  const truncated = res.stop_reason === 'max_tokens';
  if (!req.schema) return { text, usage, truncated };
  const tool = res.content.find((b: any) => b?.type === 'tool_use' && b.name === ANSWER_TOOL);
  return { text: tool ? JSON.stringify(tool.input) : text, json: tool?.input, usage, truncated };
}

/**
 * The Anthropic Messages wire format, streamed through the official SDK (its retries, 529
 * included, and its SSE parsing): content blocks open (text or tool_use), receive deltas
 * (text_delta, input_json_delta) and close; a tool call is complete at its block's stop. Input
 * tokens come in message_start, output tokens (a running total) in message_delta.
 */
export function anthropicProvider(s: AnthropicSettings): ChatProvider {
  return {
    name: VENDOR,
    complete: (req) => complete(s, req),
    async *stream(req: ModelRequest): AsyncIterable<ModelEvent> {
      const state: WireState = { timedOut: false };
      const { AnthropicSdk, client } = await clientFor(s, state, true);
      const blocks = new Map<number, { id: string; name: string; json: string }>();
      const usage: Usage = { input_tokens: 0, output_tokens: 0 };
      let stop: string | null | undefined;
      let stopped = false;
      try {
        const stream = await client.messages.create(
          {
            model: req.model,
            max_tokens: MAX_TOKENS,
            stream: true,
            ...(req.system ? { system: req.system } : {}),
            messages: wireMessages(req.messages),
            ...(req.tools.length
              ? {
                  tools: req.tools.map((t) => ({
                    name: t.name,
                    description: t.description,
                    input_schema: t.parameters as Anthropic.Tool.InputSchema,
                  })),
                }
              : {}),
          },
          { signal: req.signal },
        );
        for await (const ev of stream) {
          switch (ev.type) {
            case 'message_start':
              usage.input_tokens = ev.message.usage.input_tokens ?? 0;
              usage.output_tokens = ev.message.usage.output_tokens ?? 0;
              break;
            case 'content_block_start':
              if (ev.content_block.type === 'tool_use') blocks.set(ev.index, { id: ev.content_block.id, name: ev.content_block.name, json: '' });
              else if (ev.content_block.type === 'text' && ev.content_block.text) yield { type: 'text', text: ev.content_block.text };
              break;
            case 'content_block_delta':
              if (ev.delta.type === 'text_delta' && ev.delta.text) yield { type: 'text', text: ev.delta.text };
              else if (ev.delta.type === 'input_json_delta') {
                const b = blocks.get(ev.index);
                if (b) b.json += ev.delta.partial_json ?? '';
              }
              break;
            case 'content_block_stop': {
              const b = blocks.get(ev.index);
              if (b) {
                blocks.delete(ev.index);
                yield { type: 'tool_call', call: { id: b.id, name: b.name, input: parseArgs(b.json) } };
              }
              break;
            }
            case 'message_delta':
              stop = ev.delta.stop_reason;
              if (ev.usage.output_tokens != null) usage.output_tokens = ev.usage.output_tokens;
              if (ev.usage.input_tokens != null) usage.input_tokens = ev.usage.input_tokens;
              break;
            case 'message_stop':
              stopped = true;
              break;
          }
          if (stopped) break;
        }
      } catch (err) {
        throw sdkFailure(VENDOR, AnthropicSdk, err, state, s.timeoutMs);
      }
      if (!stopped) throw malformed(VENDOR, 'the stream ended before message_stop');
      // A tool_use block still open at the stop was cut off: reported as the truncation it is.
      yield { type: 'finish', stop: blocks.size ? 'max_tokens' : (STOPS[stop ?? ''] ?? 'end'), usage };
    },
  };
}
