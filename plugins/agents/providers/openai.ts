import { parseArgs, parseJson, readSse } from './sse';
import { ProviderError, type ChatMessage, type ModelEvent, type ModelProvider, type ModelRequest } from './types';

/** chat/completions messages from the neutral conversation. */
function wireMessages(system: string, messages: ChatMessage[]) {
  const out: unknown[] = system ? [{ role: 'system', content: system }] : [];
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

/**
 * The OpenAI chat-completions wire format (OpenAI, Azure, vLLM, Ollama, LiteLLM ... all speak
 * it), streamed. Tool calls arrive as deltas keyed by `index`: the first carries id and name, the
 * rest fragments of the JSON arguments; they are complete when the stream finishes.
 */
export function openaiProvider(baseUrl: string, apiKey: string | undefined): ModelProvider {
  return {
    async *stream(req: ModelRequest): AsyncIterable<ModelEvent> {
      const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({
          model: req.model,
          stream: true,
          messages: wireMessages(req.system, req.messages),
          ...(req.tools.length
            ? {
                tools: req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
              }
            : {}),
        }),
        signal: req.signal,
      });
      const calls = new Map<number, { id: string; name: string; args: string }>();
      let done = false;
      for await (const { data } of readSse(res, 'OpenAI-compatible provider')) {
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const chunk = parseJson(data, 'OpenAI-compatible provider');
        if (chunk.error) throw new ProviderError(`OpenAI-compatible provider error: ${chunk.error.message ?? JSON.stringify(chunk.error)}`);
        const delta = chunk.choices?.[0]?.delta;
        if (!delta) continue;
        if (typeof delta.content === 'string' && delta.content) yield { type: 'text', text: delta.content };
        for (const tc of delta.tool_calls ?? []) {
          const i = tc.index ?? 0;
          const cur = calls.get(i) ?? { id: '', name: '', args: '' };
          if (tc.id) cur.id = tc.id;
          if (tc.function?.name) cur.name += tc.function.name;
          if (tc.function?.arguments) cur.args += tc.function.arguments;
          calls.set(i, cur);
        }
      }
      // A stream cut before [DONE] may hold half a tool call: treat it as the failure it is.
      if (!done) throw new ProviderError('OpenAI-compatible provider stream ended before [DONE]');
      for (const [i, c] of [...calls].sort(([a], [b]) => a - b))
        yield { type: 'tool_call', call: { id: c.id || `call_${i}`, name: c.name, input: parseArgs(c.args) } };
    },
  };
}
