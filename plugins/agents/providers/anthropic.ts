import { parseArgs, parseJson, readSse } from './sse';
import { ProviderError, type ChatMessage, type ModelEvent, type ModelProvider, type ModelRequest } from './types';

const VERSION = '2023-06-01';
// The Messages API requires max_tokens; a generous reply budget for a shop assistant.
const MAX_TOKENS = 4096;

/** Messages API turns from the neutral conversation: tool results travel in a user turn. */
function wireMessages(messages: ChatMessage[]) {
  return messages.map((m) => {
    if (m.role === 'user') return { role: 'user', content: m.text };
    if (m.role === 'assistant')
      return {
        role: 'assistant',
        content: [
          ...(m.text ? [{ type: 'text', text: m.text }] : []),
          ...m.toolCalls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input })),
        ],
      };
    return {
      role: 'user',
      content: m.results.map((r) => ({ type: 'tool_result', tool_use_id: r.id, content: r.content, is_error: r.isError })),
    };
  });
}

/**
 * The Anthropic Messages wire format, streamed: content blocks open (text or tool_use), receive
 * deltas (text_delta, input_json_delta) and close; a tool call is complete at its block's stop.
 */
export function anthropicProvider(baseUrl: string, apiKey: string): ModelProvider {
  return {
    async *stream(req: ModelRequest): AsyncIterable<ModelEvent> {
      const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'anthropic-version': VERSION },
        body: JSON.stringify({
          model: req.model,
          max_tokens: MAX_TOKENS,
          stream: true,
          ...(req.system ? { system: req.system } : {}),
          messages: wireMessages(req.messages),
          ...(req.tools.length ? { tools: req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })) } : {}),
        }),
        signal: req.signal,
      });
      const blocks = new Map<number, { id: string; name: string; json: string }>();
      let stopped = false;
      for await (const { data } of readSse(res, 'Anthropic')) {
        const ev = parseJson(data, 'Anthropic');
        switch (ev.type) {
          case 'content_block_start':
            if (ev.content_block?.type === 'tool_use') blocks.set(ev.index, { id: ev.content_block.id, name: ev.content_block.name, json: '' });
            else if (ev.content_block?.type === 'text' && ev.content_block.text) yield { type: 'text', text: ev.content_block.text };
            break;
          case 'content_block_delta':
            if (ev.delta?.type === 'text_delta' && ev.delta.text) yield { type: 'text', text: ev.delta.text };
            else if (ev.delta?.type === 'input_json_delta') {
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
          case 'message_stop':
            stopped = true;
            break;
          case 'error':
            throw new ProviderError(`Anthropic error: ${ev.error?.message ?? ev.error?.type ?? 'unknown'}`);
        }
        if (stopped) break;
      }
      if (!stopped) throw new ProviderError('Anthropic stream ended before message_stop');
    },
  };
}
