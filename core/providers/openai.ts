import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { parseArgs } from './args';
import { malformed, providerFetch, sdkFailure, type WireState } from './wire';
import type {
  ChatMessage,
  ChatProvider,
  Completion,
  CompleteRequest,
  EmbeddingsProvider,
  ModelEvent,
  ModelRequest,
  StopReason,
  Usage,
} from './types';

const VENDOR = 'openai';

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

export interface OpenAiSettings {
  baseUrl: string;
  /** Optional: local OpenAI-compatible servers (Ollama, vLLM) take none. */
  apiKey?: string;
  timeoutMs: number;
}

/** A client of the official SDK whose fetch carries our retry and timeout policy (wire.ts), its own retries off. */
async function clientFor(s: OpenAiSettings, state: WireState, stream: boolean) {
  // Loaded at the first call, not when svc starts: a large module most commands never use.
  const { default: OpenAI } = await import('openai');
  // organization/project null: the SDK would otherwise read them from this process's environment.
  const client = new OpenAI({
    baseURL: s.baseUrl,
    apiKey: s.apiKey ?? 'none',
    organization: null,
    project: null,
    maxRetries: 0,
    // Ours (wire.ts) bounds each attempt; the SDK's own would cut a long stream.
    timeout: 24 * 3600_000,
    logLevel: 'off',
    fetch: providerFetch({ provider: VENDOR, timeoutMs: s.timeoutMs, stream, dropAuthorization: !s.apiKey }, state),
  });
  return { OpenAI, client };
}

/**
 * The OpenAI chat-completions wire format (OpenAI, Azure, vLLM, Ollama, LiteLLM ... all speak
 * it), through the official SDK. Streamed (agents): tool calls arrive as deltas keyed by `index`,
 * the first with id and name, the rest fragments of the JSON arguments, complete when the choice
 * finishes; usage comes in a last chunk (`stream_options.include_usage`). Whole (llm): one answer,
 * structured with `response_format: json_schema` when a schema is given.
 */
export function openaiProvider(s: OpenAiSettings): ChatProvider {
  return {
    name: VENDOR,
    async *stream(req: ModelRequest): AsyncIterable<ModelEvent> {
      const state: WireState = { timedOut: false };
      const { OpenAI, client } = await clientFor(s, state, true);
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
        throw sdkFailure(VENDOR, OpenAI, err, state, s.timeoutMs);
      }
      // A stream that stopped before a finish_reason may hold half a tool call: the failure it is.
      if (!finish) throw malformed(VENDOR, 'the stream ended before its finish_reason');
      for (const [i, c] of [...calls].sort(([a], [b]) => a - b))
        yield { type: 'tool_call', call: { id: c.id || `call_${i}`, name: c.name, input: parseArgs(c.args) } };
      yield { type: 'finish', stop: STOPS[finish] ?? 'end', usage };
    },
    async complete(req: CompleteRequest): Promise<Completion> {
      const state: WireState = { timedOut: false };
      const { OpenAI, client } = await clientFor(s, state, false);
      let res: any;
      try {
        res = await client.chat.completions.create(
          {
            model: req.model,
            messages: [...(req.system ? [{ role: 'system' as const, content: req.system }] : []), { role: 'user', content: req.prompt }],
            ...(req.maxTokens ? { max_tokens: req.maxTokens } : {}),
            ...(req.schema
              ? { response_format: { type: 'json_schema' as const, json_schema: { name: 'answer', schema: req.schema, strict: false } } }
              : {}),
          },
          { signal: req.signal },
        );
      } catch (err) {
        throw sdkFailure(VENDOR, OpenAI, err, state, s.timeoutMs);
      }
      const choice = res?.choices?.[0];
      const text = choice?.message?.content;
      if (typeof text !== 'string') throw malformed(VENDOR, 'no choices[0].message.content in the answer');
      const usage = { input_tokens: res.usage?.prompt_tokens ?? 0, output_tokens: res.usage?.completion_tokens ?? 0 };
      return { text, usage, truncated: choice.finish_reason === 'length', ...(req.schema ? { json: parseJson(text) } : {}) };
    },
  };
}

/** The object a structured answer holds, or undefined when its text is not JSON. */
const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** OpenAI's `POST /embeddings`, floats asked for (the SDK would otherwise ask for base64). */
export function openaiEmbeddings(s: OpenAiSettings): EmbeddingsProvider {
  return {
    name: VENDOR,
    async embed(model, texts, signal) {
      const state: WireState = { timedOut: false };
      const { OpenAI, client } = await clientFor(s, state, false);
      let res: any;
      try {
        res = await client.embeddings.create({ model, input: texts, encoding_format: 'float' }, { signal });
      } catch (err) {
        throw sdkFailure(VENDOR, OpenAI, err, state, s.timeoutMs);
      }
      const data = Array.isArray(res?.data) ? [...res.data].sort((a: any, b: any) => (a?.index ?? 0) - (b?.index ?? 0)) : null;
      const vectors = data?.map((d: any) => d?.embedding);
      const ok = vectors?.length === texts.length && vectors.every((v: unknown) => Array.isArray(v) && v.length > 0 && v.every(Number.isFinite));
      if (!ok) throw malformed(VENDOR, `expected ${texts.length} embedding vector(s) of numbers`);
      const dims = vectors![0].length;
      if (vectors!.some((v: number[]) => v.length !== dims)) throw malformed(VENDOR, 'embedding vectors of different lengths');
      return { vectors: vectors!, usage: { input_tokens: res.usage?.prompt_tokens ?? 0, output_tokens: 0 } };
    },
  };
}
