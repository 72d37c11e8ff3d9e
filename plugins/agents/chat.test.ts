import { afterEach, describe, expect, test } from 'bun:test';
import { product, setup } from '../../test/kit/setup';
import { MAX_STEPS } from './chat';
import { anthropic, cutAfter, events, fakeServer, openai, USAGE, type Reply } from '../../test/kit/fake-models';

const backends = [
  { name: 'openai', wire: openai, model: 'openai/gpt-test', env: (url: string) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'sk-test' }) },
  {
    name: 'anthropic',
    wire: anthropic,
    model: 'anthropic/claude-test',
    env: (url: string) => ({ ANTHROPIC_BASE_URL: `${url}/v1`, ANTHROPIC_API_KEY: 'ak-test' }),
  },
];

let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

for (const b of backends) {
  describe(`agent chat over ${b.name}`, () => {
    async function harness(replies: Reply[], tools = ['products']) {
      const fake = fakeServer(replies);
      stops.push(fake.stop);
      const h = await setup({ env: b.env(fake.url) });
      const agent = (await h.call('POST', '/agents', { name: 'Helper', model: b.model, system_prompt: 'Be brief.', tools })).body;
      const chat = (message: string, headers: Record<string, string> = {}, extra: object = {}) =>
        h.call('POST', `/agents/${agent.id}/chat`, { message, ...extra }, headers);
      return { h, fake, agent, chat };
    }

    test('a plain answer streams as text chunks, then end, and the conversation is stored', async () => {
      const { h, fake, agent, chat } = await harness([b.wire.text('Hel', 'lo', '!')]);
      const r = await chat('Hi');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/event-stream');
      expect(r.headers.get('x-request-id')).toBeTruthy();
      expect(events(r.body)).toEqual([
        { type: 'text', text: 'Hel' },
        { type: 'text', text: 'lo' },
        { type: 'text', text: '!' },
        { type: 'end', usage: USAGE },
      ]);
      expect(fake.requests[0].path).toBe(b.name === 'openai' ? '/v1/chat/completions' : '/v1/messages');
      expect(fake.requests[0].body.stream).toBe(true);
      const cid = r.headers.get('x-conversation-id');
      const convs = await h.call('GET', `/agents/${agent.id}/conversations`);
      expect(convs.body.data.map((c: any) => c.id)).toEqual([cid]);
      const conv = await h.call('GET', `/agents/${agent.id}/conversations/${cid}`);
      expect(conv.body.messages.map((m: any) => [m.role, m.text])).toEqual([
        ['user', 'Hi'],
        ['assistant', 'Hello!'],
      ]);
    });

    test('a tool turn: the model lists products through the tool path, then answers with the result', async () => {
      const { h, fake, chat } = await harness([
        b.wire.tools({ name: 'products', input: { action: 'list_products', limit: 5 } }),
        b.wire.text('You sell Lamp.'),
      ]);
      await h.call('POST', '/products', product({ name: 'Lamp' }));
      const r = await chat('What do I sell?');
      expect(events(r.body)).toEqual([
        { type: 'tool_use', tool: 'products', input: { action: 'list_products', limit: 5 } },
        {
          type: 'tool_result',
          tool: 'products',
          execution_id: expect.any(String),
          status: 'success',
          result: expect.objectContaining({ object: 'list', data: [expect.objectContaining({ name: 'Lamp' })] }),
        },
        { type: 'text', text: 'You sell Lamp.' },
        // Two model calls: their tokens summed.
        { type: 'end', usage: { input_tokens: 2 * USAGE.input_tokens, output_tokens: 2 * USAGE.output_tokens } },
      ]);
      const second = JSON.stringify(fake.requests[1].body.messages);
      expect(second).toContain('Lamp'); // the tool result went back to the model
      expect(fake.requests[0].body.tools.map((t: any) => t.name ?? t.function.name)).toEqual(['products', 'discover_tools']);
    });

    test('a failing tool call is fed back to the model as a tool error', async () => {
      const { fake, chat } = await harness([
        b.wire.tools({ name: 'products', input: { action: 'get_product', id: '00000000-0000-4000-8000-000000000000' } }),
        b.wire.text('Not found.'),
      ]);
      const r = await chat('Show product 0');
      expect(events(r.body).at(-2)).toEqual({ type: 'text', text: 'Not found.' });
      const second = JSON.stringify(fake.requests[1].body.messages);
      expect(second).toContain('resource_missing');
      expect(second).toContain(b.name === 'openai' ? '"role":"tool"' : '"is_error":true');
    });

    test("tool calls honour the key's scopes: a denied call is a tool error, nothing is written", async () => {
      const { h, fake, agent } = await harness([
        b.wire.tools({ name: 'products', input: { action: 'create_product', ...product({ name: 'Sneaky' }) } }),
        b.wire.text('I may not.'),
      ]);
      const key = await h.newKey(['ai:write', 'products:read']);
      const r = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Add a product' }, { 'x-api-key': key });
      const ev = events(r.body);
      expect(ev.map((e) => e.type)).toEqual(['tool_use', 'tool_result', 'text', 'end']);
      expect(ev[1]).toMatchObject({ tool: 'products', status: 'error', error: { code: 'insufficient_scope' } });
      expect(JSON.stringify(fake.requests[1].body.messages)).toContain('insufficient_scope');
      expect((await h.call('GET', '/products')).body.data).toEqual([]);
    });

    test(`the loop stops after ${MAX_STEPS} model steps`, async () => {
      const loop = Array.from({ length: MAX_STEPS + 2 }, () => b.wire.tools({ name: 'products', input: { action: 'list_products' } }));
      const { fake, chat } = await harness(loop);
      const ev = events((await chat('Loop')).body);
      expect(fake.requests.length).toBe(MAX_STEPS);
      expect(ev.filter((e) => e.type === 'tool_use').length).toBe(MAX_STEPS);
      expect(ev.at(-2).type).toBe('error');
      expect(ev.at(-1).type).toBe('end');
    });

    test('a provider failing mid-stream ends the stream with an error event, then end', async () => {
      const { chat } = await harness([cutAfter(b.wire.text('Par', 'tial'), b.name === 'openai' ? 1 : 3)]);
      const ev = events((await chat('Hi')).body);
      expect(ev[0]).toEqual({ type: 'text', text: 'Par' });
      expect(ev.at(-2).type).toBe('error');
      expect(ev.at(-1).type).toBe('end');
    });

    test('a provider answering an HTTP error is reported as an error event, not an invented reply', async () => {
      // 400 is not retried (a 5xx is: chat-provider-limits.test.ts).
      const { chat, fake } = await harness([{ status: 400, body: '{"error":{"message":"bad model"}}' }]);
      const ev = events((await chat('Hi')).body);
      expect(ev).toEqual([
        { type: 'error', code: 'provider_error', message: expect.stringContaining('HTTP 400') },
        { type: 'end', usage: { input_tokens: 0, output_tokens: 0 } },
      ]);
      expect(ev[0].message).toContain('bad model');
      expect(fake.requests.length).toBe(1);
    });

    test('a conversation continues with its history sent to the model', async () => {
      const { fake, chat } = await harness([b.wire.text('One.'), b.wire.text('Two.')]);
      const first = await chat('First');
      const cid = first.headers.get('x-conversation-id')!;
      await chat('Second', {}, { conversation_id: cid });
      const msgs = JSON.stringify(fake.requests[1].body.messages);
      expect(msgs).toContain('First');
      expect(msgs).toContain('One.');
    });
  });
}

test('chat with an agent whose provider is no longer configured is a 400 naming the setting', async () => {
  const h = await setup({ env: { OPENAI_BASE_URL: 'http://127.0.0.1:9' } });
  const agent = (await h.call('POST', '/agents', { name: 'A', model: 'openai/x', tools: [] })).body;
  // The server restarts without the provider setting.
  const r = await h.elsewhere({}).call('POST', `/agents/${agent.id}/chat`, { message: 'Hi' });
  expect(r.status).toBe(400);
  expect(r.body.error.code).toBe('provider_not_configured');
  expect(r.body.error.message).toContain('OPENAI_BASE_URL');
});
