import { expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { events, fakeServer } from '../../test/kit/fake-models';

test('a provider failure is logged as one line with its message, no stack or source frame', async () => {
  const fake = fakeServer([{ status: 500, body: '{"error":\n"overloaded"}' }]);
  const h = await setup({ env: { ...{ OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test' } } });
  const agent = (await h.call('POST', '/agents', { name: 'Helper', model: 'openai/gpt-test', tools: [] })).body;
  const logged: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void logged.push(args);
  try {
    const r = await h.call('POST', `/agents/${agent.id}/chat`, { message: 'Hi' });
    expect(events(r.body).map((e) => e.type)).toEqual(['error', 'end']);
  } finally {
    console.error = original;
    fake.stop();
  }
  expect(logged).toHaveLength(1);
  expect(logged[0]).toHaveLength(1);
  const line = logged[0][0] as string;
  expect(typeof line).toBe('string');
  expect(line).not.toContain('\n');
  expect(line).toContain('provider failed');
  expect(line).toContain('overloaded');
}, 30_000);
