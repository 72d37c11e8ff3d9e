import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { sharedDb } from '../../test/kit/db';
import { events, fakeServer, openai, USAGE } from '../../test/kit/fake-models';

beforeAll(() => sharedDb(), 60_000); // migrations: not within the first test's time limit
let stops: (() => void)[] = [];
afterEach(() => {
  stops.splice(0).forEach((s) => s());
});

const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
function withEnv(e: Record<string, string>) {
  return setup({ env: e });
}
const agent = (over: Record<string, unknown> = {}) => ({
  name: 'Shop assistant',
  model: 'openai/gpt-4o-mini',
  system_prompt: 'You help with the shop.',
  tools: ['products', 'orders'],
  channels: ['webchat', 'api'],
  ...over,
});

describe('agents CRUD', () => {
  test('create, get, list, update and delete an agent with the SPEC 2.4 fields', async () => {
    const h = await withEnv(env);
    const created = await h.call('POST', '/agents', agent());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'agent',
      name: 'Shop assistant',
      model: 'openai/gpt-4o-mini',
      tools: ['products', 'orders'],
      channels: ['webchat', 'api'],
      is_default: false,
      status: 'active',
    });
    const id = created.body.id;
    expect((await h.call('GET', `/agents/${id}`)).body.id).toBe(id);
    const list = await h.call('GET', '/agents');
    expect(list.body).toMatchObject({ object: 'list', has_more: false });
    expect(list.body.data.map((a: any) => a.id)).toEqual([id]);
    const patched = await h.call('PATCH', `/agents/${id}`, { tools: ['customers'] });
    expect(patched.status).toBe(200);
    expect(patched.body.tools).toEqual(['customers']);
    expect(patched.body.name).toBe('Shop assistant');
    expect((await h.call('DELETE', `/agents/${id}`)).body).toEqual({ id, object: 'agent', deleted: true });
    expect((await h.call('GET', `/agents/${id}`)).status).toBe(404);
  });

  test('an unknown tool name is a 400 naming tools.N, on create and on update', async () => {
    const h = await withEnv(env);
    const bad = await h.call('POST', '/agents', agent({ tools: ['products', 'teleport'] }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('tools.1');
    const { body } = await h.call('POST', '/agents', agent());
    const badPatch = await h.call('PATCH', `/agents/${body.id}`, { tools: ['nope'] });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error.param).toBe('tools.0');
  });

  test('one default agent per store: setting is_default clears the others', async () => {
    const h = await withEnv(env);
    const a = (await h.call('POST', '/agents', agent({ is_default: true }))).body;
    const b = (await h.call('POST', '/agents', agent({ name: 'B', is_default: true }))).body;
    expect((await h.call('GET', `/agents/${a.id}`)).body.is_default).toBe(false);
    expect(b.is_default).toBe(true);
    await h.call('PATCH', `/agents/${a.id}`, { is_default: true });
    const all = (await h.call('GET', '/agents')).body.data;
    expect(all.filter((x: any) => x.is_default).map((x: any) => x.id)).toEqual([a.id]);
  });

  test('a model whose provider is not configured is a 400 naming the missing setting', async () => {
    const h = await withEnv({});
    const r = await h.call('POST', '/agents', agent());
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('provider_not_configured');
    expect(r.body.error.message).toContain('OPENAI_BASE_URL');
    const a = await h.call('POST', '/agents', agent({ model: 'anthropic/claude-sonnet-4-5' }));
    expect(a.body.error).toMatchObject({ code: 'provider_not_configured' });
    expect(a.body.error.message).toContain('ANTHROPIC_API_KEY');
  });

  test('agents need ai or ai:read to read and ai or ai:write to write', async () => {
    const h = await withEnv(env);
    const reader = await h.newKey(['ai:read']);
    expect((await h.call('GET', '/agents', undefined, { 'x-api-key': reader })).status).toBe(200);
    const denied = await h.call('POST', '/agents', agent(), { 'x-api-key': reader });
    expect(denied.status).toBe(403);
    expect((await h.call('GET', '/agents', undefined, { 'x-api-key': await h.newKey(['products']) })).status).toBe(403);
    expect((await h.call('POST', '/agents', agent(), { 'x-api-key': await h.newKey(['ai:write']) })).status).toBe(201);
  });
});

describe('pausing an agent', () => {
  test('status paused: chat answers 409 agent_paused (stream or JSON) and the model is never asked; active again, it answers', async () => {
    const fake = fakeServer([openai.text('Back.')]);
    stops.push(fake.stop);
    const h = await withEnv({ OPENAI_BASE_URL: `${fake.url}/v1` });
    const { body: a } = await h.call('POST', '/agents', agent({ tools: [] }));
    const paused = await h.call('PATCH', `/agents/${a.id}`, { status: 'paused' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', name: 'Shop assistant', tools: [] });
    expect((await h.call('GET', `/agents/${a.id}`)).body.status).toBe('paused');
    expect((await h.call('GET', '/agents')).body.data.map((x: any) => x.status)).toEqual(['paused']);

    for (const body of [{ message: 'Hi' }, { message: 'Hi', stream: false }]) {
      const r = await h.call('POST', `/agents/${a.id}/chat`, body);
      expect(r.status).toBe(409);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(r.body.error).toMatchObject({ type: 'conflict_error', code: 'agent_paused', param: 'status' });
      expect(r.body.error.message).toContain('paused');
    }
    expect(fake.requests.length).toBe(0);
    expect((await h.call('GET', `/agents/${a.id}/conversations`)).body.data).toEqual([]);

    // Other changes leave it paused; setting it active resumes chat.
    expect((await h.call('PATCH', `/agents/${a.id}`, { name: 'Renamed' })).body.status).toBe('paused');
    expect((await h.call('PATCH', `/agents/${a.id}`, { status: 'active' })).body.status).toBe('active');
    const r = await h.call('POST', `/agents/${a.id}/chat`, { message: 'Hi' });
    expect(r.status).toBe(200);
    expect(events(r.body)).toEqual([
      { type: 'text', text: 'Back.' },
      { type: 'end', usage: USAGE },
    ]);
  });

  test('an unknown status is a 400 naming status; the error code is documented on the chat operation', async () => {
    const h = await withEnv(env);
    const { body: a } = await h.call('POST', '/agents', agent());
    const bad = await h.call('PATCH', `/agents/${a.id}`, { status: 'sleeping' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', param: 'status' });
    expect((await h.call('GET', `/agents/${a.id}`)).body.status).toBe('active');
    const doc = (await h.raw('GET', '/openapi.json')).body;
    const chat = doc.paths['/v1/stores/{storeId}/agents/{id}/chat'].post;
    expect(Object.keys(chat['x-error-codes'])).toContain('agent_paused');
    expect(Object.keys(chat.responses['200'].content).sort()).toEqual(['application/json', 'text/event-stream']);
    expect(chat.responses['200'].content['application/json'].schema.properties.tool_calls.type).toBe('array');
    expect(chat.requestBody.content['application/json'].schema.properties.stream.type).toBe('boolean');
  });
});
