/**
 * `bun bench/agents.ts`: agent chat latency against a fake model that answers instantly
 * (OpenAI chat-completions SSE on 127.0.0.1). Prints figures; not a test.
 *   - time to first `text` event of a plain answer;
 *   - added latency per tool round trip: (tool turn) - (plain turn) - (the tool's own work, the
 *     same action invoked directly).
 * Runs on the embedded database unless DATABASE_URL is set. BENCH_ITERATIONS (default 200).
 */
import { openai } from '../test/kit/fake-models';
import { product, setup } from '../test/kit/setup';

const N = Number(process.env.BENCH_ITERATIONS ?? 200);
const PLAIN = (openai.text('Hello', ' there.') as { frames: string[] }).frames;
const TOOL = (openai.tools({ name: 'products', input: { action: 'list_products', limit: 5 } }) as { frames: string[] }).frames;

// The fake model: the next scripted reply, all frames at once (no artificial delay).
const queue: string[][] = [];
const model = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    await req.arrayBuffer();
    return new Response(queue.shift()!.join(''), { headers: { 'content-type': 'text/event-stream' } });
  },
});

const h = await setup({ env: { OPENAI_BASE_URL: `http://127.0.0.1:${model.port}/v1`, OPENAI_API_KEY: 'sk-bench' } });
await h.call('POST', '/products', product({ name: 'Lamp' }));
const agent = (await h.call('POST', '/agents', { name: 'Bench', model: 'openai/bench', tools: ['products'] })).body;

/** One chat; returns ms to the first text event and to the end of the stream. */
async function chat(replies: string[][]) {
  queue.push(...replies);
  const t0 = performance.now();
  const res = await h.app.handle(
    new Request(`http://svc.test${h.base}/agents/${agent.id}/chat`, {
      method: 'POST',
      headers: { 'x-api-key': h.key, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'What do I sell?' }),
    }),
  );
  const reader = res.body!.getReader();
  let text = '';
  let first = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    if (!first && text.includes('"type":"text"')) first = performance.now() - t0;
  }
  if (!text.includes('"type":"end"') || text.includes('"type":"error"')) throw new Error(`chat failed: ${text.slice(0, 300)}`);
  return { first, total: performance.now() - t0 };
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const median = (xs: number[]) => pct(xs, 50);

for (let i = 0; i < 20; i++) (await chat([PLAIN]), await chat([TOOL, PLAIN])); // warm-up
const plain: number[] = [];
const plainTotal: number[] = [];
const tool: number[] = [];
const own: number[] = [];
for (let i = 0; i < N; i++) {
  const p = await chat([PLAIN]);
  plain.push(p.first);
  plainTotal.push(p.total);
  tool.push((await chat([TOOL, PLAIN])).total);
  const t = performance.now();
  await h.call('GET', '/products?limit=5');
  own.push(performance.now() - t);
}
model.stop(true);

const perRound = median(tool) - median(plainTotal) - median(own);
console.log(`\n### Agent chat latency (${h.db.kind}, fake model answering instantly, ${N} chats each)\n`);
console.log('| Measurement | p50 (ms) | p99 (ms) | target |');
console.log('|---|---:|---:|---|');
console.log(`| time to first text event | ${median(plain).toFixed(2)} | ${pct(plain, 99).toFixed(2)} | < 20 ms |`);
console.log(`| plain chat, whole stream | ${median(plainTotal).toFixed(2)} | ${pct(plainTotal, 99).toFixed(2)} | |`);
console.log(`| chat with one tool round trip, whole stream | ${median(tool).toFixed(2)} | ${pct(tool, 99).toFixed(2)} | |`);
console.log(`| the tool's own work (list_products through REST) | ${median(own).toFixed(2)} | ${pct(own, 99).toFixed(2)} | |`);
console.log(`| added per tool round trip (median) | ${perRound.toFixed(2)} | | < 10 ms |`);
process.exit(0);
