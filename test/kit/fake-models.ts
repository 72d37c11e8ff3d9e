/**
 * Scripted fake model servers on 127.0.0.1 for the agents tests, speaking the real streaming wire
 * formats: each request gets the next scripted reply and its body is kept for assertions.
 */
export type Reply =
  | { frames: string[]; cut?: boolean }
  | { status: number; body: string; headers?: Record<string, string> }
  /** Answers `then` only after `ms` (a provider slower than the timeout). */
  | { delayMs: number; then: Reply };

/** The tokens every scripted reply reports using (a turn of n model calls took n times this). */
export const USAGE = { input_tokens: 11, output_tokens: 7 };

export function fakeServer(replies: Reply[]) {
  const requests: any[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      // `at`: when it arrived (ms, monotonic), to check a retry waited as long as it was told.
      const url = new URL(req.url);
      const text = await req.text();
      requests.push({
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: Object.fromEntries(req.headers),
        body: text ? JSON.parse(text) : undefined,
        at: performance.now(),
      });
      let r = replies.shift();
      if (!r) return new Response('no scripted reply left', { status: 500 });
      while ('delayMs' in r) {
        await Bun.sleep(r.delayMs);
        r = r.then;
      }
      const reply = r;
      if ('status' in reply) return new Response(reply.body, { status: reply.status, headers: reply.headers });
      const enc = new TextEncoder();
      return new Response(
        new ReadableStream({
          async start(c) {
            for (const f of reply.frames) {
              c.enqueue(enc.encode(f));
              await Bun.sleep(1);
            }
            // A cut stream ends abruptly, as a dropped connection does, without its final event
            // (after a pause, so the frames sent before the cut reach the client even under load).
            if (reply.cut) {
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

/** A provider asking to be called again later (429 rate limit, 529 overloaded, 503) after `seconds`. */
export const busy = (status: number, seconds = 1): Reply => ({
  status,
  headers: { 'retry-after': String(seconds), 'content-type': 'application/json' },
  body: JSON.stringify({ type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'overloaded_error', message: 'Try again shortly.' } }),
});

const json = (body: unknown, status = 200): Reply => ({ status, body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

/** Whole (non-streamed) answers, as the llm tool and embeddings ask for them. */
export const whole = {
  /** An OpenAI chat.completion whose message content is `content` (a structured answer is JSON text). */
  openai: (content: string, finish = 'stop') =>
    json({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-test',
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finish }],
      usage: { prompt_tokens: USAGE.input_tokens, completion_tokens: USAGE.output_tokens, total_tokens: 18 },
    }),
  /** An Anthropic message with one text block. */
  anthropic: (text: string) =>
    json({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: USAGE,
    }),
  /** An Anthropic message calling the forced tool with `input` (a structured answer). */
  anthropicTool: (name: string, input: object) =>
    json({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [{ type: 'tool_use', id: 'toolu_1', name, input }],
      stop_reason: 'tool_use',
      usage: USAGE,
    }),
  /** OpenAI's /embeddings answer. */
  embeddings: (vectors: number[][], tokens = 5) =>
    json({
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model: 'text-embedding-3-small',
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    }),
  /** SearXNG's JSON results. */
  searxng: (results: { title: string; url: string; content: string }[]) => json({ query: 'q', results }),
  /** Brave's web search answer. */
  brave: (results: { title: string; url: string; description: string }[]) => json({ type: 'search', web: { results } }),
  /** A 200 whose body is not the JSON the protocol promises. */
  malformed: (): Reply => ({ status: 200, body: '{"choices": [', headers: { 'content-type': 'application/json' } }),
  json,
};

const oai = (chunk: object) => `data: ${JSON.stringify(chunk)}\n\n`;
/** The end of an OpenAI stream: the finish_reason, the usage chunk (stream_options.include_usage), [DONE]. */
const oaiEnd = (finish: string) => [
  oai({ choices: [{ index: 0, delta: {}, finish_reason: finish }] }),
  oai({ choices: [], usage: { prompt_tokens: USAGE.input_tokens, completion_tokens: USAGE.output_tokens, total_tokens: 18 } }),
  'data: [DONE]\n\n',
];

/** OpenAI chat-completions SSE. */
export const openai = {
  text: (...chunks: string[]): Reply => ({
    frames: [...chunks.map((t) => oai({ choices: [{ index: 0, delta: { content: t } }] })), ...oaiEnd('stop')],
  }),
  /** Text the token limit cut off (finish_reason `length`). */
  cutText: (...chunks: string[]): Reply => ({
    frames: [...chunks.map((t) => oai({ choices: [{ index: 0, delta: { content: t } }] })), ...oaiEnd('length')],
  }),
  /** A tool call the token limit cut off half way through its arguments. */
  cutTool: (call: { name: string; input: object }): Reply => {
    const args = JSON.stringify(call.input);
    const d = (tc: object) => oai({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, ...tc }] } }] });
    return {
      frames: [
        d({ id: 'call_cut', type: 'function', function: { name: call.name, arguments: '' } }),
        d({ function: { arguments: args.slice(0, Math.floor(args.length / 2)) } }),
        ...oaiEnd('length'),
      ],
    };
  },
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
      ...oaiEnd('tool_calls'),
    ],
  }),
};

const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const start = ev('message_start', {
  message: {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'claude',
    usage: { input_tokens: USAGE.input_tokens, output_tokens: 1 },
  },
});
/** The end of an Anthropic stream: the stop reason with the output tokens (a running total), then message_stop. */
const antEnd = (stop: string) => [
  ev('message_delta', { delta: { stop_reason: stop }, usage: { output_tokens: USAGE.output_tokens } }),
  ev('message_stop', {}),
];
const antText = (chunks: string[]) => [
  ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  ...chunks.map((t) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: t } })),
  ev('content_block_stop', { index: 0 }),
];

/** Anthropic Messages SSE. */
export const anthropic = {
  text: (...chunks: string[]): Reply => ({ frames: [start, ...antText(chunks), ...antEnd('end_turn')] }),
  /** Text the token limit cut off (stop_reason `max_tokens`). */
  cutText: (...chunks: string[]): Reply => ({ frames: [start, ...antText(chunks), ...antEnd('max_tokens')] }),
  /** A tool call the token limit cut off half way through its input (its block closed, as the API does). */
  cutTool: (call: { name: string; input: object }): Reply => {
    const args = JSON.stringify(call.input);
    return {
      frames: [
        start,
        ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_cut', name: call.name, input: {} } }),
        ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: args.slice(0, Math.floor(args.length / 2)) } }),
        ev('content_block_stop', { index: 0 }),
        ...antEnd('max_tokens'),
      ],
    };
  },
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
      ...antEnd('tool_use'),
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
