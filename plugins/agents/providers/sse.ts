import { ProviderError } from './types';

/**
 * The server-sent events of a provider response, as { event, data } (data lines joined). Both
 * wire formats are plain SSE, so one small reader serves them.
 */
export async function* readSse(res: Response, provider: string): AsyncIterable<{ event: string; data: string }> {
  if (!res.ok) {
    const body = (await res.text().catch(() => '')).slice(0, 500);
    throw new ProviderError(`${provider} answered HTTP ${res.status}${body ? `: ${body}` : ''}`);
  }
  if (!res.body) throw new ProviderError(`${provider} sent no body`);
  const decoder = new TextDecoder();
  let buf = '';
  let event = '';
  let data: string[] = [];
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      if (line === '') {
        if (data.length) yield { event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('event:')) event = line.slice(6).trim();
    }
  }
  if (data.length) yield { event: event || 'message', data: data.join('\n') };
}

export function parseJson(text: string, provider: string): any {
  try {
    return JSON.parse(text);
  } catch {
    throw new ProviderError(`${provider} sent malformed JSON in its stream`);
  }
}

/** Tool arguments arrive as JSON text; anything but an object is handed on as an empty input. */
export function parseArgs(text: string): Record<string, unknown> {
  try {
    const v = JSON.parse(text || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}
