import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_TOKEN, setup } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { busy, events, fakeServer, openai, USAGE, whole, type Reply } from '../../test/kit/fake-models';

/** The llm tool against local fakes of both wire formats (issue 47). */
beforeAll(() => sharedDb(), 60_000);
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

async function harness(replies: Reply[], env: Record<string, string> = {}, vendor: 'openai' | 'anthropic' = 'openai') {
  const fake = fakeServer(replies);
  stops.push(fake.stop);
  const base =
    vendor === 'openai'
      ? { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test', SVC_LLM_MODEL: 'openai/gpt-4o-mini' }
      : { ANTHROPIC_BASE_URL: `${fake.url}/v1`, ANTHROPIC_API_KEY: 'ak-test', SVC_LLM_MODEL: 'anthropic/claude-sonnet-4-5' };
  const h = await setup({ env: { ...base, ...env } });
  return { h, fake };
}

const usageOf = async (h: Awaited<ReturnType<typeof setup>>) => (await h.call('GET', '/usage')).body;

describe('llm over OpenAI-compatible providers', () => {
  test('generate answers the text and records usage and cost for the store and day', async () => {
    const { h, fake } = await harness([whole.openai('Linen that lasts.')]);
    const r = await h.call('POST', '/llm/generate', { prompt: 'A tagline', system: 'Be brief.', max_tokens: 40 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ object: 'llm_generation', text: 'Linen that lasts.', truncated: false, model: 'openai/gpt-4o-mini', usage: USAGE });
    expect(fake.requests[0].path).toBe('/v1/chat/completions');
    expect(fake.requests[0].body).toMatchObject({
      model: 'gpt-4o-mini',
      max_tokens: 40,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'A tagline' },
      ],
    });
    const cost = (11 * 0.15 + 7 * 0.6) / 1e6;
    const u = await usageOf(h);
    expect(u).toMatchObject({ object: 'usage', from: '2026-04-01', to: '2026-04-01', currency: 'USD', monthly_spend_cap: null });
    expect(u.days).toEqual([
      {
        date: '2026-04-01',
        provider: 'openai',
        model: 'gpt-4o-mini',
        requests: 1,
        ...USAGE,
        images: 0,
        video_seconds: 0,
        pages: 0,
        cost: expect.any(Number),
      },
    ]);
    expect(u.days[0].cost).toBeCloseTo(cost, 9);
    expect(u.total_cost).toBeCloseTo(cost, 9);
    expect(u.month_to_date_cost).toBeCloseTo(cost, 9);
    // Stores are walls.
    const other = await setup();
    expect((await usageOf(other)).days).toEqual([]);
  });

  test('a repeat under the same Idempotency-Key replays the answer without calling the model again (SPEC 7)', async () => {
    const { h, fake } = await harness([whole.openai('Linen that lasts.'), whole.openai('Another line.')]);
    const key = { 'Idempotency-Key': 'tagline-1' };
    const first = await h.call('POST', '/llm/generate', { prompt: 'A tagline' }, key);
    const again = await h.call('POST', '/llm/generate', { prompt: 'A tagline' }, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(fake.requests.length).toBe(1);
    expect((await usageOf(h)).days[0].requests).toBe(1);
    // Another body under the key is refused before the model is asked.
    const other = await h.call('POST', '/llm/generate', { prompt: 'Another' }, key);
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(fake.requests.length).toBe(1);
    // A refused call keeps no record: the same key with a corrected body then runs.
    const bad = await h.call('POST', '/llm/generate', { prompt: '' }, { 'Idempotency-Key': 'tagline-2' });
    expect(bad.status).toBe(400);
    const fixed = await h.call('POST', '/llm/generate', { prompt: 'A tagline' }, { 'Idempotency-Key': 'tagline-2' });
    expect(fixed.status).toBe(200);
    expect(fixed.body.text).toBe('Another line.');
  });

  test('SVC_PROVIDER_PRICES prices a model the table does not know; an unlisted model costs 0 and is still counted', async () => {
    const prices = JSON.stringify({ 'openai/llama3.1': { input_per_million_tokens: 1_000_000, output_per_million_tokens: 0 } });
    const { h } = await harness([whole.openai('a'), whole.openai('b')], { SVC_PROVIDER_PRICES: prices });
    await h.call('POST', '/llm/generate', { prompt: 'x', model: 'openai/llama3.1' });
    await h.call('POST', '/llm/generate', { prompt: 'x', model: 'openai/mystery' });
    const u = await usageOf(h);
    expect(u.days.map((d: any) => [d.model, d.requests, d.cost])).toEqual([
      ['llama3.1', 1, 11],
      ['mystery', 1, 0],
    ]);
    expect(u.total_cost).toBe(11);
  });

  test('summarize, classify (structured output) and extract (checked against the schema)', async () => {
    const { h, fake } = await harness([
      whole.openai('Two pockets, linen.'),
      whole.openai('{"label":"shipping"}'),
      whole.openai('{"email":"ada@example.com","name":"Ada"}'),
    ]);
    const s = await h.call('POST', '/llm/summarize', { text: 'A long text about aprons.', max_words: 10 });
    expect(s.body).toMatchObject({ object: 'summary', summary: 'Two pockets, linen.' });
    expect(fake.requests[0].body.messages[0].content).toContain('at most 10 words');
    const c = await h.call('POST', '/llm/classify', { text: 'Where is my parcel?', labels: ['shipping', 'returns'] });
    expect(c.body).toMatchObject({ object: 'classification', label: 'shipping' });
    expect(fake.requests[1].body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { schema: { properties: { label: { enum: ['shipping', 'returns'] } } } },
    });
    const schema = { type: 'object', properties: { email: { type: 'string', format: 'email' }, name: { type: 'string' } }, required: ['email'] };
    const e = await h.call('POST', '/llm/extract', { text: 'Order from Ada, ada@example.com', schema });
    expect(e.body).toMatchObject({ object: 'extraction', data: { email: 'ada@example.com', name: 'Ada' } });
    expect(fake.requests[2].body.response_format.json_schema.schema).toEqual(schema);
    expect((await usageOf(h)).days[0].requests).toBe(3);
  });

  test('an answer outside the schema is asked for once more, then 502 provider_error; a bad schema or label list is a 400', async () => {
    const { h, fake } = await harness([
      whole.openai('{"label":"maybe"}'),
      whole.openai('{"label":"returns"}'),
      whole.openai('not json'),
      whole.openai('{"email":5}'),
    ]);
    const c = await h.call('POST', '/llm/classify', { text: 'I want my money back', labels: ['shipping', 'returns'] });
    expect(c.body).toMatchObject({ label: 'returns', usage: { input_tokens: 22, output_tokens: 14 } });
    const e = await h.call('POST', '/llm/extract', {
      text: 't',
      schema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
    });
    expect(e.status).toBe(502);
    expect(e.body.error).toMatchObject({ type: 'api_error', code: 'provider_error' });
    expect(e.body.error.message).toContain('openai answered outside the requested schema');
    expect(fake.requests.length).toBe(4);
    // Both failed answers were still paid for: counted.
    expect((await usageOf(h)).days[0].requests).toBe(4);
    const bad = await h.call('POST', '/llm/extract', { text: 't', schema: { type: 'object', properties: { a: { type: 'nonsense' } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('schema');
    expect((await h.call('POST', '/llm/extract', { text: 't', schema: { type: 'string' } })).body.error.param).toBe('schema');
    expect((await h.call('POST', '/llm/classify', { text: 't', labels: ['one'] })).status).toBe(400);
    expect((await h.call('POST', '/llm/classify', { text: 't', labels: Array.from({ length: 51 }, (_, i) => `l${i}`) })).status).toBe(400);
    expect(fake.requests.length).toBe(4);
  });
});

describe('llm over Anthropic', () => {
  test('generate, and structured output through a forced tool', async () => {
    const { h, fake } = await harness([whole.anthropic('Hello.'), whole.anthropicTool('answer', { label: 'returns' })], {}, 'anthropic');
    const g = await h.call('POST', '/llm/generate', { prompt: 'Hi', system: 'Brief.' });
    expect(g.body).toMatchObject({ text: 'Hello.', model: 'anthropic/claude-sonnet-4-5', usage: USAGE });
    expect(fake.requests[0]).toMatchObject({ path: '/v1/messages', body: { model: 'claude-sonnet-4-5', system: 'Brief.' } });
    const c = await h.call('POST', '/llm/classify', { text: 'Refund please', labels: ['shipping', 'returns'] });
    expect(c.body.label).toBe('returns');
    expect(fake.requests[1].body).toMatchObject({ tool_choice: { type: 'tool', name: 'answer' }, tools: [{ name: 'answer' }] });
    const cost = (2 * 11 * 3 + 2 * 7 * 15) / 1e6;
    expect((await usageOf(h)).total_cost).toBeCloseTo(cost, 9);
  });
});

describe('provider failures', () => {
  test('a 5xx is retried up to 3 times, then 502 provider_error naming the provider; nothing is counted', async () => {
    const fail = { status: 500, body: '{"error":{"message":"boom"}}', headers: { 'content-type': 'application/json', 'retry-after': '0' } };
    const { h, fake } = await harness([fail, fail, fail, fail, whole.openai('never')]);
    const r = await h.call('POST', '/llm/generate', { prompt: 'x' });
    expect(r.status).toBe(502);
    expect(r.body.error).toMatchObject({ type: 'api_error', code: 'provider_error' });
    expect(r.body.error.message).toBe('openai answered HTTP 500: boom');
    expect(fake.requests.length).toBe(4);
    expect((await usageOf(h)).days).toEqual([]);
  });

  test('a 503 with Retry-After is waited for and the call answers', async () => {
    const { h, fake } = await harness([busy(503, 1), whole.openai('Back.')]);
    const r = await h.call('POST', '/llm/generate', { prompt: 'x' });
    expect(r.body.text).toBe('Back.');
    expect(fake.requests[1].at - fake.requests[0].at).toBeGreaterThanOrEqual(950);
  }, 10_000);

  test('a 429 still limited after the retries is 429 rate_limit_exceeded with Retry-After; one asking past 30 s is not waited for', async () => {
    const { h, fake } = await harness([busy(429, 0.05), busy(429, 0.05), busy(429, 0.05), busy(429, 7), whole.openai('late')]);
    const r = await h.call('POST', '/llm/generate', { prompt: 'x' });
    expect(r.status).toBe(429);
    expect(r.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(r.body.error.message).toContain('openai');
    expect(r.headers.get('retry-after')).toBe('7');
    expect(fake.requests.length).toBe(4);
    const long = await harness([busy(429, 3600), whole.openai('an hour later')]);
    const started = performance.now();
    const r2 = await long.h.call('POST', '/llm/generate', { prompt: 'x' });
    expect(r2.status).toBe(429);
    expect(r2.headers.get('retry-after')).toBe('3600');
    expect(long.fake.requests.length).toBe(1);
    expect(performance.now() - started).toBeLessThan(3000);
  }, 10_000);

  test('a provider slower than SVC_PROVIDER_TIMEOUT_S is 502 provider_error (timed out); a malformed answer is 502 too', async () => {
    const slow = { delayMs: 1500, then: whole.openai('slow') };
    // A timeout is not retried (the provider may still be working on it): one slow answer, then a malformed one.
    const { h, fake } = await harness([slow, whole.malformed(), whole.openai('{}')], { SVC_PROVIDER_TIMEOUT_S: '0.3' });
    const started = performance.now();
    const r = await h.call('POST', '/llm/generate', { prompt: 'x' });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('provider_error');
    expect(r.body.error.message).toContain('timed out');
    expect(performance.now() - started).toBeLessThan(1400);
    const m = await h.call('POST', '/llm/generate', { prompt: 'x' });
    expect(m.status).toBe(502);
    expect(m.body.error.message).toContain('openai answered malformed data');
    expect(fake.requests.length).toBe(2);
  }, 10_000);

  test('an unset provider is 400 provider_not_configured naming the setting; nothing is sent', async () => {
    const h = await setup();
    const r = await h.call('POST', '/llm/generate', { prompt: 'x' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'provider_not_configured' });
    expect(r.body.error.message).toContain('OPENAI_BASE_URL');
    const a = await h.call('POST', '/llm/generate', { prompt: 'x', model: 'anthropic/claude-sonnet-4-5' });
    expect(a.body.error.message).toContain('ANTHROPIC_API_KEY');
  });
});

describe('the monthly spend cap', () => {
  const patch = (h: Awaited<ReturnType<typeof setup>>, body: object, token = ADMIN_TOKEN) =>
    h.raw('PATCH', `/v1/stores/${h.store.id}`, body, { authorization: `Bearer ${token}`, 'x-api-key': '' });

  test('the operator sets it; at or over it every call (agents included) is 403 spend_cap_reached before reaching the provider', async () => {
    const prices = JSON.stringify({ 'openai/gpt-test': { per_request: 1 } });
    const { h, fake } = await harness([whole.openai('one'), openai.text('agent one')], {
      SVC_PROVIDER_PRICES: prices,
      SVC_LLM_MODEL: 'openai/gpt-test',
    });
    // The store's own key cannot set it.
    expect((await h.raw('PATCH', `/v1/stores/${h.store.id}`, { monthly_spend_cap: 100 })).status).toBe(403);
    const set = await patch(h, { monthly_spend_cap: 2 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ object: 'store', id: h.store.id, monthly_spend_cap: 2 });
    expect((await h.call('POST', '/llm/generate', { prompt: 'x' })).status).toBe(200);
    const agent = (await h.call('POST', '/agents', { name: 'A', model: 'openai/gpt-test', tools: [] })).body;
    expect(events((await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Hi' })).body).at(-1).type).toBe('end');
    // 2 USD spent of 2: refused.
    const r = await h.call('POST', '/llm/generate', { prompt: 'x' });
    expect(r.status).toBe(403);
    expect(r.body.error).toMatchObject({ type: 'permission_error', code: 'spend_cap_reached' });
    expect(r.body.error.message).toContain('2.00 USD');
    const chat = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Again' });
    expect(chat.status).toBe(403);
    expect(chat.body.error.code).toBe('spend_cap_reached');
    expect(fake.requests.length).toBe(2);
    const u = await usageOf(h);
    expect(u).toMatchObject({ monthly_spend_cap: 2, month_to_date_cost: 2, total_cost: 2 });
    // Lifted: calls go through again.
    expect((await patch(h, { monthly_spend_cap: null })).body.monthly_spend_cap).toBeNull();
    expect((await h.call('POST', '/llm/generate', { prompt: 'x' })).status).toBe(502); // the fake has no reply left: it was reached
  });

  test('a cap of 0 stops every call; the admin route checks its input and the store', async () => {
    const { h, fake } = await harness([whole.openai('never')]);
    expect((await patch(h, { monthly_spend_cap: 0 })).status).toBe(200);
    expect((await h.call('POST', '/llm/generate', { prompt: 'x' })).body.error.code).toBe('spend_cap_reached');
    expect(fake.requests.length).toBe(0);
    expect((await patch(h, { monthly_spend_cap: -1 })).status).toBe(400);
    // Fields left out keep their value (PATCH): an empty one changes nothing and answers the store.
    expect((await patch(h, {})).body.monthly_spend_cap).toBe(0);
    const missing = await h.raw(
      'PATCH',
      `/v1/stores/${crypto.randomUUID()}`,
      { monthly_spend_cap: 1 },
      { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' },
    );
    expect(missing.status).toBe(404);
  });

  test('GET /usage takes a date range, needs ai:read or platform:read, and checks its dates', async () => {
    const { h } = await harness([whole.openai('a')]);
    await h.call('POST', '/llm/generate', { prompt: 'x' });
    expect((await h.call('GET', '/usage?from=2026-03-01&to=2026-03-31')).body).toMatchObject({
      from: '2026-03-01',
      to: '2026-03-31',
      days: [],
      total_cost: 0,
    });
    for (const scope of ['ai:read', 'platform:read'])
      expect((await h.call('GET', '/usage', undefined, { 'x-api-key': await h.newKey([scope]) })).body.days).toHaveLength(1);
    expect((await h.call('GET', '/usage', undefined, { 'x-api-key': await h.newKey(['products:read']) })).status).toBe(403);
    expect((await h.call('GET', '/usage?from=2026-04-02&to=2026-04-01')).status).toBe(400);
    expect((await h.call('GET', '/usage?from=2026-02-30')).status).toBe(400);
  });

  test("usage counts each call on the store's own calendar: its time zone decides the day and the month", async () => {
    // 20:00 UTC on April 30 is already May 1 in Kiritimati (UTC+14), still April 30 in Los Angeles.
    const fake = fakeServer([whole.openai('a'), whole.openai('b'), whole.openai('c')]);
    stops.push(fake.stop);
    const env = { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test', SVC_LLM_MODEL: 'openai/gpt-4o-mini' };
    const h = await setup({ env, now: '2026-04-30T20:00:00Z' });
    await h.call('POST', '/llm/generate', { prompt: 'in UTC' });
    expect((await h.call('PATCH', '/settings', { timezone: 'Pacific/Kiritimati' })).status).toBe(200);
    await h.call('POST', '/llm/generate', { prompt: 'in Kiritimati' });
    const u = await usageOf(h);
    // This month is May there: the default range, and the month-to-date cost, start on May 1.
    expect(u).toMatchObject({ from: '2026-05-01', to: '2026-05-01' });
    expect(u.days.map((d: any) => [d.date, d.requests])).toEqual([['2026-05-01', 1]]);
    expect(u.month_to_date_cost).toBeCloseTo(u.days[0].cost, 9);
    const april = await h.call('GET', '/usage?from=2026-04-01&to=2026-04-30');
    expect(april.body.days.map((d: any) => [d.date, d.requests])).toEqual([['2026-04-30', 1]]);
    expect((await h.call('PATCH', '/settings', { timezone: 'America/Los_Angeles' })).status).toBe(200);
    await h.call('POST', '/llm/generate', { prompt: 'in Los Angeles' });
    expect((await usageOf(h)).days.map((d: any) => [d.date, d.requests])).toEqual([['2026-04-30', 2]]);
  });
});

test('llm over MCP and agent chat', async () => {
  const { h, fake } = await harness([
    whole.openai('From MCP.'),
    openai.tools({ name: 'llm', input: { action: 'summarize', text: 'A long story about aprons.' } }),
    whole.openai('Aprons.'),
    openai.text('Summarized.'),
  ]);
  const { client } = await mcpClient(h);
  try {
    const r: any = await client.callTool({ name: 'llm', arguments: { action: 'generate', prompt: 'Hi' } });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.text).toBe('From MCP.');
  } finally {
    await client.close();
  }
  const agent = (await h.call('POST', '/agents', { name: 'Writer', model: 'openai/gpt-4o-mini', tools: ['llm'] })).body;
  const ev = events((await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Summarize' })).body);
  expect(ev.find((e) => e.type === 'tool_result')).toMatchObject({ status: 'success', result: { summary: 'Aprons.' } });
  expect(fake.requests.length).toBe(4);
  // Agents' model calls and the tool's count alike: 4 requests of gpt-4o-mini.
  expect((await usageOf(h)).days[0].requests).toBe(4);
});
