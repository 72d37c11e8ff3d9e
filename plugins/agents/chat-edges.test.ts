import { expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';

test('chat over the API needs the api channel: an agent on webchat only answers 409 naming channels', async () => {
  const h = await setup({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' } });
  const agent = (await h.call('POST', '/agents', { name: 'Widget only', model: 'openai/x', channels: ['webchat'] })).body;
  const r = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Hi' });
  expect(r.status).toBe(409);
  expect(r.body.error.param).toBe('channels');
}, 30_000);

test('a client that disconnects mid-answer stops the generation: the model request is aborted', async () => {
  let requests = 0;
  let cancelled = false;
  // A model that answers slowly: one chunk every 50 ms for 5 s, unless the connection goes away.
  const model = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      await req.arrayBuffer();
      requests++;
      const enc = new TextEncoder();
      let timer: ReturnType<typeof setInterval>;
      return new Response(
        new ReadableStream({
          start(c) {
            let n = 0;
            timer = setInterval(() => {
              if (++n > 100) return (clearInterval(timer), c.close());
              c.enqueue(enc.encode(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `w${n} ` } }] })}\n\n`));
            }, 50);
          },
          cancel() {
            cancelled = true;
            clearInterval(timer);
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    },
  });
  try {
    const h = await setup({ env: { OPENAI_BASE_URL: `http://127.0.0.1:${model.port}/v1`, OPENAI_API_KEY: 'sk-test' } });
    const agent = (await h.call('POST', '/agents', { name: 'Slow', model: 'openai/slow' })).body;
    const res = await h.app.handle(
      new Request(`http://svc.test${h.base}/agents/${agent.id}/chat`, {
        method: 'POST',
        headers: { 'x-api-key': h.key, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'Tell me a long story' }),
      }),
    );
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('"type":"text"')) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    for (let i = 0; i < 40 && !cancelled; i++) await Bun.sleep(50);
    expect(cancelled).toBe(true);
    expect(requests).toBe(1);
  } finally {
    model.stop(true);
  }
}, 30_000);
