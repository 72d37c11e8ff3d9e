/**
 * Scripted fake model servers on 127.0.0.1 for the agents tests, speaking the real streaming wire
 * formats: each request gets the next scripted reply and its body is kept for assertions.
 */
export type Reply = { frames: string[]; cut?: boolean } | { status: number; body: string };

export function fakeServer(replies: Reply[]) {
  const requests: any[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      requests.push({ path: new URL(req.url).pathname, headers: Object.fromEntries(req.headers), body: await req.json() });
      const r = replies.shift();
      if (!r) return new Response('no scripted reply left', { status: 500 });
      if ('status' in r) return new Response(r.body, { status: r.status });
      const enc = new TextEncoder();
      return new Response(
        new ReadableStream({
          async start(c) {
            for (const f of r.frames) {
              c.enqueue(enc.encode(f));
              await Bun.sleep(1);
            }
            // A cut stream ends abruptly, as a dropped connection does, without its final event
            // (after a pause, so the frames sent before the cut reach the client even under load).
            if (r.cut) {
              await Bun.sleep(25);
              c.error(new Error('connection reset'));
            } else c.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}

/** OpenAI chat-completions SSE. */
export const openai = {
  text: (...chunks: string[]): Reply => ({
    frames: [
      ...chunks.map((t) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: t } }] })}\n\n`),
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
      'data: [DONE]\n\n',
    ],
  }),
  /** Tool calls, each split into an opening delta and two argument fragments. */
  tools: (...calls: { name: string; input: object }[]): Reply => ({
    frames: [
      ...calls.flatMap((c, index) => {
        const args = JSON.stringify(c.input);
        const half = Math.floor(args.length / 2);
        const d = (tc: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index, ...tc }] } }] })}\n\n`;
        return [
          d({ id: `call_${index}_${crypto.randomUUID().slice(0, 6)}`, type: 'function', function: { name: c.name, arguments: '' } }),
          d({ function: { arguments: args.slice(0, half) } }),
          d({ function: { arguments: args.slice(half) } }),
        ];
      }),
      `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\n`,
      'data: [DONE]\n\n',
    ],
  }),
};

const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const start = ev('message_start', {
  message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], model: 'claude', usage: { input_tokens: 1, output_tokens: 0 } },
});

/** Anthropic Messages SSE. */
export const anthropic = {
  text: (...chunks: string[]): Reply => ({
    frames: [
      start,
      ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ...chunks.map((t) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: t } })),
      ev('content_block_stop', { index: 0 }),
      ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }),
      ev('message_stop', {}),
    ],
  }),
  tools: (...calls: { name: string; input: object }[]): Reply => ({
    frames: [
      start,
      ...calls.flatMap((c, index) => {
        const args = JSON.stringify(c.input);
        const half = Math.floor(args.length / 2);
        return [
          ev('content_block_start', {
            index,
            content_block: { type: 'tool_use', id: `toolu_${index}_${crypto.randomUUID().slice(0, 6)}`, name: c.name, input: {} },
          }),
          ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.slice(0, half) } }),
          ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.slice(half) } }),
          ev('content_block_stop', { index }),
        ];
      }),
      ev('message_delta', { delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 5 } }),
      ev('message_stop', {}),
    ],
  }),
};

/** The text frames of a reply with the stream cut after them (a provider failing mid-stream). */
export const cutAfter = (r: Reply, frames: number): Reply => ('frames' in r ? { frames: r.frames.slice(0, frames), cut: true } : r);

/** Parses an SSE chat response body into its event objects. */
export const events = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
