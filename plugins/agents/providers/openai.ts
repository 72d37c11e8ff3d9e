import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { parseArgs } from './args';
import { MAX_RETRIES, providerError, providerFetch } from './wire';
import { ProviderError, type ChatMessage, type ModelEvent, type ModelProvider, type ModelRequest, type StopReason, type Usage } from './types';

const VENDOR = 'OpenAI-compatible provider';

/** chat/completions messages from the neutral conversation. */
function wireMessages(system: string, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: m.text });
    else if (m.role === 'assistant')
      out.push({
        role: 'assistant',
        content: m.text || null,
        ...(m.toolCalls.length
          ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })) }
          : {}),
      });
    else for (const r of m.results) out.push({ role: 'tool', tool_call_id: r.id, content: r.content });
  }
  return out;
}

/** finish_reason to ours: `length` is the token limit, which leaves the reply incomplete. */
const STOPS: Record<string, StopReason> = { stop: 'end', tool_calls: 'tool_use', function_call: 'tool_use', length: 'max_tokens' };

/**
 * The OpenAI chat-completions wire format (OpenAI, Azure, vLLM, Ollama, LiteLLM ... all speak
 * it), streamed through the official SDK (its retries, its SSE parsing). Tool calls arrive as
 * deltas keyed by `index`: the first carries id and name, the rest fragments of the JSON
 * arguments; they are complete when the choice finishes. Usage comes in a last chunk
 * (`stream_options.include_usage`).
 */
export function openaiProvider(baseUrl: string, apiKey: string | undefined): ModelProvider {
  return {
    name: 'openai',
    async *stream(req: ModelRequest): AsyncIterable<ModelEvent> {
      // Loaded at the first chat, not when svc starts: a large module most commands never use.
      const { default: OpenAI } = await import('openai');
      // organization/project null: the SDK would otherwise read them from this process's environment.
      const client = new OpenAI({
        baseURL: baseUrl,
        apiKey: apiKey ?? 'none',
        organization: null,
        project: null,
        maxRetries: MAX_RETRIES,
        logLevel: 'off',
        fetch: providerFetch({ dropAuthorization: !apiKey }),
      });
      const calls = new Map<number, { id: string; name: string; args: string }>();
      const usage: Usage = { input_tokens: 0, output_tokens: 0 };
      let finish: string | undefined;
      try {
        const stream = await client.chat.completions.create(
          {
            model: req.model,
            stream: true,
            stream_options: { include_usage: true },
            messages: wireMessages(req.system, req.messages),
            ...(req.tools.length
              ? {
                  tools: req.tools.map((t) => ({
                    type: 'function' as const,
                    function: { name: t.name, description: t.description, parameters: t.parameters },
                  })),
                }
              : {}),
          },
          { signal: req.signal },
        );
        for await (const chunk of stream) {
          if (chunk.usage) {
            usage.input_tokens = chunk.usage.prompt_tokens ?? 0;
            usage.output_tokens = chunk.usage.completion_tokens ?? 0;
          }
          const choice = chunk.choices?.[0];
          if (!choice) continue;
          const delta = choice.delta;
          if (typeof delta?.content === 'string' && delta.content) yield { type: 'text', text: delta.content };
          for (const tc of delta?.tool_calls ?? []) {
            const i = tc.index ?? 0;
            const cur = calls.get(i) ?? { id: '', name: '', args: '' };
            if (tc.id) cur.id = tc.id;
            if (tc.function?.name) cur.name += tc.function.name;
            if (tc.function?.arguments) cur.args += tc.function.arguments;
            calls.set(i, cur);
          }
          if (choice.finish_reason) finish = choice.finish_reason;
        }
      } catch (err) {
        throw providerError(VENDOR, OpenAI, err);
      }
      // A stream that stopped before a finish_reason may hold half a tool call: the failure it is.
      if (!finish) throw new ProviderError(`${VENDOR} stream ended before its finish_reason`);
      for (const [i, c] of [...calls].sort(([a], [b]) => a - b))
        yield { type: 'tool_call', call: { id: c.id || `call_${i}`, name: c.name, input: parseArgs(c.args) } };
      yield { type: 'finish', stop: STOPS[finish] ?? 'end', usage };
    },
  };
}
