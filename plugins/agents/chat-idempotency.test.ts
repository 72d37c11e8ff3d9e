import { afterEach, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { events, openai, USAGE } from '../../test/kit/fake-models';

/**
 * An OpenAI-compatible model that answers each request with `reply`, after `hold` resolves, and
 * counts the requests: a second conversation would show as a second request.
 */
function heldModel(reply = openai.text('Hel', 'lo')) {
  let release!: () => void;
  const hold = new Promise<void>((r) => (release = r));
  let entered!: () => void;
  const arrived = new Promise<void>((r) => (entered = r));
  let requests = 0;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      await req.arrayBuffer();
      requests++;
      entered();
      await hold;
      const enc = new TextEncoder();
      const frames = 'frames' in reply ? reply.frames : [];
      return new Response(new ReadableStream({ start: (c) => (frames.forEach((f) => c.enqueue(enc.encode(f))), c.close()) }), {
        headers: { 'content-type': 'text/event-stream' },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, release, arrived, requests: () => requests, stop: () => server.stop(true) };
}

let stops: (() => void)[] = [];
afterEach(() => {
  stops.forEach((s) => s());
  stops = [];
});

async function harness(opts: { held?: boolean } = {}) {
  const model = heldModel();
  stops.push(model.stop);
  if (!opts.held) model.release();
  const h = await setup({ env: { ...{ OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: 'sk-test' } } });
  const agent = (await h.call('POST', '/agents', { name: 'Helper', model: 'openai/gpt-test', system_prompt: 'Be brief.', tools: [] })).body;
  /** The raw answer: the exact text of the stream, for byte comparisons. */
  const chat = async (body: object, key?: string) => {
    const res = await h.app.handle(
      new Request(`http://svc.test${h.base}/agents/${agent.id}/chat`, {
        method: 'POST',
        headers: { 'x-api-key': h.key, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const userMessages = async () =>
    Number((await h.db.query("SELECT count(*)::int AS n FROM agent_messages WHERE store_id = $1 AND role = 'user'", [h.store.id]))[0].n);
  return { h, model, agent, chat, userMessages };
}

test('a repeat with the same key and body replays the first stream byte for byte, without a second conversation', async () => {
  const { model, chat, userMessages } = await harness();
  const first = await chat({ message: 'Hi' }, 'chat-1');
  expect(first.status).toBe(200);
  expect(events(first.text)).toEqual([
    { type: 'text', text: 'Hel' },
    { type: 'text', text: 'lo' },
    { type: 'end', usage: USAGE },
  ]);
  const again = await chat({ message: 'Hi' }, 'chat-1');
  expect(again.status).toBe(200);
  expect(again.text).toBe(first.text);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.headers.get('content-type')).toContain('text/event-stream');
  expect(again.headers.get('x-conversation-id')).toBe(first.headers.get('x-conversation-id'));
  expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
  expect(model.requests()).toBe(1);
  expect(await userMessages()).toBe(1);
}, 30_000);

test('while the first is still streaming, a repeat is 409 idempotency_key_in_use; once it ends, the repeat replays it', async () => {
  const { model, chat, userMessages } = await harness({ held: true });
  const first = chat({ message: 'Hi' }, 'chat-busy');
  await model.arrived;
  const busy = await chat({ message: 'Hi' }, 'chat-busy');
  expect(busy.status).toBe(409);
  expect(JSON.parse(busy.text).error).toMatchObject({ type: 'conflict_error', code: 'idempotency_key_in_use', param: 'Idempotency-Key' });
  model.release();
  const done = await first;
  expect(events(done.text).at(-1)).toEqual({ type: 'end', usage: USAGE });
  const replay = await chat({ message: 'Hi' }, 'chat-busy');
  expect(replay.text).toBe(done.text);
  expect(model.requests()).toBe(1);
  expect(await userMessages()).toBe(1);
}, 30_000);

test('the same key with another body is 400 idempotency_key_reused', async () => {
  const { chat, model } = await harness();
  expect((await chat({ message: 'Hi' }, 'chat-2')).status).toBe(200);
  const other = await chat({ message: 'Something else' }, 'chat-2');
  expect(other.status).toBe(400);
  expect(JSON.parse(other.text).error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  expect(model.requests()).toBe(1);
}, 30_000);

test('a key over 255 characters is refused on chat as everywhere; a chat refused before streaming keeps no record', async () => {
  const { chat, h, agent } = await harness();
  const long = await chat({ message: 'Hi' }, 'k'.repeat(256));
  expect(long.status).toBe(400);
  expect(JSON.parse(long.text).error).toMatchObject({ code: 'validation_failed', param: 'Idempotency-Key' });
  // The same rule on a plain write and on an external action (whose key is otherwise ignored).
  const write = await h.call('POST', '/products', { name: 'Mug' }, { 'Idempotency-Key': 'k'.repeat(256) });
  expect(write.status).toBe(400);
  expect(write.body.error.param).toBe('Idempotency-Key');
  expect((await h.call('POST', '/products', { name: 'Mug' }, { 'Idempotency-Key': 'k'.repeat(255) })).status).toBe(201);
  // A 404 (unknown conversation) is not recorded: the key then serves the corrected request.
  const missing = await chat({ message: 'Hi', conversation_id: crypto.randomUUID() }, 'chat-3');
  expect(missing.status).toBe(404);
  const fixed = await chat({ message: 'Hi' }, 'chat-3');
  expect(fixed.status).toBe(200);
  expect(agent.id).toBeTruthy();
}, 30_000);

test('across processes the claim is a row with a lease: held elsewhere is 409; a lease run out (its process died) is taken over', async () => {
  const { chat, h, model } = await harness();
  const { requestHash } = await import('../../core/http/idempotency');
  const keyId = (await h.db.query('SELECT id FROM api_keys WHERE store_id = $1 LIMIT 1', [h.store.id]))[0].id;
  const path = `${h.base}/agents/${(await h.call('GET', '/agents')).body.data[0].id}/chat`;
  const rawBody = JSON.stringify({ message: 'Hi' });
  // Another process's claim, as it writes it when its stream starts.
  const claimedElsewhere = async (key: string, lockedUntil: string) =>
    h.db.query('INSERT INTO idempotency_keys (api_key_id, key, request_hash, created_at, locked_until) VALUES ($1, $2, $3, $4, $5)', [
      keyId,
      key,
      requestHash({ method: 'POST', path, rawBody }),
      h.clock.now(),
      new Date(lockedUntil),
    ]);
  await claimedElsewhere('held', '2026-04-01T00:05:00Z');
  expect((await chat({ message: 'Hi' }, 'held')).status).toBe(409);
  await claimedElsewhere('dead', '2026-03-31T23:59:00Z');
  const taken = await chat({ message: 'Hi' }, 'dead');
  expect(taken.status).toBe(200);
  expect(events(taken.text).at(-1)).toEqual({ type: 'end', usage: USAGE });
  expect((await chat({ message: 'Hi' }, 'dead')).text).toBe(taken.text);
  expect(model.requests()).toBe(1);
}, 30_000);
