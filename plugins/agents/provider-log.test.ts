import { expect, spyOn, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { events, fakeServer } from '../../test/kit/fake-models';

test('a provider failure is logged as one line with its message, no stack or source frame', async () => {
  // A 400: not retried (a 5xx is, after a backoff).
  const fake = fakeServer([{ status: 400, body: '{"error":\n"overloaded"}' }]);
  const h = await setup({ env: { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test' } });
  const agent = (await h.call('POST', '/agents', { name: 'Helper', model: 'openai/gpt-test', tools: [] })).body;
  // The structured logger writes one JSON line per event to stderr.
  const lines: string[] = [];
  const spy = spyOn(process.stderr, 'write').mockImplementation(((chunk: unknown) => (lines.push(String(chunk)), true)) as any);
  try {
    const r = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Hi' });
    expect(events(r.body).map((e) => e.type)).toEqual(['error', 'end']);
  } finally {
    spy.mockRestore();
    fake.stop();
  }
  const logged = lines.filter((l) => l.includes('provider failed'));
  expect(logged).toHaveLength(1);
  expect(logged[0].trimEnd()).not.toContain('\n');
  const entry = JSON.parse(logged[0]);
  expect(entry).toMatchObject({ level: 'error', msg: 'provider failed', agent_id: agent.id });
  expect(entry.error).toContain('overloaded');
}, 60_000);
