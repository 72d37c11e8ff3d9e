import { afterEach, describe, expect, test } from 'bun:test';
import { busy, fakeServer, whole, type Reply } from '../../test/kit/fake-models';
import { SvcError } from '../errors';
import { chatModel, embeddingsProvider, searchProvider, type ProviderConfig } from '.';

/**
 * Every adapter against a local fake of its wire protocol, through the same four failures: a 5xx
 * after the retries, a 429 with Retry-After, a timeout and a malformed answer (issue 47).
 */
let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

interface Adapter {
  name: string;
  config: (url: string) => ProviderConfig;
  call: (c: ProviderConfig) => Promise<unknown>;
  ok: Reply;
  /** The answer `ok` gives. */
  expected: unknown;
  malformed: Reply;
}

const adapters: Adapter[] = [
  {
    name: 'openai',
    config: (url) => ({ openai_base_url: `${url}/v1`, openai_api_key: 'sk' }),
    call: async (c) => (await chatModel('openai/gpt-test', c).provider.complete({ model: 'gpt-test', prompt: 'Hi' })).text,
    ok: whole.openai('Hello.'),
    expected: 'Hello.',
    malformed: whole.json({ choices: [] }),
  },
  {
    name: 'anthropic',
    config: (url) => ({ anthropic_base_url: `${url}/v1`, anthropic_api_key: 'ak' }),
    call: async (c) => (await chatModel('anthropic/claude-test', c).provider.complete({ model: 'claude-test', prompt: 'Hi' })).text,
    ok: whole.anthropic('Hello.'),
    expected: 'Hello.',
    malformed: { status: 200, body: 'not json', headers: { 'content-type': 'application/json' } },
  },
  {
    name: 'openai',
    config: (url) => ({ openai_base_url: `${url}/v1` }),
    call: async (c) => (await embeddingsProvider(c).embed('text-embedding-3-small', ['a'])).vectors,
    ok: whole.embeddings([[0.5, 0.5]]),
    expected: [[0.5, 0.5]],
    malformed: whole.embeddings([]),
  },
  {
    name: 'searxng',
    config: (url) => ({ searxng_url: url }),
    call: (c) => searchProvider(c).search('aprons', 5),
    ok: whole.searxng([{ title: 'A', url: 'https://a.example/', content: 'a' }]),
    expected: [{ title: 'A', url: 'https://a.example/', snippet: 'a' }],
    malformed: whole.json({ results: 'none' }),
  },
  {
    name: 'brave',
    config: (url) => ({ brave_api_key: 'bk', brave_url: url }),
    call: (c) => searchProvider(c).search('aprons', 5),
    ok: whole.brave([{ title: 'B', url: 'https://b.example/', description: 'b' }]),
    expected: [{ title: 'B', url: 'https://b.example/', snippet: 'b' }],
    malformed: { status: 200, body: '<html>', headers: { 'content-type': 'text/html' } },
  },
];

async function failure(p: Promise<unknown>): Promise<SvcError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof SvcError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

describe.each(adapters.map((a, i) => [`${a.name} (${['chat', 'chat', 'embeddings', 'search', 'search'][i]})`, a] as const))('%s', (_, a) => {
  function fake(replies: Reply[], extra: ProviderConfig = {}) {
    const f = fakeServer(replies);
    stops.push(f.stop);
    return { f, config: { ...a.config(f.url), ...extra } };
  }

  test('a 503 with Retry-After is waited for, then the answer', async () => {
    const { f, config } = fake([busy(503, 0.2), a.ok]);
    expect(await a.call(config)).toEqual(a.expected);
    expect(f.requests.length).toBe(2);
    expect(f.requests[1].at - f.requests[0].at).toBeGreaterThanOrEqual(190);
  });

  test('a 5xx after 3 retries is 502 provider_error naming the provider', async () => {
    const down: Reply = { status: 500, body: 'down', headers: { 'retry-after': '0' } };
    const { f, config } = fake([down, down, down, down, a.ok]);
    const e = await failure(a.call(config));
    expect([e.status, e.code]).toEqual([502, 'provider_error']);
    expect(e.message).toStartWith(`${a.name} answered HTTP 500`);
    expect(f.requests.length).toBe(4);
  });

  test('a 429 still limited after the retries is 429 rate_limit_exceeded with its Retry-After', async () => {
    const { f, config } = fake([busy(429, 0.01), busy(429, 0.01), busy(429, 0.01), busy(429, 12), a.ok]);
    const e = await failure(a.call(config));
    expect([e.status, e.code, e.headers['Retry-After']]).toEqual([429, 'rate_limit_exceeded', '12']);
    expect(e.message).toContain(a.name);
    expect(f.requests.length).toBe(4);
  });

  test('an attempt past the timeout is 502 provider_error, not retried', async () => {
    const { f, config } = fake([{ delayMs: 800, then: a.ok }, a.ok], { provider_timeout_s: 0.2 });
    const started = performance.now();
    const e = await failure(a.call(config));
    expect([e.status, e.code]).toEqual([502, 'provider_error']);
    expect(e.message).toBe(`${a.name} did not answer within 0.2 s (timed out).`);
    expect(performance.now() - started).toBeLessThan(700);
    expect(f.requests.length).toBe(1);
  });

  test('a malformed answer is 502 provider_error', async () => {
    const { config } = fake([a.malformed]);
    const e = await failure(a.call(config));
    expect([e.status, e.code]).toEqual([502, 'provider_error']);
    expect(e.message).toContain(`${a.name} answered malformed data`);
  });
});

test('an unset provider is 400 provider_not_configured naming the setting', () => {
  for (const [run, setting] of [
    [() => chatModel('openai/x', {}), 'OPENAI_BASE_URL'],
    [() => chatModel('anthropic/x', {}), 'ANTHROPIC_API_KEY'],
    [() => embeddingsProvider({}), 'OPENAI_BASE_URL'],
    [() => searchProvider({}), 'SVC_SEARXNG_URL or SVC_BRAVE_API_KEY'],
  ] as const) {
    let err: unknown;
    try {
      run();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({ status: 400, type: 'invalid_request_error', code: 'provider_not_configured' });
    expect((err as Error).message).toContain(setting);
  }
});
