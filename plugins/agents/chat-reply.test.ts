import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { product, setup } from '../../test/kit/setup';
import { anthropic, events, fakeServer, openai, USAGE, type Reply } from '../../test/kit/fake-models';
import { sharedDb } from '../../test/kit/db';
import { ChatReply } from './schemas';

/** The non-streaming reply (stream: false, or Accept: application/json) and the tool_result event, on both wire formats. */
const backends = [
  { name: 'openai', wire: openai, model: 'openai/gpt-test', env: (url: string) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'sk-test' }) },
  {
    name: 'anthropic',
    wire: anthropic,
    model: 'anthropic/claude-test',
    env: (url: string) => ({ ANTHROPIC_BASE_URL: `${url}/v1`, ANTHROPIC_API_KEY: 'ak-test' }),
  },
];

beforeAll(() => sharedDb(), 60_000); // migrations: not within the first test's time limit
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

for (const b of backends) {
  describe(`a non-streaming chat reply over ${b.name}`, () => {
    async function harness(replies: Reply[], tools = ['products']) {
      const fake = fakeServer(replies);
      stops.push(fake.stop);
      const h = await setup({ env: b.env(fake.url) });
      const agent = (await h.call('POST', '/agents', { name: 'Helper', model: b.model, system_prompt: 'Be brief.', tools })).body;
      const chat = (body: object, headers: Record<string, string> = {}) => h.call('POST', `/agents/${agent.id}/chat`, body, headers);
      return { h, fake, agent, chat };
    }

    test('stream false: one JSON object with the whole text, no tool calls, the conversation id; the turn is stored', async () => {
      const { h, fake, agent, chat } = await harness([b.wire.text('Hel', 'lo', '!')]);
      const r = await chat({ message: 'Hi', stream: false });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('application/json');
      const cid = r.headers.get('x-conversation-id');
      expect(r.body).toEqual({
        object: 'agent_reply',
        agent_id: agent.id,
        conversation_id: cid,
        text: 'Hello!',
        tool_calls: [],
        error: null,
        error_code: null,
        truncated: false,
        usage: USAGE,
      });
      expect(Value.Check(ChatReply, r.body)).toBe(true);
      expect(fake.requests.length).toBe(1);
      const conv = await h.call('GET', `/agents/${agent.id}/conversations/${cid}`);
      expect(conv.body.messages.map((m: any) => [m.role, m.text])).toEqual([
        ['user', 'Hi'],
        ['assistant', 'Hello!'],
      ]);
    });

    test('Accept: application/json: the tool calls made, each with its execution id and status, then the answer', async () => {
      const create = { name: 'products', input: { action: 'create_product', ...product({ name: 'Lamp' }) } };
      const { h, chat } = await harness([b.wire.tools(create), b.wire.text('Added ', 'Lamp.')]);
      const r = await chat({ message: 'Add a lamp' }, { accept: 'application/json' });
      expect(r.status).toBe(200);
      expect(Value.Check(ChatReply, r.body)).toBe(true);
      const executionId = r.body.tool_calls[0]?.execution_id;
      expect(r.body).toMatchObject({
        object: 'agent_reply',
        text: 'Added Lamp.',
        tool_calls: [{ tool: 'products', input: create.input, execution_id: expect.any(String), status: 'success' }],
        error: null,
      });
      // The execution id is the audit record of the call.
      const exec = await h.call('GET', `/tool-executions/${executionId}`);
      expect(exec.body).toMatchObject({ tool: 'products', action: 'create_product', status: 'success', source: 'agent' });
      expect((await h.call('GET', '/products')).body.data.map((p: any) => p.name)).toEqual(['Lamp']);
    });

    test('a failed tool call is listed with status error; the stream tells the same with a tool_result event', async () => {
      const missing = { name: 'products', input: { action: 'get_product', id: '00000000-0000-4000-8000-000000000000' } };
      const { chat } = await harness([b.wire.tools(missing), b.wire.text('Not found.'), b.wire.tools(missing), b.wire.text('Not found.')]);
      const json = await chat({ message: 'Show product 0', stream: false });
      expect(json.body.tool_calls).toEqual([{ tool: 'products', input: missing.input, execution_id: expect.any(String), status: 'error' }]);
      const sse = events((await chat({ message: 'Show product 0' })).body);
      expect(sse.map((e) => e.type)).toEqual(['tool_use', 'tool_result', 'text', 'end']);
      expect(sse[1]).toEqual({
        type: 'tool_result',
        tool: 'products',
        execution_id: expect.any(String),
        status: 'error',
        error: expect.objectContaining({ code: 'resource_missing', message: expect.any(String) }),
      });
    });

    test('the stream stays the default: no Accept, Accept naming both, and stream true over Accept: application/json', async () => {
      const { chat } = await harness([b.wire.text('A'), b.wire.text('B'), b.wire.text('C')]);
      for (const [body, headers] of [
        [{ message: 'Hi' }, {}],
        [{ message: 'Hi' }, { accept: 'application/json, text/event-stream' }],
        [{ message: 'Hi', stream: true }, { accept: 'application/json' }],
      ] as const) {
        const r = await chat(body, headers);
        expect(r.headers.get('content-type')).toContain('text/event-stream');
        expect(events(r.body).at(-1)).toEqual({ type: 'end', usage: USAGE });
      }
    });

    test('a provider failure: 200 with the error in the reply, as the stream would end with an error event', async () => {
      const { chat } = await harness([{ status: 500, body: '{"error":"overloaded"}' }]);
      const r = await chat({ message: 'Hi', stream: false });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ text: '', tool_calls: [], error: expect.stringContaining('HTTP 500') });
    });

    test('a conversation continues in JSON: the model sees the earlier turns; unknown or another store’s conversation is 404', async () => {
      const { h, fake, agent, chat } = await harness([b.wire.text('Blue.'), b.wire.text('You said blue.')]);
      const first = await chat({ message: 'My favourite colour is blue', stream: false });
      const cid = first.body.conversation_id;
      const second = await chat({ message: 'What did I say?', conversation_id: cid, stream: false });
      expect(second.body).toMatchObject({ conversation_id: cid, text: 'You said blue.' });
      const sent = JSON.stringify(fake.requests[1].body.messages);
      for (const earlier of ['My favourite colour is blue', 'Blue.', 'What did I say?']) expect(sent).toContain(earlier);
      const conv = await h.call('GET', `/agents/${agent.id}/conversations/${cid}`);
      expect(conv.body.messages.map((m: any) => m.text)).toEqual(['My favourite colour is blue', 'Blue.', 'What did I say?', 'You said blue.']);

      const unknown = await chat({ message: 'Hi', conversation_id: crypto.randomUUID(), stream: false });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'conversation_id' });
      // Another store's conversation, through this store's agent: 404 as for an unknown id.
      const other = await setup({ env: b.env(fake.url) });
      const theirs = (await other.call('POST', '/agents', { name: 'Theirs', model: b.model, tools: [] })).body;
      const [{ id: foreign }] = await other.db.query(
        `INSERT INTO agent_conversations (id, store_id, agent_id, created_at, updated_at) VALUES (gen_random_uuid(), $1, $2, $3, $3) RETURNING id`,
        [other.store.id, theirs.id, other.clock.now()],
      );
      expect((await other.call('GET', `/agents/${theirs.id}/conversations/${foreign}`)).status).toBe(200);
      for (const body of [
        { message: 'Hi', conversation_id: foreign },
        { message: 'Hi', conversation_id: foreign, stream: false },
      ]) {
        const r = await chat(body);
        expect(r.status).toBe(404);
        expect(r.body.error).toMatchObject({ code: 'resource_missing', param: 'conversation_id' });
      }
      expect(fake.requests.length).toBe(2);
    });
  });
}

describe('a non-streaming reply keeps the rules of chat', () => {
  test('Idempotency-Key: a repeat replays the JSON reply byte for byte, without a second model call', async () => {
    const fake = fakeServer([openai.text('Once.')]);
    stops.push(fake.stop);
    const h = await setup({ env: { OPENAI_BASE_URL: `${fake.url}/v1` } });
    const agent = (await h.call('POST', '/agents', { name: 'A', model: 'openai/x', tools: [] })).body;
    const send = () =>
      h.app.handle(
        new Request(`http://svc.test${h.base}/agents/${agent.id}/chat`, {
          method: 'POST',
          headers: { 'x-api-key': h.key, 'content-type': 'application/json', 'idempotency-key': 'reply-1' },
          body: JSON.stringify({ message: 'Hi', stream: false }),
        }),
      );
    const first = await send();
    const text = await first.text();
    expect(JSON.parse(text)).toMatchObject({ text: 'Once.', error: null });
    const again = await send();
    expect(await again.text()).toBe(text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(fake.requests.length).toBe(1);
  });

  test('a gated call: the reply waits for the decision and lists the call as rejected or success with its execution id', async () => {
    const fake = fakeServer([
      openai.tools({ name: 'products', input: { action: 'create_product', ...product({ name: 'Held' }) } }),
      openai.text('Refused.'),
    ]);
    stops.push(fake.stop);
    const h = await setup({
      env: { OPENAI_BASE_URL: `${fake.url}/v1`, SVC_AGENTS_KEEP_ALIVE_MS: '20', SVC_AGENTS_APPROVAL_POLL_MS: '10' },
    });
    const agent = (await h.call('POST', '/agents', { name: 'A', model: 'openai/x', tools: ['products'] })).body;
    await h.call('PATCH', `/agents/${agent.id}/tool-config`, { tool_overrides: { products: { requires_approval: ['create_product'] } } });
    const pending = h.call('POST', `/agents/${agent.id}/chat`, { message: 'Add it', stream: false });
    let held: any;
    for (let i = 0; i < 200 && !held; i++) {
      await Bun.sleep(10);
      [held] = (await h.call('GET', '/tool-executions?status=pending_approval')).body.executions;
    }
    expect(held).toBeTruthy();
    await Bun.sleep(60); // keep-alive whitespace goes out meanwhile
    expect((await h.call('POST', `/tool-executions/${held.id}/reject`, { reason: 'Not now' })).status).toBe(200);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      text: 'Refused.',
      tool_calls: [{ tool: 'products', execution_id: held.id, status: 'rejected' }],
      error: null,
    });
    expect((await h.call('GET', '/products')).body.data).toEqual([]);
  });
});
