import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { product, setup } from '../../test/kit/setup';
import { anthropic, busy, events, fakeServer, openai, USAGE, type Reply } from '../../test/kit/fake-models';
import { sharedDb } from '../../test/kit/db';
import { ChatReply } from './schemas';

/**
 * Issue 36: what a provider does at its limits (rate limits and overload, the output token limit,
 * usage), against local fakes of both wire formats, in the event stream and the JSON reply.
 */
const backends = [
  {
    name: 'openai',
    wire: openai,
    model: 'openai/gpt-test',
    busy: [429, 503],
    env: (url: string) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: 'sk-test' }),
  },
  {
    name: 'anthropic',
    wire: anthropic,
    model: 'anthropic/claude-test',
    busy: [429, 529],
    env: (url: string) => ({ ANTHROPIC_BASE_URL: `${url}/v1`, ANTHROPIC_API_KEY: 'ak-test' }),
  },
];

beforeAll(() => sharedDb(), 60_000); // migrations: not within the first test's time limit
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

const times = (n: number) => ({ input_tokens: n * USAGE.input_tokens, output_tokens: n * USAGE.output_tokens });

for (const b of backends) {
  describe(`model provider limits over ${b.name}`, () => {
    async function harness(replies: Reply[], tools = ['products']) {
      const fake = fakeServer(replies);
      stops.push(fake.stop);
      const h = await setup({ env: b.env(fake.url) });
      const agent = (await h.call('POST', '/agents', { name: 'Helper', model: b.model, system_prompt: 'Be brief.', tools })).body;
      const chat = (body: object, headers: Record<string, string> = {}) => h.call('POST', `/agents/${agent.id}/chat`, body, headers);
      return { h, fake, agent, chat };
    }

    test(`${b.busy.join(' then ')} with Retry-After: retried after the wait asked for, and the turn answers`, async () => {
      const { fake, chat } = await harness([...b.busy.map((s) => busy(s, 1)), b.wire.text('Back.')]);
      const ev = events((await chat({ message: 'Hi' })).body);
      expect(ev).toEqual([
        { type: 'text', text: 'Back.' },
        { type: 'end', usage: USAGE },
      ]);
      expect(fake.requests.length).toBe(3);
      // Retry-After: 1 was honoured both times (not the SDKs' shorter default backoff).
      expect(fake.requests[1].at - fake.requests[0].at).toBeGreaterThanOrEqual(950);
      expect(fake.requests[2].at - fake.requests[1].at).toBeGreaterThanOrEqual(950);
    }, 20_000);

    test('retries are bounded: a provider still busy after them, or asking for too long a wait, fails the turn', async () => {
      const still = await harness([busy(429, 0.1), busy(429, 0.1), busy(429, 0.1), busy(429, 0.1), b.wire.text('Too late.')]);
      const ev = events((await still.chat({ message: 'Hi' })).body);
      expect(ev.map((e) => e.type)).toEqual(['error', 'end']);
      expect(ev[0].message).toContain('HTTP 429');
      expect(still.fake.requests.length).toBe(4);
      const long = await harness([busy(429, 3600), b.wire.text('An hour later.')]);
      const started = performance.now();
      const ev2 = events((await long.chat({ message: 'Hi' })).body);
      expect(ev2.map((e) => e.type)).toEqual(['error', 'end']);
      expect(long.fake.requests.length).toBe(1);
      expect(performance.now() - started).toBeLessThan(5_000);
    }, 20_000);

    test('a tool call cut off by the token limit is never run: the turn ends with error output_truncated', async () => {
      const cut = b.wire.cutTool({ name: 'products', input: { action: 'create_product', ...product({ name: 'Half a lamp' }) } });
      const { h, fake, agent, chat } = await harness([cut, cut]);
      const r = await chat({ message: 'Add a lamp' });
      const ev = events(r.body);
      expect(ev).toEqual([
        { type: 'error', code: 'output_truncated', message: expect.stringContaining('token limit') },
        { type: 'end', usage: USAGE },
      ]);
      expect(fake.requests.length).toBe(1);
      expect((await h.call('GET', '/products')).body.data).toEqual([]);
      expect((await h.call('GET', '/tool-executions')).body.executions).toEqual([]);
      // Not kept as a call the model made: the next message is not answered with a dangling tool call.
      const conv = await h.call('GET', `/agents/${agent.id}/conversations/${r.headers.get('x-conversation-id')}`);
      expect(conv.body.messages.map((m: any) => m.role)).toEqual(['user']);
      const json = await chat({ message: 'Add a lamp', stream: false });
      expect(json.body).toMatchObject({ error_code: 'output_truncated', tool_calls: [], truncated: false, usage: USAGE });
      expect(Value.Check(ChatReply, json.body)).toBe(true);
    });

    test('a text reply cut off by the token limit ends with truncated: true', async () => {
      const { chat } = await harness([b.wire.cutText('The story begins'), b.wire.cutText('Once upon'), b.wire.text('Done.')]);
      const ev = events((await chat({ message: 'Tell me a story' })).body);
      expect(ev).toEqual([
        { type: 'text', text: 'The story begins' },
        { type: 'end', usage: USAGE, truncated: true },
      ]);
      const json = await chat({ message: 'Again', stream: false });
      expect(json.body).toMatchObject({ text: 'Once upon', truncated: true, error: null, error_code: null });
      expect(Value.Check(ChatReply, json.body)).toBe(true);
      const complete = await chat({ message: 'Briefly', stream: false });
      expect(complete.body).toMatchObject({ text: 'Done.', truncated: false });
    });

    test("usage: the end event and the JSON reply sum the turn's model calls; each call is stored for the store", async () => {
      const list = { name: 'products', input: { action: 'list_products' } };
      const { h, agent, chat } = await harness([b.wire.tools(list), b.wire.text('None yet.'), b.wire.tools(list), b.wire.text('Still none.')]);
      const ev = events((await chat({ message: 'What do I sell?' })).body);
      expect(ev.at(-1)).toEqual({ type: 'end', usage: times(2) });
      const json = await chat({ message: 'And now?', stream: false });
      expect(json.body).toMatchObject({ text: 'Still none.', usage: times(2), truncated: false });
      expect(Value.Check(ChatReply, json.body)).toBe(true);
      const rows = await h.db.query(
        'SELECT agent_id, provider, model, input_tokens, output_tokens, created_at FROM agent_model_calls WHERE store_id = $1 ORDER BY seq',
        [h.store.id],
      );
      expect(rows).toHaveLength(4);
      for (const row of rows)
        expect(row).toMatchObject({ agent_id: agent.id, provider: b.name, model: b.model.split('/')[1], ...USAGE, created_at: expect.any(Date) });
      // The report: totals and per agent/provider/model, for a range, for one agent.
      const row = { agent_id: agent.id, provider: b.name, model: b.model.split('/')[1], calls: 4, ...times(4) };
      const report = await h.call('GET', '/model-usage');
      expect(report.status).toBe(200);
      expect(report.body).toEqual({ object: 'model_usage', calls: 4, ...times(4), by_model: [row] });
      expect((await h.call('GET', `/model-usage?created[gte]=2026-04-01&agent_id=${agent.id}`)).body.calls).toBe(4);
      expect((await h.call('GET', '/model-usage?created[lt]=2026-04-01')).body).toEqual({
        object: 'model_usage',
        calls: 0,
        ...times(0),
        by_model: [],
      });
      // Stores are walls: another store sees none of them.
      const other = await setup();
      expect(await h.db.query('SELECT 1 FROM agent_model_calls WHERE store_id = $1', [other.store.id])).toEqual([]);
      expect((await other.call('GET', '/model-usage')).body.calls).toBe(0);
    });
  });
}

test('base URLs as operators write them: a keyless OpenAI-compatible server gets no Authorization; ANTHROPIC_BASE_URL with or without /v1', async () => {
  const fake = fakeServer([openai.text('Local.'), anthropic.text('One.'), anthropic.text('Two.')]);
  stops.push(fake.stop);
  for (const [env, model] of [
    [{ OPENAI_BASE_URL: `${fake.url}/v1` }, 'openai/llama'],
    [{ ANTHROPIC_BASE_URL: `${fake.url}/v1`, ANTHROPIC_API_KEY: 'ak-test' }, 'anthropic/claude-test'],
    [{ ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'ak-test' }, 'anthropic/claude-test'],
  ] as const) {
    const h = await setup({ env });
    const agent = (await h.call('POST', '/agents', { name: 'Local', model, tools: [] })).body;
    expect((await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Hi', stream: false })).body.error).toBeNull();
  }
  expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/messages', '/v1/messages']);
  expect(fake.requests[0].headers.authorization).toBeUndefined();
  // The key travels as the SDK sends it (this version: Authorization: Bearer; older: x-api-key).
  const sent = fake.requests[1].headers;
  expect(sent['x-api-key'] ?? sent.authorization).toContain('ak-test');
});
